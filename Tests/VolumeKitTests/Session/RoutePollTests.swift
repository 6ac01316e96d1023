import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// The route read every 50 ms (`VolumeButtonsEngine.routePollInterval`) must not take a reset of VolumeKit's that
/// landed on the new route for that route's own volume: a poll that reads the value of a set on its way, or of one
/// seen landing a moment ago, waits for the route's notification or KVO, which carries the route's own volume.
/// (A version that waited only for a landing seen since the route was last read unchanged failed both.)
@Suite("The route poll and VolumeKit's own sets on their way")
struct RoutePollTests {
    @Test("A hold's reset landing on headphones plugged in just before the poll is not taken for their volume")
    func holdResetLandsOnTheNewRoute() {
        // Sweep sample 2388: a hold up at 0 on the speaker; its reset to 0 lands on the headphones (0.9375) 0.3 ms
        // after they are plugged in, and the poll 5 ms later reads 0. Followed at once, the headphones' own 0.9375,
        // which the notification brings 25 ms later, found the route already followed: they ended at 0.
        let session = RandomSession.replayed(.systemNotification, sample: 2388, seed: 18_910_572)
        #expect(session.violations() == [])
    }

    @Test("Resets for the receiver landing on the speaker just before the poll are not taken for its volume")
    func resetsLandOnTheSpeaker() {
        // Sweep sample 2509: two up presses at the receiver's 1.0, each reset to 0.9375; the output moves to the
        // speaker (0.33) and the second pair lands there 11 ms later. Followed at once on the poll's read of 0.9375,
        // before the route's notification brought 0.33, the speaker ended at 0.9375.
        let session = RandomSession.replayed(.systemNotification, sample: 2509, seed: 19_868_772)
        #expect(session.violations() == [])
    }
}
