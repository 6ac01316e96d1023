import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// How the randomized sessions' oracle reads the user's final volume where VolumeKit cannot see, or chooses
/// between two readings of, what the user did: each a session of the held-out sweep range (samples 20,000–24,999)
/// whose verdict was wrong before the reading was fixed.
@Suite("The sessions' oracle reads the user's volume as the user chose it")
struct FinalVolumeReadingTests {
    @Test("A Control Center drag in a series to the volume already shown is one choice, unobservable")
    func seriesDragToTheShownVolume() {
        // Sample 21677: during a call the user drags the speaker's volume to 0.25, the anchor VolumeKit holds there,
        // in a series of changes that each repeat 0.25. Nothing changes, so iOS reports nothing; VolumeKit gives
        // back the user's 1/16 it knew. The limit's "volume before the choice" was the first change's, not the
        // second's (by then the choice itself).
        let session = RandomSession.replayed(.outputVolume, sample: 21677, seed: 171_660_164)
        #expect(session.violations() == ["speaker: volume 0.0625, user's 0.25"])
        #expect(session.finalVolumeLimit == "Control Center value VolumeKit last saw there (unobservable)")
    }

    @Test("Control Center changes during a call that end on the value VolumeKit says it left are unobservable")
    func callChangesBackToTheHeldValue() {
        // Sample 24533: VolumeKit's anchor set of 0.75 for the user's 15/16 on the speaker landed on the headphones
        // after a route change; its saved record says it left 0.75 on the speaker. During a call (the app's session
        // inactive: no KVO, no notification) the user sets the speaker to 0.1, then to 0.75. Back, VolumeKit reads
        // the 0.75 its record holds and gives back 15/16: nothing it could see tells the two apart.
        let session = RandomSession.replayed(.outputVolume, sample: 24533, seed: 194_276_828)
        #expect(session.violations() == ["speaker: volume 0.9375, user's 0.75"])
        #expect(session.finalVolumeLimit == "Control Center value VolumeKit last saw there (unobservable)")
    }

    @Test(
        "Presses made from a value VolumeKit left keep the user's volume, with or without VolumeKit's nudges in it",
        arguments: [
            // A crash after captured presses whose resets iOS refused; two presses while the app is gone; the
            // launch recovery gives back whole steps from the user's volume, 1/4096 from the value pressed to.
            (SimulatedStrategy.systemNotification, 23384, 185_177_897),
            // A press while VolumeKit did not hold the volume, from a value its nudges left 5/4096 below its own.
            (.systemNotification, 21713, 171_945_247), (.outputVolume, 21713, 171_945_247),
        ] as [(SimulatedStrategy, UInt64, UInt64)])
    func pressFromLeftNudges(strategy: SimulatedStrategy, sample: UInt64, seed: UInt64) {
        let session = RandomSession.replayed(strategy, sample: sample, seed: seed)
        #expect(session.violations() == [], "\(session.script.joined(separator: "\n"))")
    }
}
