import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Sessions of the held-out range 80,000–84,999, analysed after the range 70,000 was fixed against: each a defect
/// fixed, replayed with the verdict it has now.
@Suite("The held-out range 80,000: its sessions' events")
struct HeldOutRange80000Tests {
    @Test("A change no press can make, landing on a set's value before an earlier set, is no suspect press")
    func noSuspectWherePressesCannotLand() {
        // Sample 83344 (a grid-snapping phone): an up press snaps the Bluetooth route to 0.125 and is reported; its
        // resets 0.10024 and 0.1 are on their way when the headset's stored 0.1 synchronises. Taking the 0.1 set's
        // echo before the earlier set landed, the observation was a suspect down press — proven by that landing,
        // and reported with no press near it: 0.125 → 0.1 is neither a step nor onto the grid.
        let session = RandomSession.replayed(.systemNotification, sample: 83344, seed: 660_001_136)
        let verdict = session.eventVerdict()
        #expect(verdict.violations.isEmpty, "\(verdict.violations)")
    }

    @Test(
        "Another source's step reported is not read as an earlier press no app could see, out of order",
        arguments: [
            // Passive, sample 81802: two up presses at 1 (no KVO: no app sees them), a down press reported, then a
            // Bluetooth sync one step up, reported — the alignment took it for the first blind press.
            (SimulatedStrategy.passive, 81802, 647_790_038, "phantomPress"),
            // outputVolume, sample 80408: a press landing on a set's value before capture was claimed, then a
            // Bluetooth sync onto the grid 0.45 s later, reported — taken for that press, out of order.
            (.outputVolume, 80408, 636_750_953, "outOfOrder"),
        ] as [(SimulatedStrategy, UInt64, UInt64, String)])
    func otherSourceStepNotAnEarlierPress(strategy: SimulatedStrategy, sample: UInt64, seed: UInt64, kind: String) {
        let session = RandomSession.replayed(strategy, sample: sample, seed: seed)
        let verdict = session.eventVerdict()
        #expect(verdict.violations.isEmpty, "\(verdict.violations)")
        #expect(
            verdict.excused.contains {
                $0.limit == "another source moved the volume a press's step" && "\($0.violation.kind)" == kind
            })
    }

    @Test("A route change read while the session is inactive waits for live reads, as a notified one does")
    func unnotifiedRouteChangeDuringACall() {
        // Sample 84274 (no route notifications): two captured presses take the receiver from the user's 0.1 to 0,
        // their resets and the call's restore lost through a view not ready; during the call the audio moves to
        // the headphones, where the user chooses 0.64 in Control Center — taken for the receiver's own volume, and
        // the receiver's record went.
        let session = RandomSession.replayed(.systemNotification, sample: 84274, seed: 667_365_806)
        #expect(session.violations() == [])
    }

    @Test("Two routes that ended off, each under a limit of its own, now end at the user's volumes")
    func eachRouteUnderItsOwnLimit() {
        // Sample 84553: a set of VolumeKit's landed on the receiver across a route change and was taken for its own
        // volume (`routeVolumeUncertain`); later a press on the speaker just after an unnotified route change was
        // taken for the speaker's own volume (`routeChangeNotNotified`): each route under a limit of its own. With
        // the route read every 50 ms both changes are read before anything lands or is pressed on them.
        let session = RandomSession.replayed(.outputVolume, sample: 84553, seed: 669_575_207)
        #expect(session.violations() == [])
    }
}
