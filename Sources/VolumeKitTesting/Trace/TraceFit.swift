import Foundation
import VolumeKitCore

/// Estimates, from a trace alone, the device-behaviour rules that `shared/facts/envelope.md` lists as
/// unknown — step size and quantization, set → KVO latency, KVO delay, slider latency, view-ready delay,
/// hold rhythm, route/KVO order, dropped sets, tap length, sound completions, the late interruption "began" —
/// and sets each beside the envelope's range.
///
/// Only what crossed the clients is used: the KVO (or private-notification) volume stream, the app's
/// sets, view installs and readiness, lifecycle, route and interruption events and their details, capture
/// events, and the `gesture` records that say where a hold began (their exact time is not trusted).
public enum TraceFit {
    /// A rule the fitter estimates.
    public struct Rule: Sendable, Equatable {
        /// Its name, as estimates and JSON carry it.
        public var name: String
        /// The envelope's range (`nil`: the envelope gives none).
        public var range: EnvelopeRange?
        /// What it is, in a phrase.
        public var meaning: String

        init(_ name: String, _ range: EnvelopeRange?, _ meaning: String) {
            self.name = name
            self.range = range
            self.meaning = meaning
        }
    }

    /// Every rule the fitter estimates, with its envelope range from `shared/facts/envelope.md`.
    public static let rules: [Rule] = [
        Rule(
            "step",
            EnvelopeRange(
                .interval(0.0625, 0.0625), source: "envelope.md: 1/16, \"no evidence of step counts other than 16\""),
            "how far one press moves the volume"),
        Rule(
            "stepQuantization",
            EnvelopeRange(
                .variants(["exact", "grid", "rounded"]),
                source: "envelope.md: koze.hatenablog (iOS 8.3), Apple forums 756484"),
            "a press moves exactly one step from any value, snaps to the 1/16 grid, or reads rounded"),
        Rule(
            "roundTrip",
            EnvelopeRange(
                .range(CalibrationRule.roundTrip.range), source: "envelope.md: slider 5–150 ms plus KVO 0–30 ms"),
            "from the app's set to the KVO of the value set"),
        Rule(
            // What a trace measures is the KVO delay plus the gap after the notification: a device inside the
            // envelope shows up to 30 + 20 ms (the field-check sweep found samples judged outside at 0–30 ms).
            "kvoDelay",
            EnvelopeRange(
                .interval(0, 0.05),
                source: "envelope.md: KVO 0–30 ms (no source) plus the gap after the route notification 0–20 ms"),
            "from a change to its KVO, read at route changes: the KVO delay plus any gap the system leaves after the route notification (a trace cannot tell them apart)"
        ),
        Rule(
            "sliderLatency",
            EnvelopeRange(
                .interval(-0.015, 0.15),
                source:
                    "envelope.md: decompiled MediaPlayer (iOS 18.2), 5–150 ms, less the gap after the route notification (0–20 ms) that kvoDelay includes"
            ),
            "from the app's set to the change: set → KVO latency minus kvoDelay (so less any gap after the route notification)"
        ),
        Rule(
            "volumeViewReadyDelay",
            EnvelopeRange(.interval(0.05, 1.0), source: "envelope.md: JPSVolumeButtonHandler waits 1 s"),
            "from installing the volume view to its readiness"),
        Rule(
            "firstRepeatDelay",
            EnvelopeRange(
                .range(CalibrationRule.firstRepeatDelay.range),
                source: "envelope.md: SLVolumeButtonListener's timeouts are upper bounds"),
            "from a held press to its first auto-repeat"),
        Rule(
            "repeatInterval",
            EnvelopeRange(.range(CalibrationRule.repeatInterval.range), source: "envelope.md: SLVolumeButtonListener"),
            "between later auto-repeats"),
        Rule(
            "routeNotification",
            EnvelopeRange(
                .variants(["beforeKVO", "afterKVO"]), source: "envelope.md: RBVolumeButtons #18, openradar 35432156"),
            "whether the route-change notification comes before the new route's KVO"),
        Rule(
            "routeKVOGap",
            EnvelopeRange(
                .interval(0, 0.05),
                source: "envelope.md: gap 0–20 ms, after the KVO delay 0–30 ms when the notification comes first"),
            "the time between the route-change notification and the new route's KVO"),
        Rule(
            "droppedSets",
            EnvelopeRange(
                .interval(0, 1),
                source: "envelope.md: decompiled MPVolumeControllerSystemDataSource drops sets equal to its cache"),
            "the fraction of the app's sets that should have moved the volume and never did"),
        Rule("tapLength", nil, "how long a single press is held (capture events only)"),
        Rule(
            "soundSkippedDelay",
            EnvelopeRange(
                .interval(0.0002, 0.05),
                source: "mute-switch.md §4: < 1 ms (sindresorhus/Actions) to 50 ms (iPhone 8, Actions #101)"),
            "a skipped system sound's completion delay (switch on silent)"),
        Rule(
            "soundPlayedDelay", nil,
            "a played system sound's completion delay: its length plus 1–200 ms (mute-switch.md §4; the length is not in the trace)"
        ),
        Rule(
            "lateInterruptionBegan",
            EnvelopeRange(
                .variants(["none", "onResume", "afterActive"]),
                source:
                    "envelope.md (the late began): AVAudioSessionInterruptionWasSuspendedKey (iOS 10.3), reason .appWasSuspended (iOS 14.5–15), CSDN shengpeng3344 83617979"
            ),
            "whether the interruption \"began\" for the time suspended arrives on a return to the foreground before didBecomeActive or after it (trace format 3)"
        ),
    ]

    /// The envelope range of `rule`.
    public static func range(of rule: String) -> EnvelopeRange? { rules.first { $0.name == rule }?.range }

    /// Every rule's range from `shared/facts/envelope.md`, keyed by rule name: the default `ranges` of
    /// ``fit(_:ranges:)``.
    public static var envelope: [String: EnvelopeRange] {
        Dictionary(uniqueKeysWithValues: rules.compactMap { rule in rule.range.map { (rule.name, $0) } })
    }

    /// Fits every rule to `trace` and judges each estimate against `ranges` (rule name → range; a rule
    /// without one gets the verdict ``EnvelopeRange/Verdict/noRange``).
    public static func fit(_ trace: Trace, ranges: [String: EnvelopeRange] = envelope) -> TraceFitReport {
        let observations = TraceObservations(trace)
        var estimates: [RuleEstimate] = []
        let sets = observations.matchSets()
        estimates.append(sets.latency)
        let moves = observations.buttonMoves(claimed: sets.claimed)
        estimates += observations.step(moves)
        let route = observations.routeOrder(claimed: sets.claimed)
        estimates += route
        let kvo = kvoDelay(route)
        estimates.append(kvo)
        estimates.append(sliderLatency(setToKVO: sets.latency, kvoDelay: kvo))
        estimates.append(observations.viewReadyDelay())
        estimates += observations.holdRhythm(moves)
        estimates.append(sets.dropped)
        estimates.append(observations.tapLength())
        estimates += observations.soundCompletions()
        estimates.append(lateInterruptionBegan(trace))
        let order = rules.map(\.name)
        estimates.sort { (order.firstIndex(of: $0.rule) ?? 99) < (order.firstIndex(of: $1.rule) ?? 99) }
        return TraceFitReport(source: trace.header.source, estimates: estimates, ranges: ranges)
    }

    private static func kvoDelay(_ route: [RuleEstimate]) -> RuleEstimate {
        guard let order = route.first(where: { $0.rule == "routeNotification" }),
            let gap = route.first(where: { $0.rule == "routeKVOGap" }),
            case .variant("beforeKVO")? = order.value, let value = gap.value
        else {
            return .notObserved("kvoDelay", "needs a route change whose notification comes before the new route's KVO")
        }
        return RuleEstimate(
            rule: "kvoDelay", value: value, tolerance: gap.tolerance, samples: gap.samples,
            how:
                "the route-change notification to the new route's KVO: the KVO delay, plus any gap after the notification"
        )
    }

    private static func sliderLatency(setToKVO: RuleEstimate, kvoDelay: RuleEstimate) -> RuleEstimate {
        guard let total = setToKVO.value?.number, let kvo = kvoDelay.value?.number else {
            return .notObserved("sliderLatency", "needs both the set → KVO latency and the KVO delay (a route change)")
        }
        return RuleEstimate(
            rule: "sliderLatency", value: .seconds(total - kvo),
            tolerance: (setToKVO.tolerance ?? 0) + (kvoDelay.tolerance ?? 0),
            samples: min(setToKVO.samples, kvoDelay.samples), how: "set → KVO latency minus the KVO delay")
    }
}

/// The fitter's report: every rule's estimate beside the envelope's range.
public struct TraceFitReport: Sendable, Equatable {
    /// Simulator or device.
    public var source: TraceSource
    /// One estimate per rule, in ``TraceFit/rules`` order.
    public var estimates: [RuleEstimate]
    /// The ranges the estimates are judged against, by rule name.
    public var ranges: [String: EnvelopeRange]

    /// Creates a report.
    public init(source: TraceSource, estimates: [RuleEstimate], ranges: [String: EnvelopeRange] = TraceFit.envelope) {
        self.source = source
        self.estimates = estimates
        self.ranges = ranges
    }

    /// The estimate of `rule`.
    public subscript(rule: String) -> RuleEstimate? { estimates.first { $0.rule == rule } }

    /// How `estimate` sits against its envelope range.
    public func verdict(_ estimate: RuleEstimate) -> EnvelopeRange.Verdict {
        guard let range = ranges[estimate.rule] else { return estimate.isObserved ? .noRange : .notObserved }
        return range.verdict(for: estimate)
    }

    private static func number(_ value: Double) -> String { TraceJSON.number(value).text }

    /// One JSON object per rule, then a summary:
    /// `{"rule":…, "observed":…, "value":…, "unit":…, "tolerance":…, "samples":…, "range":…, "rangeSource":…,
    /// "verdict":…, "how":…}`.
    public var jsonLines: [String] {
        var out: [String] = estimates.map { estimate in
            var members: [TraceJSON.Member] = [
                .init("rule", .string(estimate.rule)), .init("observed", .bool(estimate.isObserved)),
            ]
            switch estimate.value {
            case .seconds(let value)?: members += [.init("value", .number(value)), .init("unit", .string("s"))]
            case .number(let value)?: members += [.init("value", .number(value)), .init("unit", .string("volume"))]
            case .fraction(let value)?: members += [.init("value", .number(value)), .init("unit", .string("fraction"))]
            case .variant(let name)?: members += [.init("value", .string(name)), .init("unit", .string("variant"))]
            case nil: members.append(.init("value", .null))
            }
            members.append(.init("tolerance", estimate.tolerance.map(TraceJSON.number) ?? .null))
            members.append(.init("samples", .number(Double(estimate.samples))))
            switch ranges[estimate.rule]?.kind {
            case .interval(let lower, let upper)?:
                members.append(.init("range", .array([.number(lower), .number(upper)])))
            case .variants(let names)?: members.append(.init("range", .array(names.map(TraceJSON.string))))
            case nil: members.append(.init("range", .null))
            }
            members.append(.init("rangeSource", ranges[estimate.rule].map { .string($0.source) } ?? .null))
            members.append(.init("verdict", .string(verdict(estimate).rawValue)))
            members.append(.init("how", .string(estimate.how)))
            return TraceJSON.object(members).text
        }
        let counts = Dictionary(grouping: estimates, by: { verdict($0).rawValue }).mapValues(\.count)
        out.append(
            TraceJSON.object([
                .init("type", .string("summary")), .init("source", .string(source.rawValue)),
                .init("inside", .number(Double(counts["inside"] ?? 0))),
                .init("outside", .number(Double(counts["outside"] ?? 0))),
                .init("notObserved", .number(Double(counts["notObserved"] ?? 0))),
            ]).text)
        return out
    }

    /// A table for people.
    public var textLines: [String] {
        var out = ["rule                   estimate               envelope                         verdict"]
        for estimate in estimates {
            let value: String
            switch estimate.value {
            case .seconds(let seconds)?:
                value = String(format: "%.1f ms ± %.1f", seconds * 1000, (estimate.tolerance ?? 0) * 1000)
            case .number(let number)?: value = String(format: "%.5f ± %.5f", number, estimate.tolerance ?? 0)
            case .fraction(let fraction)?:
                value =
                    "\(Int((fraction * Double(estimate.samples)).rounded())) of \(estimate.samples)"
                    + String(format: " (%.0f%%)", fraction * 100)
            case .variant(let name)?: value = name
            case nil: value = "—"
            }
            let range: String
            switch ranges[estimate.rule]?.kind {
            case .interval(let lower, let upper)?:
                range =
                    estimate.rule == "step" || estimate.rule == "droppedSets"
                    ? "\(Self.number(lower))…\(Self.number(upper))"
                    : String(format: "%.0f–%.0f ms", lower * 1000, upper * 1000)
            case .variants(let names)?: range = names.joined(separator: "|")
            case nil: range = "—"
            }
            let verdict = verdict(estimate)
            let verdictText =
                verdict == .notObserved ? "not observed" : verdict == .noRange ? "no range" : verdict.rawValue
            out.append(
                estimate.rule.padding(toLength: 23, withPad: " ", startingAt: 0)
                    + value.padding(toLength: 23, withPad: " ", startingAt: 0)
                    + range.padding(toLength: 33, withPad: " ", startingAt: 0) + verdictText)
        }
        let unseen = estimates.filter { !$0.isObserved }
        if !unseen.isEmpty {
            out.append("")
            out.append("not observed:")
            for estimate in unseen { out.append("  \(estimate.rule): \(estimate.how)") }
        }
        if source == .simulator {
            out.append("this trace is synthetic (recorded by the simulator): it shows the simulator's rules, not iOS's")
        }
        return out
    }
}
