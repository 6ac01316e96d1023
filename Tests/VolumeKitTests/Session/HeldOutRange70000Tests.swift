import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Sessions of the held-out range 70,000–74,999 (never fixed against until it was analysed) whose final volume was
/// a violation: each a defect fixed or a limit whose proof was incomplete, replayed with the verdict it has now.
@Suite("The held-out range 70,000: its sessions' final volumes")
struct HeldOutRange70000Tests {
    @Test(
        "A restore lost through a view not ready keeps its record across a later stop of observations",
        arguments: [
            // Speaker at 0.5: a press before the view takes sets, its reset and the call's restore lost; the
            // background, once the view counts as ready by time, took the sets as landed again and dropped the
            // record; the audio moves to the headphones during the call and the speaker stays at 0.5625.
            (SimulatedStrategy.outputVolume, 72011, 570_255_109), (.systemNotification, 72011, 570_255_109),
            // Speaker at 0.1: down presses to 0 before the view takes sets; a second interruption dropped it.
            (.outputVolume, 73236, 579_955_884), (.systemNotification, 73236, 579_955_884),
        ] as [(SimulatedStrategy, UInt64, UInt64)])
    func lostRestoreKeepsItsRecord(strategy: SimulatedStrategy, sample: UInt64, seed: UInt64) {
        let session = RandomSession.replayed(strategy, sample: sample, seed: seed)
        #expect(session.violations() == [], "\(session.script.joined(separator: "\n"))")
    }

    @Test("A Control Center choice 0.02 below where VolumeKit left the route is the user's, not VolumeKit's nudge")
    func controlCenterBelowTheLeftValue() {
        // Sample 71843: the speaker's record says VolumeKit left it at 1 (its sets of 0.75 lost through a view not
        // ready); during a call the user sets it to 0.98. The left value's band took 0.98 for VolumeKit's.
        let session = RandomSession.replayed(.outputVolume, sample: 71843, seed: 568_924_718)
        #expect(session.violations() == [])
    }

    @Test("Presses from a value below where VolumeKit left a route are not presses from its nudge")
    func pressesBelowTheLeftNudge() {
        // Sample 74284: VolumeKit held the user's 0.2 on the speaker and left it at its nudge 0.19585 for Bluetooth,
        // nothing in flight. Later, the app not running, the user chose 0.57 in Control Center and pressed down four
        // times to 0.32: two steps from 0.195, within the held value's band of nudges, but not from 0.19585 — the
        // recovery took it for presses from a nudge of VolumeKit's and gave back 0.325.
        let session = RandomSession.replayed(.systemNotification, sample: 74284, seed: 588_254_996)
        #expect(session.violations() == [])
    }

    @Test("A route change with no notification and no KVO is read before the press after it, and said")
    func unnotifiedRouteChangeAtStop() {
        // Sample 70032: the audio moves to AirPlay at the volume it had, with no notification; a press there made
        // the first change and was read as the route's own, and capture stopped 0.23 s later (the route limit, its
        // diagnostic then said at the stop). The route is now read every 50 ms: the press is measured from
        // AirPlay's own volume, and the change is still said.
        let session = RandomSession.replayed(.outputVolume, sample: 70032, seed: 554_583_408)
        #expect(session.violations() == [])
        #expect(session.diagnostics.current.contains(.routeChangeNotNotified))
    }

    @Test("A read at 0 taken for VolumeKit's own says that presses there were undone")
    func railReadBackIsReported() {
        // Sample 70173: resets lost through a view not ready leave AirPlay at 0; two presses down in the background
        // change nothing; back in front VolumeKit reads 0 as its own and sets the user's 0.33 again.
        let session = RandomSession.replayed(.outputVolume, sample: 70173, seed: 555_699_988)
        #expect(session.violations() == ["external: volume 0.33, user's 0.0"])
        #expect(session.diagnostics.current.contains(.railPressesUnseen(0)))
        #expect(session.finalVolumeLimit == "press at a rail unseen")
    }

    @Test("A press long after an unnotified route change that kept the volume is measured on the new route")
    func firstChangeLongAfterTheRouteChange() {
        // Sample 74339: the audio goes back to the speaker at the volume it had, with no notification; the user's
        // first press there, 1.56 s later, was the first change VolumeKit saw and read as the speaker's own (the
        // route limit). The route, read every 50 ms, is known long before the press.
        let session = RandomSession.replayed(.outputVolume, sample: 74339, seed: 588_690_542)
        #expect(session.violations() == [])
    }
}
