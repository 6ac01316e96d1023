#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Learns the iPhone it runs on from what capture already sees — VolumeKit's own sets and their KVO, the steps
/// of a hold, capture events, route changes — never from an extra set or sound a user could notice.
///
/// Rules, each a measurement only where it cannot be something else:
/// - ``CalibrationRule/roundTrip``: a set observed back while it was the only set in flight (a press landing on
///   the value of one of several sets could pass for it), no sooner than its echo may come once the round trip
///   is known (`EchoWindow`: sooner, it is a press landing on the set's value);
/// - ``CalibrationRule/firstRepeatDelay`` and ``CalibrationRule/repeatInterval``: a run of at least
///   ``minimumHoldSteps`` steps of one button whose gaps after the first agree within ``rhythmTolerance`` and are
///   shorter than the first — a hold's auto-repeat (SLVolumeButtonListener.m: "the repeat rate is faster on the
///   second and subsequent") — with both gaps inside the envelope's ranges: regular quick taps after a pause
///   show the same shape with gaps outside them, so such a rhythm is never learned; only a long run
///   (``minimumOutsideHoldSteps``) whose first gap is later than the envelope allows is reported outside it;
/// - ``CalibrationRule/tapLength``: a capture event's press shorter than the first-repeat envelope;
/// - ``CalibrationRule/routeNotificationGap``: a route change's notification and its KVO;
/// - ``StepQuantization``: a press from a value off the 1/16 grid lands 1/16 away (exact) or on the grid;
/// - ``refusesSetsDuringDownPress``: a set of ours made during a run of down steps never seen back, while one made
///   after it was — passed over, as iOS 11+ refuses a set at or above where a held down press started (seed 000).
///
/// A measurement outside the envelope's range is kept apart and returned as ``Event/outsideEnvelope(_:_:)``. The
/// rules that may differ by route (``CalibrationRule/isPerRoute``) are learned on each route too (``byRoute``), and
/// the current route's own estimate is used once it is trusted (``estimate(of:)``).
/// Pure: one mutating method per input, the time passed in, what was learned returned.
public struct CalibrationMachine: Sendable, Equatable {
    /// What an input taught.
    public enum Event: Sendable, Equatable {
        /// A measurement inside the envelope, now part of the rule's estimate.
        case learned(CalibrationRule, Double)
        /// A measurement outside the envelope's range: kept apart, never used.
        case outsideEnvelope(CalibrationRule, Double)
    }

    /// The fewest steps that show a hold's rhythm: the first gap and three regular ones.
    public static let minimumHoldSteps = 5
    /// The fewest steps of a run whose first gap, later than the envelope's first repeat, is reported as
    /// outside it: a hold's repeats, which a few taps after a pause do not make.
    public static let minimumOutsideHoldSteps = 8
    /// How far a hold's later gaps may stray from their median.
    public static let rhythmTolerance: TimeInterval = 0.015
    /// A pause longer than this ends a run of steps.
    public static let runBreak: TimeInterval = 0.8
    /// The longest a set may take to come back and still be measured (beyond the envelope's round trip).
    public static let setWindow: TimeInterval = 0.5
    /// How much earlier than a set seen back another must have been made to count as passed over
    /// (``refusesSetsDuringDownPress``): a little less than the quickest presses' spacing (0.05 s,
    /// ``HeadroomPolicy/burstSpacing``), so sets made together, whose changes one KVO may report, never do, and resets
    /// of presses 50 ms apart always do.
    public static let passedOverGap: TimeInterval = 0.04

    /// The estimates of the timed rules, over every route.
    public private(set) var estimates: [CalibrationRule: CalibrationEstimate] = [:]
    /// The estimates of the rules learned per route (``CalibrationRule/isPerRoute``) on each route they were
    /// measured on.
    public private(set) var byRoute: [AudioRoute: [CalibrationRule: CalibrationEstimate]] = [:]
    /// The route VolumeKit's sets land on now (``setRoute(_:at:)``), `nil` until told.
    public private(set) var route: AudioRoute?
    /// How presses move the volume, once a press from a value off the grid showed it.
    public private(set) var quantization: StepQuantization?
    /// How many runs of down steps showed a set of ours passed over (``refusesSetsDuringDownPress``), at most
    /// ``maximumRefusals``.
    public private(set) var downPressRefusals = 0
    /// The most runs ``downPressRefusals`` counts (one shows the refusal; a stored count is cut to it).
    public static let maximumRefusals = 1000
    /// When the run that last showed a set passed over began: one run counts once.
    private var refusalRunBegan: Instant?
    /// Sets made and not yet seen back (the newest last), at most four.
    private var sets = SmallList<PendingSet>()
    /// The current run of one button's steps.
    private var run = StepRun()

    private struct PendingSet: Sendable, Equatable {
        var value: Float
        var time: Instant
        /// When the run of down steps it was made during began (`nil`: made in no such run).
        var downRunBegan: Instant?
        /// Made again while an earlier set of its value was on its way, which was then seen back: it lands on that
        /// value unreported, and is never taken for passed over.
        var landsUnseen = false
    }

    private struct StepRun: Sendable, Equatable {
        var button: VolumeButton?
        var times = SmallList<Instant>()
    }

    /// Whether this phone refuses a set of ours during a down press (``downPressRefusals`` at least one run): iOS 11+
    /// refuses a set at or above the value a held down press started from (seed 000: "iOS11下调小音量的事件周期结束前是不
    /// 允许设置的新值大于或等于旧值(0除外)"). A hold of the down button shows it on such a phone: VolumeKit's set of the
    /// anchor after a step is never seen, its nudges below are. A phone that only drops a set equal to the slider's
    /// cached value (decompiled iOS 18.2) may show it too; VolumeKit then holds more headroom than it needs and aims
    /// its down bursts' resets lower than it must (``HeadroomPolicy``) — each still lands, a press apart.
    public var refusesSetsDuringDownPress: Bool { downPressRefusals >= 1 }

    /// Nothing learned; starts from a stored calibration when given (`byRoute`: only the rules learned per route
    /// are kept there; `downPressRefusals`: ``downPressRefusals``).
    public init(
        estimates: [CalibrationRule: CalibrationEstimate] = [:],
        byRoute: [AudioRoute: [CalibrationRule: CalibrationEstimate]] = [:], quantization: StepQuantization? = nil,
        downPressRefusals: Int = 0
    ) {
        self.estimates = estimates
        self.quantization = quantization
        self.downPressRefusals = min(max(0, downPressRefusals), Self.maximumRefusals)
        self.byRoute = byRoute.mapValues { $0.filter(\.key.isPerRoute) }.filter { !$0.value.isEmpty }
    }

    /// Takes from `other` the rules this machine has not measured at all (over every route, and on each route),
    /// its quantization if this one has none, and the larger of the two ``downPressRefusals``.
    public mutating func keep(_ other: CalibrationMachine) {
        for (rule, estimate) in other.estimates where estimates[rule] == nil { estimates[rule] = estimate }
        for (route, rules) in other.byRoute {
            for (rule, estimate) in rules where byRoute[route]?[rule] == nil {
                byRoute[route, default: [:]][rule] = estimate
            }
        }
        if quantization == nil { quantization = other.quantization }
        downPressRefusals = max(downPressRefusals, other.downPressRefusals)
    }

    /// The learned value of `rule` in use now (``estimate(of:)``), if any.
    public func value(of rule: CalibrationRule) -> Double? { estimate(of: rule)?.value }

    /// The estimate of `rule` in use now: for a rule learned per route, the current route's own once it has
    /// ``HeadroomPolicy/samplesToTrust`` measurements; else (and for the other rules) the one over every route.
    public func estimate(of rule: CalibrationRule) -> CalibrationEstimate? {
        ownEstimate(of: rule) ?? estimates[rule]
    }

    /// The estimate of `rule` measured where VolumeKit's sets land now: for a rule learned per route, the current
    /// route's own once it has ``HeadroomPolicy/samplesToTrust`` measurements, else `nil` — not another route's, for
    /// what must not be too short there (a retry before a slower route's first landing sets twice); for the other
    /// rules, and before any route is known, the one over every route.
    public func ownEstimate(of rule: CalibrationRule) -> CalibrationEstimate? {
        guard rule.isPerRoute, let route else { return estimates[rule] }
        guard let own = byRoute[route]?[rule], own.samples >= HeadroomPolicy.samplesToTrust else { return nil }
        return own
    }

    /// VolumeKit's sets land on `route` from `time` on. A change forgets the sets made before it: one may land on
    /// either route, and its round trip would be neither's.
    public mutating func setRoute(_ route: AudioRoute, at time: Instant) {
        guard route != self.route else { return }
        if self.route != nil { sets.removeAll { $0.time < time } }
        self.route = route
    }

    /// VolumeKit set the volume to `value`.
    public mutating func setMade(_ value: Float, at time: Instant) {
        if sets.count >= 4 { sets.removeFirst(1) }
        let downRun = run.button == .down && (run.times.last.map { time - $0 <= Self.runBreak } ?? false)
        sets.append(PendingSet(value: value, time: time, downRunBegan: downRun ? run.times.first : nil))
    }

    /// The volume was observed at `value` (KVO).
    public mutating func observed(_ value: Float, at time: Instant) -> [Event] {
        sets.removeAll { time - $0.time > Self.setWindow }
        guard let index = sets.firstIndex(where: { abs($0.value - value) <= VolumeStepMachine.readTolerance }) else {
            return []
        }
        let only = sets.count == 1
        let made = sets[index].time
        // Sets made before this one, during a run of down steps, and not seen back: passed over (iOS applies an app's
        // sets in order) — refused under a held down press. Not one made with it or just before (a nudge beside and
        // the exact value are set together: one KVO may report both, and a new route's own volume may equal the
        // second), nor a retry of a value seen back before (it landed on that value, which KVO does not report again).
        for passed in sets.prefix(index) where made - passed.time >= Self.passedOverGap && !passed.landsUnseen {
            guard let began = passed.downRunBegan, began != refusalRunBegan else { continue }
            refusalRunBegan = began
            downPressRefusals = min(downPressRefusals + 1, Self.maximumRefusals)
        }
        sets.removeFirst(index + 1)
        for later in sets.indices where abs(sets[later].value - value) <= VolumeStepMachine.readTolerance {
            sets[later].landsUnseen = true
        }
        // Sooner than an echo may come (``EchoWindow``): a press landing on the set's value, not the set.
        guard time - made >= EchoWindow.soonest(roundTrip: estimate(of: .roundTrip)) else { return [] }
        return only ? add(time - made, to: .roundTrip) : []
    }

    /// A step of `button` was seen (a press or an auto-repeat, as the volume moved).
    public mutating func step(_ button: VolumeButton, at time: Instant) -> [Event] {
        var events = [Event]()
        if run.button != button || (run.times.last.map { time - $0 > Self.runBreak } ?? false) {
            events = endSteps()
            run.button = button
        }
        if !run.times.isFull { run.times.append(time) }
        return events
    }

    /// Time passed with no step: a run that has paused long enough ends, and is judged.
    public mutating func quiet(at time: Instant) -> [Event] {
        guard let last = run.times.last else { return [] }
        // A long run has shown its rhythm: its last gap and the tolerance without a step ends it (the press
        // classifier's own release comes later than that).
        let count = run.times.count
        let lastGap = count >= 2 ? last - run.times[count - 2] : Self.runBreak
        let ended =
            time - last > Self.runBreak
            || (count >= Self.minimumHoldSteps && time - last > lastGap + Self.rhythmTolerance)
        return ended ? endSteps() : []
    }

    /// A capture event's press: down at `began`, up at `ended`.
    public mutating func tap(began: Instant, ended: Instant) -> [Event] {
        let length = ended - began
        // Longer than the shortest first repeat, it may be a hold: not a tap's length.
        guard length >= 0, length < CalibrationRule.firstRepeatDelay.range.lowerBound else { return [] }
        return add(length, to: .tapLength)
    }

    /// A route change's notification came at `notification`, its KVO at `kvo`.
    public mutating func routeChanged(notification: Instant, kvo: Instant) -> [Event] {
        add(abs(kvo - notification), to: .routeNotificationGap)
    }

    /// A press moved the volume from `old` to `new`: from a value off the 1/16 grid, it shows the quantization.
    public mutating func pressLanded(from old: Float, to new: Float) {
        let step = VolumeStepMachine.step
        func onGrid(_ value: Float) -> Bool {
            abs(value / step - (value / step).rounded()) * step <= 2 * VolumeStepMachine.readTolerance
        }
        guard !onGrid(old), new > 0, new < 1 else { return }
        if abs(abs(new - old) - step) <= VolumeStepMachine.readTolerance {
            quantization = .exact
        } else if onGrid(new) {
            quantization = .grid
        }
    }

    private mutating func add(_ measurement: Double, to rule: CalibrationRule) -> [Event] {
        var estimate = estimates[rule] ?? CalibrationEstimate()
        let inside = estimate.add(measurement, range: rule.range)
        estimates[rule] = estimate
        if rule.isPerRoute, let route {
            byRoute[route, default: [:]][rule, default: CalibrationEstimate()].add(measurement, range: rule.range)
        }
        return [inside ? .learned(rule, measurement) : .outsideEnvelope(rule, measurement)]
    }

    /// Judges the run that ended: a hold's rhythm, or nothing.
    private mutating func endSteps() -> [Event] {
        defer { run = StepRun() }
        let times = run.times
        guard times.count >= Self.minimumHoldSteps else { return [] }
        var gaps = [TimeInterval]()
        for index in 1..<times.count { gaps.append(times[index] - times[index - 1]) }
        let later = gaps.dropFirst().sorted()
        let median = later[later.count / 2]
        guard later.allSatisfy({ abs($0 - median) <= Self.rhythmTolerance }), gaps[0] > median + Self.rhythmTolerance
        else { return [] }
        // Regular taps after a pause look the same: a rhythm is a hold's only where both gaps lie where iOS's do
        // (the envelope's ranges), so quick taps (gaps under 0.06 s) or a first gap under 0.3 s teach nothing.
        let noise = CalibrationEstimate.measurementNoise
        let interval = CalibrationRule.repeatInterval.range
        guard median >= interval.lowerBound - noise, median <= interval.upperBound + noise else { return [] }
        let first = CalibrationRule.firstRepeatDelay.range
        if gaps[0] > first.upperBound + noise {
            // A first repeat later than the envelope allows is news, but only from a long run: a hold's
            // repeats, not a few taps. It is kept apart (never used), as every outside measurement is.
            return times.count >= Self.minimumOutsideHoldSteps ? add(gaps[0], to: .firstRepeatDelay) : []
        }
        guard gaps[0] >= first.lowerBound - noise else { return [] }
        return add(gaps[0], to: .firstRepeatDelay) + add(median, to: .repeatInterval)
    }
}

extension [CalibrationMachine.Event] {
    /// Whether a hold's first repeat was learned among these events.
    var learnedRhythm: Bool {
        contains { if case .learned(.firstRepeatDelay, _) = $0 { true } else { false } }
    }
}
