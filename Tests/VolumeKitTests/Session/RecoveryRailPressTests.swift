import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// The launch recovery reads the volume with `outputVolume` whatever strategy the crashed run captured with (the
/// private notification needs the app's opt-in, which `VolumeRecovery.recoverIfNeeded` is not given): a press toward a
/// rail the volume sits at while it runs is unseen, and the recovery's restore moves the volume off that rail — said
/// with `railPressesUnseen`.
@Suite("A press at a rail during the launch recovery")
struct RecoveryRailPressTests {
    @Test("Unseen by the recovery's KVO whatever the session's strategy: the rail limit, with its diagnostic")
    func pressAtRailWhileRecovering() {
        // Held-out session systemNotification 93397: the user's 0.9375, a captured press to 1.0 through a view not
        // ready, a crash. At launch the recovery waits 0.6 s for its view; meanwhile the user presses up at 1.0
        // (nothing moves, no KVO), then the recovery's 0.9375 lands. Had the app's engine been running with the
        // private notification, the press would have been reported; the recovery's KVO cannot see it.
        let session = RandomSession.replayed(.systemNotification, sample: 93397, seed: 739_610_843)
        #expect(session.diagnostics.current.contains(.railPressesUnseen(1)))
        #expect(session.violations() == ["speaker: volume 0.9375, user's 1.0"])
        #expect(session.finalVolumeLimit == "press at a rail unseen")
    }
}
