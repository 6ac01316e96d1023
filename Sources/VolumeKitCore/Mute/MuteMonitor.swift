#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// When to probe the Ring/Silent switch and what to tell whom: a pure machine, one method per input, each
/// returning the actions to carry out (``MuteSwitchEngine`` carries them out against the clients).
///
/// Rules (anchors' gaps in `shared/facts/mute-switch.md` §1, §5):
/// - on demand: ``request(_:at:conditions:)`` answers once; concurrent requests share the probe in flight,
///   and a request while a decided probe's sound is still finishing gets that decision at once;
/// - periodically while started, every ``Configuration/interval`` (default 1 s, at least 0.5 s as in
///   akramhussein/Mute), measured from one probe's start to the next; one probe in flight at a time;
/// - the first probe runs at once on start (Mute waited 1 s), after one priming play whose result is
///   dropped: the first play after launch can be slow (O'Reilly, Core iOS Cookbook; Actions #101 "only
///   reliable after second call");
/// - after a probe whose completion never came, the next one answers only from its own completion (or
///   its timeout), so a lost completion reads "unknown", not "ringing" then "unknown" again;
/// - paused in the background (Sharkfood: background audio could get the app rejected), one check at once
///   on foreground;
/// - ``Action/report(_:)`` only when the reported state changes, the first one marked ``MuteStateChange/isInitial``
///   (Mute never reported an initial "not silent" with `alwaysNotify = false`).
public struct MuteMonitor: Sendable {
    /// How often and how to probe.
    public struct Configuration: Sendable, Equatable {
        /// The shortest interval allowed: 0.5 s (akramhussein/Mute's clamp; react-native-volume-manager).
        public static let minimumInterval: TimeInterval = 0.5
        /// The default interval: 1 s (Mute, Sharkfood, GRV, MuteListener).
        public static let defaultInterval: TimeInterval = 1

        /// Seconds between the starts of two periodic probes, at least ``minimumInterval``.
        public var interval: TimeInterval {
            didSet { interval = Self.clamped(interval) }
        }
        /// The probe's times.
        public var timing: MuteProbeTiming

        /// Creates a configuration; an interval under 0.5 s (or not finite) becomes 0.5 s.
        public init(interval: TimeInterval = defaultInterval, timing: MuteProbeTiming = .standard) {
            self.interval = Self.clamped(interval)
            self.timing = timing
        }

        private static func clamped(_ interval: TimeInterval) -> TimeInterval {
            interval.isFinite ? max(minimumInterval, interval) : minimumInterval
        }
    }

    /// Identifies one on-demand request.
    public typealias RequestID = Int

    /// What the driver must do.
    public enum Action: Sendable, Equatable {
        /// Play the silent sound for a probe now, and pass its completion to ``completed(_:at:conditions:)``
        /// with this id. The probe's clock started at the input's time.
        case play(id: Int)
        /// Play the silent sound once to warm the sound system up; its completion is passed back the same way.
        case prime(id: Int)
        /// The reported state changed.
        case report(MuteStateChange)
        /// Answer these on-demand requests.
        case answer([RequestID], MuteState)
    }

    private enum InFlight: Sendable {
        case none
        case priming(id: Int, startedAt: Instant)
        case probe(id: Int, MuteProbe)
    }

    /// The configuration in force.
    public let configuration: Configuration
    /// Whether periodic checks are on (between ``start(at:conditions:isForeground:)`` and ``stop(at:)``).
    public private(set) var isRunning = false
    /// Whether the app is in the foreground.
    public private(set) var isForeground = true
    /// The last state reported, `nil` before the first report since start.
    public private(set) var reported: MuteState?
    /// When the next periodic probe is due, if one is.
    public private(set) var nextCheck: Instant?

    private var inFlight = InFlight.none
    private var isPrimed = false
    private var pendingCheck = false
    private var lastCompletionLost = false
    private var waiters: [RequestID] = []
    private var nextPlayID = 0

    /// Creates a stopped monitor.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Whether a sound is playing for the monitor (priming or probe).
    public var isPlaying: Bool {
        if case .none = inFlight { return false }
        return true
    }

    /// The earliest time the monitor needs ``tick(at:conditions:)``.
    public var nextDeadline: Instant? {
        var deadlines = [Instant]()
        switch inFlight {
        case .none: break
        case .priming(_, let start): deadlines.append(start + configuration.timing.timeout)
        case .probe(_, let probe): if let deadline = probe.nextDeadline { deadlines.append(deadline) }
        }
        if let nextCheck { deadlines.append(nextCheck) }
        return deadlines.min()
    }

    // MARK: - Inputs

    /// Starts periodic checks, with one check at once.
    public mutating func start(at now: Instant, conditions: MuteProbeConditions, isForeground: Bool = true) -> [Action]
    {
        guard !isRunning else { return [] }
        isRunning = true
        reported = nil
        self.isForeground = isForeground
        return isForeground ? check(at: now, conditions: conditions) : []
    }

    /// Stops periodic checks and reports. A probe in flight finishes for the requests waiting on it.
    public mutating func stop(at now: Instant) -> [Action] {
        isRunning = false
        nextCheck = nil
        if waiters.isEmpty { pendingCheck = false }
        return []
    }

    /// An on-demand check: answered by the probe in flight, or by a new one.
    public mutating func request(_ id: RequestID, at now: Instant, conditions: MuteProbeConditions) -> [Action] {
        if case .probe(_, let probe) = inFlight, let state = probe.state { return [.answer([id], state)] }
        waiters.append(id)
        return check(at: now, conditions: conditions)
    }

    /// The app went to the background: periodic checks pause.
    public mutating func enteredBackground(at now: Instant) -> [Action] {
        isForeground = false
        nextCheck = nil
        if waiters.isEmpty { pendingCheck = false }
        return []
    }

    /// The app came back: one check at once, then periodic checks resume.
    public mutating func enteredForeground(at now: Instant, conditions: MuteProbeConditions) -> [Action] {
        guard !isForeground else { return [] }
        isForeground = true
        guard isRunning else { return [] }
        nextCheck = nil
        if case .probe(_, let probe) = inFlight, probe.state != nil {
            // The probe in flight predates the foreground: check again once it ends.
            pendingCheck = true
            return []
        }
        return check(at: now, conditions: conditions)
    }

    /// The sound played with `id` completed.
    public mutating func completed(_ id: Int, at now: Instant, conditions: MuteProbeConditions) -> [Action] {
        switch inFlight {
        case .priming(let current, _) where current == id:
            inFlight = .none
            isPrimed = true
            return resumeAfterPlay(at: now, nextPeriodic: nil, conditions: conditions)
        case .probe(let current, var probe) where current == id:
            var actions = handle(probe.completed(at: now), at: now)
            inFlight = .probe(id: current, probe)
            actions += finishIfDone(probe, at: now, conditions: conditions)
            return actions
        default:
            return []  // A completion from a probe that already timed out.
        }
    }

    /// Time passed: thresholds, timeouts and periodic checks.
    public mutating func tick(at now: Instant, conditions: MuteProbeConditions) -> [Action] {
        var actions = [Action]()
        switch inFlight {
        case .none:
            break
        case .priming(_, let start):
            if now - start >= configuration.timing.timeout {
                // The priming play never completed: go on, the probe itself will tell.
                inFlight = .none
                isPrimed = true
                actions += resumeAfterPlay(at: now, nextPeriodic: nil, conditions: conditions)
            }
        case .probe(let id, var probe):
            actions += handle(probe.tick(at: now), at: now)
            inFlight = .probe(id: id, probe)
            actions += finishIfDone(probe, at: now, conditions: conditions)
        }
        if case .none = inFlight, let due = nextCheck, now >= due {
            nextCheck = nil
            actions += check(at: now, conditions: conditions)
        }
        return actions
    }

    // MARK: - Work

    private mutating func check(at now: Instant, conditions: MuteProbeConditions) -> [Action] {
        switch inFlight {
        case .probe(_, let probe) where probe.state == nil:
            return []  // Shared: the probe in flight answers.
        case .probe, .priming:
            pendingCheck = true
            return []
        case .none:
            break
        }
        pendingCheck = false
        if let answer = conditions.answerWithoutProbe {
            let actions = settle(answer)
            if isRunning, isForeground { nextCheck = now + configuration.interval }
            return actions
        }
        nextPlayID += 1
        if !isPrimed {
            inFlight = .priming(id: nextPlayID, startedAt: now)
            pendingCheck = true
            return [.prime(id: nextPlayID)]
        }
        let probe = MuteProbe(
            timing: configuration.timing, startedAt: now, decidesRingingAtThreshold: !lastCompletionLost)
        inFlight = .probe(id: nextPlayID, probe)
        return [.play(id: nextPlayID)]
    }

    private mutating func handle(_ outcomes: [MuteProbe.Outcome], at now: Instant) -> [Action] {
        outcomes.flatMap { settle($0.state) }
    }

    private mutating func finishIfDone(_ probe: MuteProbe, at now: Instant, conditions: MuteProbeConditions) -> [Action]
    {
        guard probe.isFinished else { return [] }
        inFlight = .none
        lastCompletionLost = probe.state == .unknown(.noCompletion)
        return resumeAfterPlay(at: now, nextPeriodic: probe.startedAt + configuration.interval, conditions: conditions)
    }

    /// After a play ends: a pending check runs now; otherwise the next periodic one is scheduled.
    private mutating func resumeAfterPlay(at now: Instant, nextPeriodic: Instant?, conditions: MuteProbeConditions)
        -> [Action]
    {
        if pendingCheck || !waiters.isEmpty { return check(at: now, conditions: conditions) }
        guard isRunning, isForeground, let nextPeriodic else { return [] }
        if nextPeriodic <= now { return check(at: now, conditions: conditions) }
        nextCheck = nextPeriodic
        return []
    }

    /// Answers the waiting requests and reports a change.
    private mutating func settle(_ state: MuteState) -> [Action] {
        var actions = [Action]()
        if !waiters.isEmpty {
            actions.append(.answer(waiters, state))
            waiters = []
        }
        if isRunning, state != reported {
            actions.append(.report(MuteStateChange(old: reported, new: state, isInitial: reported == nil)))
            reported = state
        }
        return actions
    }
}
