import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// A route change nothing reports (`routeNotification=missing`, both routes at one volume) followed by presses
/// toward the rail that volume sits at: nothing moves, so nothing tells VolumeKit the route changed.
@Suite("A route change nothing reports, then presses at a rail")
struct UnseenRouteChangeTests {
    @Test("Read every 50 ms, the route is known before the presses: they are reported")
    func unseenAtRail() {
        // Held-out sample 21050: from AirPlay (no volume control, 1.0) to the receiver at 1.0 with no notification;
        // six up presses there changed nothing VolumeKit could see (counted apart as unobservable). The route is
        // now read every 50 ms: VolumeKit holds the receiver below the rail, and the presses are seen.
        let session = RandomSession.replayed(.outputVolume, sample: 21050, seed: 166_694_951)
        let verdict = session.eventVerdict()
        #expect(verdict.ok, "\(verdict.violations)")
        #expect(verdict.excused.filter { $0.violation.kind == .missedPress }.isEmpty, "\(verdict.excused)")
    }
}
