import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The fitter's estimate of one device-behaviour rule, from a trace alone.
public struct RuleEstimate: Sendable, Equatable {
    /// What was estimated.
    public enum Value: Sendable, Equatable {
        /// A duration in seconds.
        case seconds(Double)
        /// A plain number (a volume step).
        case number(Double)
        /// A fraction 0…1 (of sets dropped).
        case fraction(Double)
        /// One of a rule's variants.
        case variant(String)

        /// The number, for the numeric kinds.
        public var number: Double? {
            switch self {
            case .seconds(let value), .number(let value), .fraction(let value): value
            case .variant: nil
            }
        }
    }

    /// The rule's name (see ``TraceFit/rules``).
    public var rule: String
    /// The estimate, `nil` when the trace does not show the rule.
    public var value: Value?
    /// How far the true value may be from ``value`` (same unit), for the numeric kinds.
    public var tolerance: Double?
    /// How many observations the estimate rests on.
    public var samples: Int
    /// How it was measured, or why it could not be.
    public var how: String
    /// Whether the trace only bounds the rule: the true value may lie anywhere within ``tolerance`` of ``value``
    /// (the middle of the bounds), not near ``value`` — e.g. the KVO delay, of which a route change shows only the
    /// sum with the gap after the notification.
    public var isBound: Bool

    /// Whether the trace shows the rule at all.
    public var isObserved: Bool { value != nil }

    /// The bounds the true value lies within, for the numeric kinds: ``value`` ± ``tolerance``.
    public var bounds: ClosedRange<Double>? {
        guard let number = value?.number else { return nil }
        let tolerance = tolerance ?? 0
        return (number - tolerance)...(number + tolerance)
    }

    /// Creates an estimate.
    public init(
        rule: String, value: Value?, tolerance: Double? = nil, samples: Int, how: String, isBound: Bool = false
    ) {
        self.rule = rule
        self.value = value
        self.tolerance = tolerance
        self.samples = samples
        self.how = how
        self.isBound = isBound
    }

    /// A duration the trace only bounds: the middle of `range`, within half its width.
    static func bound(_ rule: String, _ range: ClosedRange<Double>, samples: Int, how: String) -> RuleEstimate {
        let half = (range.upperBound - range.lowerBound) / 2
        return RuleEstimate(
            rule: rule, value: .seconds(range.lowerBound + half), tolerance: half, samples: samples,
            how: cFormat("between %.1f and %.1f ms: ", range.lowerBound * 1000, range.upperBound * 1000) + how,
            isBound: true)
    }

    /// A rule the trace does not show.
    static func notObserved(_ rule: String, _ why: String) -> RuleEstimate {
        RuleEstimate(rule: rule, value: nil, samples: 0, how: why)
    }

    /// A duration estimated from `samples` measurements: the median, with a tolerance that reaches the
    /// smallest and the largest measurement (jitter on a device is one-sided: deliveries come late, never
    /// early), and at least `floor` (the clock's resolution and rounding).
    static func seconds(_ rule: String, _ samples: [Double], floor: Double = 0.001, how: String) -> RuleEstimate {
        guard let median = TraceStatistics.median(samples) else { return .notObserved(rule, how) }
        let reach = max(median - samples.min()!, samples.max()! - median)
        return RuleEstimate(
            rule: rule, value: .seconds(median), tolerance: max(floor, reach), samples: samples.count, how: how)
    }
}

/// Where the envelope says a rule plausibly lies (`shared/facts/envelope.md`), and how an estimate compares.
public struct EnvelopeRange: Sendable, Equatable {
    /// A closed interval, or a list of variants.
    public enum Kind: Sendable, Equatable {
        /// Values from `lower` to `upper`.
        case interval(Double, Double)
        /// Named variants.
        case variants([String])

        /// The interval of `range` (a rule the calibration learns: its range is ``/VolumeKitCore/CalibrationRule/range``).
        static func range(_ range: ClosedRange<Double>) -> Kind { .interval(range.lowerBound, range.upperBound) }
    }

    /// The range.
    public var kind: Kind
    /// Where it comes from.
    public var source: String

    /// Creates a range.
    public init(_ kind: Kind, source: String) {
        self.kind = kind
        self.source = source
    }

    /// How an estimate sits against a range: a verdict only where the data supports one.
    public enum Verdict: String, Sendable, Equatable {
        /// Within the range: the estimate, or every value the trace's bounds allow.
        case inside
        /// Outside it, whatever the estimate's tolerance: the envelope does not cover this device.
        case outside
        /// The data supports neither: the trace does not show the rule, shows it too few times, the envelope
        /// gives no range, or the estimate's tolerance reaches across the range's edge
        /// (``TraceFitReport/reason(_:)`` says which).
        case undetermined
    }

    /// How far outside a range a time may be measured and still count as inside: timer and rounding noise
    /// (``/VolumeKitCore/CalibrationEstimate/measurementNoise``, as the calibration counts it).
    public static let noise = CalibrationEstimate.measurementNoise

    /// Compares an estimate with this range. A variant is inside or outside. A time or number is inside when
    /// its value is (for an estimate the trace only bounds, ``RuleEstimate/isBound``: when all its bounds
    /// are), within ``noise``; outside when all of value ± tolerance is beyond the range by more than ``noise``;
    /// undetermined otherwise. A rule the trace does not show is undetermined.
    public func verdict(for estimate: RuleEstimate) -> Verdict {
        guard let value = estimate.value else { return .undetermined }
        switch (kind, value) {
        case (.variants(let names), .variant(let name)):
            return names.contains(name) ? .inside : .outside
        case (.interval(let lower, let upper), _):
            guard let number = value.number, let bounds = estimate.bounds else { return .outside }
            let noise = Self.noise
            let core = estimate.isBound ? bounds : number...number
            if core.lowerBound >= lower - noise && core.upperBound <= upper + noise { return .inside }
            if bounds.upperBound < lower - noise || bounds.lowerBound > upper + noise { return .outside }
            return .undetermined
        default:
            return .outside
        }
    }
}

/// Small statistics for the fitter.
enum TraceStatistics {
    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The centre of the densest window of width `width` among `values` (their mode, for continuous data):
    /// the median of the values in that window.
    static func mode(_ values: [Double], width: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        var best = (start: 0, count: 0)
        var end = 0
        for start in sorted.indices {
            while end < sorted.count, sorted[end] - sorted[start] <= width { end += 1 }
            if end - start > best.count { best = (start, end - start) }
        }
        return median(Array(sorted[best.start..<(best.start + best.count)]))
    }
}
