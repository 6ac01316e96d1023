import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The fitter's report: every rule's estimate beside the envelope's range, its verdict, and the live
/// calibration's estimate where the trace carries one.
public struct TraceFitReport: Sendable, Equatable {
    /// Simulator or device.
    public var source: TraceSource
    /// One estimate per rule, in ``TraceFit/rules`` order.
    public var estimates: [RuleEstimate]
    /// The ranges the estimates are judged against, by rule name.
    public var ranges: [String: EnvelopeRange]
    /// The sets that should have moved the volume (the app listening, the volume not already at the value) and
    /// never reached KVO, of all such sets — what `downPressRefusal` is read from; `nil` when no set could be
    /// judged.
    public var droppedSets: (dropped: Int, of: Int)?
    /// The last calibration VolumeKit stored in the trace, if any.
    public var live: LiveCalibration?

    /// Creates a report.
    public init(
        source: TraceSource, estimates: [RuleEstimate], ranges: [String: EnvelopeRange] = TraceFit.envelope,
        droppedSets: (dropped: Int, of: Int)? = nil, live: LiveCalibration? = nil
    ) {
        self.source = source
        self.estimates = estimates
        self.ranges = ranges
        self.droppedSets = droppedSets
        self.live = live
    }

    /// Reports are equal when all they say is.
    public static func == (lhs: TraceFitReport, rhs: TraceFitReport) -> Bool {
        lhs.source == rhs.source && lhs.estimates == rhs.estimates && lhs.ranges == rhs.ranges
            && lhs.droppedSets?.dropped == rhs.droppedSets?.dropped && lhs.droppedSets?.of == rhs.droppedSets?.of
            && lhs.live == rhs.live
    }

    /// The estimate of `rule`.
    public subscript(rule: String) -> RuleEstimate? { estimates.first { $0.rule == rule } }

    /// How `estimate` sits against its envelope range: inside or outside where the data supports a verdict,
    /// undetermined otherwise (``reason(_:)`` says why).
    public func verdict(_ estimate: RuleEstimate) -> EnvelopeRange.Verdict {
        guard let range = ranges[estimate.rule], estimate.isObserved,
            estimate.samples >= (TraceFit.rule(named: estimate.rule)?.minimumSamples ?? 1)
        else { return .undetermined }
        return range.verdict(for: estimate)
    }

    /// Why `estimate` is undetermined, in a sentence; `nil` when it has a verdict.
    public func reason(_ estimate: RuleEstimate) -> String? {
        guard verdict(estimate) == .undetermined else { return nil }
        guard estimate.isObserved else { return "not observed: \(estimate.how)" }
        guard ranges[estimate.rule] != nil else { return "the envelope gives no range for this rule" }
        let minimum = TraceFit.rule(named: estimate.rule)?.minimumSamples ?? 1
        if estimate.samples < minimum {
            return "only \(estimate.samples) observation\(estimate.samples == 1 ? "" : "s"), a verdict needs \(minimum)"
        }
        return estimate.isBound
            ? "the trace only bounds it, and its bounds reach across the envelope's edge"
            : "its tolerance reaches across the envelope's edge"
    }

    /// One JSON object per rule, then a summary:
    /// `{"rule":…, "observed":…, "value":…, "unit":…, "tolerance":…, "bound":…, "samples":…, "range":…,
    /// "rangeSource":…, "verdict":…, "reason":…, "how":…, "live":…}` — `verdict` is `inside`, `outside` or
    /// `undetermined` (with its `reason`), `live` the calibration's estimate (``LiveCalibration``) or `null`.
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
            members.append(.init("bound", .bool(estimate.isBound)))
            members.append(.init("samples", .number(Double(estimate.samples))))
            switch ranges[estimate.rule]?.kind {
            case .interval(let lower, let upper)?:
                members.append(.init("range", .array([.number(lower), .number(upper)])))
            case .variants(let names)?: members.append(.init("range", .array(names.map(TraceJSON.string))))
            case nil: members.append(.init("range", .null))
            }
            members.append(.init("rangeSource", ranges[estimate.rule].map { .string($0.source) } ?? .null))
            members.append(.init("verdict", .string(verdict(estimate).rawValue)))
            members.append(.init("reason", reason(estimate).map(TraceJSON.string) ?? .null))
            members.append(.init("how", .string(estimate.how)))
            members.append(.init("live", live?.json(estimate.rule) ?? .null))
            return TraceJSON.object(members).text
        }
        let counts = Dictionary(grouping: estimates, by: { verdict($0).rawValue }).mapValues(\.count)
        var summary: [TraceJSON.Member] = [
            .init("type", .string("summary")), .init("source", .string(source.rawValue)),
            .init("inside", .number(Double(counts["inside"] ?? 0))),
            .init("outside", .number(Double(counts["outside"] ?? 0))),
            .init("undetermined", .number(Double(counts["undetermined"] ?? 0))),
        ]
        if let droppedSets {
            summary.append(
                .init(
                    "droppedSets",
                    .object([
                        .init("dropped", .number(Double(droppedSets.dropped))),
                        .init("of", .number(Double(droppedSets.of))),
                    ])))
        }
        summary.append(.init("liveStoredAt", live.map { .number($0.time) } ?? .null))
        if let problem = live?.problem { summary.append(.init("liveProblem", .string(problem))) }
        out.append(TraceJSON.object(summary).text)
        return out
    }

    /// A table for people: each rule's estimate, the envelope, the verdict and the live calibration's estimate,
    /// then why each undetermined rule is.
    public var textLines: [String] {
        func pad(_ text: String, _ width: Int) -> String { text.padded(toLength: width) }
        var out = [
            pad("rule", 23) + pad("estimate", 24) + pad("envelope", 36) + pad("verdict", 14)
                + (live == nil ? "" : "live calibration")
        ]
        for estimate in estimates {
            let value: String
            switch estimate.value {
            case .seconds(let seconds)?:
                value = cFormat("%.1f ms ± %.1f", seconds * 1000, (estimate.tolerance ?? 0) * 1000)
            case .number(let number)?: value = cFormat("%.5f ± %.5f", number, estimate.tolerance ?? 0)
            case .fraction(let fraction)?: value = cFormat("%.0f%%", fraction * 100)
            case .variant(let name)?: value = name
            case nil: value = "—"
            }
            let range: String
            switch ranges[estimate.rule]?.kind {
            case .interval(let lower, let upper)?: range = cFormat("%.0f–%.0f ms", lower * 1000, upper * 1000)
            case .variants(let names)?: range = names.joined(separator: "|")
            case nil: range = "—"
            }
            var line =
                pad(estimate.rule, 23) + pad((estimate.isBound ? "≈ " : "") + value, 24) + pad(range, 36)
                + verdict(estimate).rawValue
            if let live {
                line = pad(line, 97) + (live.text(estimate.rule) ?? "—")
            }
            out.append(line)
        }
        let undetermined = estimates.compactMap { estimate in reason(estimate).map { (estimate.rule, $0) } }
        if !undetermined.isEmpty {
            out.append("")
            out.append("undetermined:")
            for (rule, why) in undetermined { out.append("  \(rule): \(why)") }
        }
        let bounded = estimates.filter { $0.isBound && $0.isObserved }
        if !bounded.isEmpty {
            out.append("")
            out.append("≈ bounded only (the true value lies anywhere within ±):")
            for estimate in bounded { out.append("  \(estimate.rule): \(estimate.how)") }
        }
        if let droppedSets {
            out.append("")
            out.append(
                "dropped sets: \(droppedSets.dropped) of \(droppedSets.of) that should have moved the volume never reached KVO"
            )
        }
        if let live {
            out.append(
                cFormat("live calibration: the last VolumeKit stored, at %.3f s", live.time)
                    + (live.problem.map { " — \($0)" } ?? " (value, samples, spread)"))
        }
        if source == .simulator {
            out.append("this trace is synthetic (recorded by the simulator): it shows the simulator's rules, not iOS's")
        }
        return out
    }
}
