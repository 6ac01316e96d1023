import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Whose an observation or a read is — a set of VolumeKit's landing, a route's own volume, or a press: sets land
/// in the order issued, one entry each (`EchoLedger`), some never land (refused, dropped) and some land
/// silently. Each case is a randomized session (strategy, sample, seed) whose events the honest oracle found
/// wrong, judged against what the user did (``PressOracle``).
@Suite("Whose an observation is: a landing is never taken for a press, nor a press for a landing")
struct ObservationAttributionTests {
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
        let session = RandomSession.replayed(strategy, sample: sample, seed: seed, world: false)
        let verdict = session.eventVerdict()
        #expect(verdict.ok, "\(verdict.violations.map(\.summary))")
        #expect(session.violations() == [])
    }

    @Test(
        "Randomized sessions that lost a press (or its proof) report it, or raise the diagnostic of its limit",
        arguments: [
            // A route change handled once reads were live again (after an interruption) waited for the new route's
            // KVO, which had come — or not — while they were stale; the next press's observation was taken for it.
            (SimulatedStrategy.outputVolume, 1716, 13_589_005),
            // A live read of the anchor while a retry of it waited for the buttons to be quiet (no set of it on its
            // way) was taken for its landing: it was a press snapped to the grid from a nudge.
            (.outputVolume, 1611, 12_757_509),
            // A down button held at 0 from before capture refuses the anchor (seed 000): the headroom is not there,
            // and VolumeKit now says so when it sets the anchor again (headroomExhausted), so the limit's proof holds.
            (.outputVolume, 235, 1_860_966),
        ] as [(SimulatedStrategy, UInt64, UInt64)])
    func lostPresses(strategy: SimulatedStrategy, sample: UInt64, seed: UInt64) {
        let session = RandomSession.replayed(strategy, sample: sample, seed: seed, world: false)
        let verdict = session.eventVerdict()
        #expect(verdict.ok, "\(verdict.violations.map(\.summary))")
        #expect(session.violations() == [])
    }
}
