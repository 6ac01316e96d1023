import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// The sessions' oracle and another source's change no app can see (README, "another source's change hidden by a
/// set in flight"): sessions of the held-out range 70,000–74,999 whose final volume was a violation before the
/// limit was written, each a Bluetooth headset's volume synchronised while a set of VolumeKit's was on its way.
@Suite("Another source's change hidden by a set in flight is an unobservable limit")
struct UnseenOtherSourceTests {
    @Test(
        "A headset's synchronised volume that a set in flight hides gives back the user's volume from before it",
        arguments: [
            // Sample 72897: VolumeKit holds the Bluetooth route at its anchor 0.25 for the user's 0.1; the headset's
            // stored 0.25 synchronises while the anchor set is on its way. One KVO of 0.25 shows both.
            (72897, 577_271_343, "bluetooth: volume 0.1, user's 0.25"),
            // Sample 72869: the same, the app crashed as the call ended: the launch reads the anchor it left.
            (72869, 577_049_611, "bluetooth: volume 0.1, user's 0.25"),
            // Sample 70613: the crashed run's anchor set of 0.125 lands over the headset's synchronised 0.25; the
            // launch reads the anchor it left and gives back the user's 0.08.
            (70613, 559_184_347, "bluetooth: volume 0.08, user's 0.25"),
        ] as [(UInt64, UInt64, String)])
    func hiddenSync(sample: UInt64, seed: UInt64, problem: String) {
        let session = RandomSession.replayed(.outputVolume, sample: sample, seed: seed)
        #expect(session.violations() == [problem])
        #expect(session.finalVolumeLimit == "another source's change hidden by a set in flight (unobservable)")
    }
}
