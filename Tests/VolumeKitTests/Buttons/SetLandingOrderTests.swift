import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Which of VolumeKit's sets an observation is: sets land in the order issued, one entry each
/// (`EchoLedger`), some never land (refused, dropped) and some land silently. Each case is a randomized
/// session (strategy, sample, seed) whose events the honest oracle found wrong, judged against what the user
/// did (``PressOracle``).
@Suite("Sets land in order: a landing is never taken for a press, nor a press for a landing")
struct SetLandingOrderTests {
    @Test(
        "Randomized sessions whose events were wrong (a phantom press) are right against the ground truth",
        arguments: [
            // Two sets of one value in flight were one merged entry: a landing of the earlier one was taken for
            // the later, which then looked landed before a set issued ahead of it, and the next landing "proved"
            // a press that nobody made.
            (SimulatedStrategy.outputVolume, 498, 3_943_663),
            // A retry refused during a down press never landed; the landing of the same value issued after the
            // suspect's set explained the observation as well, so it proves nothing.
            (.systemNotification, 260, 2_058_941),
            // The route changed without a notification, seen first with a landing of ours on the old route: the new
            // route's own KVO came after it and was taken for the landing of the new anchor.
            (.outputVolume, 605, 4_790_995),
            // An anchor set landing silently (a press had ended on its value first) proved nothing either.
            (.outputVolume, 120, 950_280),
        ] as [(SimulatedStrategy, UInt64, UInt64)])
    func namedSessions(strategy: SimulatedStrategy, sample: UInt64, seed: UInt64) {
        let session = RandomSession(seed: seed, behaviour: .sample(sample), strategy: strategy)
        session.run(length: 14)
        let verdict = session.eventVerdict()
        #expect(verdict.ok, "\(verdict.violations.map(\.summary))")
        #expect(session.violations() == [])
    }
}
