#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One mute probe: a silent system sound played at ``startedAt`` and classified from monotonic times alone.
///
/// - completion before the threshold → ``MuteState/silent`` (iOS skipped the sound);
/// - no completion by the threshold → ``MuteState/ringing``, decided *at* the threshold by ``tick(at:)``;
/// - a completion between the threshold and ``MuteProbeTiming/lateSilentBound`` after that decision →
///   revised to ``MuteState/silent`` (a played sound cannot finish that early);
/// - no completion by the timeout → ``MuteState/unknown(_:)`` (``MuteUnknownReason/noCompletion``).
///
/// Times are passed in; the machine never reads a clock. Anchors measured with wall clocks (`Date`), which
/// may jump back (`shared/facts/mute-switch.md` §4); the live clock here is monotonic.
public struct MuteProbe: Sendable, Equatable {
    /// What a probe reports.
    public enum Outcome: Sendable, Equatable {
        /// The probe's first answer.
        case decided(MuteState)
        /// A later answer that replaces the first (late silent completion, or no completion at all).
        case revised(MuteState)

        /// The state reported.
        public var state: MuteState {
            switch self {
            case .decided(let state), .revised(let state): state
            }
        }
    }

    /// The timing the probe classifies with.
    public let timing: MuteProbeTiming
    /// When the sound was asked to play.
    public let startedAt: Instant
    /// Whether "ringing" is decided at the threshold. `false` right after a probe whose completion never
    /// came: the missing completion then says nothing about the switch, so the probe waits for its
    /// completion (or the timeout) instead of answering "ringing" and flip-flopping with "unknown".
    public let decidesRingingAtThreshold: Bool
    /// The current answer, `nil` until decided.
    public private(set) var state: MuteState?
    /// When the first answer was given.
    public private(set) var decidedAt: Instant?
    /// Whether the probe is over: the sound completed, or the timeout passed.
    public private(set) var isFinished = false

    /// Starts a probe whose sound was asked to play at `startedAt`.
    public init(timing: MuteProbeTiming = .standard, startedAt: Instant, decidesRingingAtThreshold: Bool = true) {
        self.timing = timing
        self.startedAt = startedAt
        self.decidesRingingAtThreshold = decidesRingingAtThreshold
    }

    /// When the probe next needs ``tick(at:)``: the threshold while undecided, then the timeout.
    public var nextDeadline: Instant? {
        if isFinished { return nil }
        return startedAt + (state == nil && decidesRingingAtThreshold ? timing.threshold : timing.timeout)
    }

    /// The sound's completion arrived at `time`.
    public mutating func completed(at time: Instant) -> [Outcome] {
        guard !isFinished else { return [] }
        isFinished = true
        // Compared as instants, the way `nextDeadline` computes them, so a tick at the deadline always decides.
        let skipped = time < startedAt + timing.lateSilentBound
        guard state != nil else {
            // Undecided: before the threshold, or a late tick — a sound that played cannot end before
            // `lateSilentBound`, so that completion is silent too.
            return [decide(skipped ? .silent : .ringing, at: time)]
        }
        if state == .ringing, skipped {
            state = .silent
            return [.revised(.silent)]
        }
        return []
    }

    /// Time passed: decides "ringing" at the threshold and "unknown" at the timeout.
    public mutating func tick(at time: Instant) -> [Outcome] {
        guard !isFinished else { return [] }
        if time >= startedAt + timing.timeout {
            isFinished = true
            let unknown = MuteState.unknown(.noCompletion)
            if state == nil { return [decide(unknown, at: time)] }
            state = unknown
            return [.revised(unknown)]
        }
        if state == nil, decidesRingingAtThreshold, time >= startedAt + timing.threshold {
            return [decide(.ringing, at: time)]
        }
        return []
    }

    private mutating func decide(_ new: MuteState, at time: Instant) -> Outcome {
        state = new
        decidedAt = time
        return .decided(new)
    }
}
