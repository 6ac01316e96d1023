import Foundation
import VolumeKit

/// The field check's "Your iPhone": what VolumeKit has learned of this iPhone (``CalibrationMachine``), rule by
/// rule beside the envelope's range (``CalibrationRule/range``), with every measurement outside it flagged and
/// counted. Platform-free, so the screen only lays out what it says.
public struct FieldCheckCalibration: Sendable, Equatable {
    /// One rule's line.
    public struct Row: Sendable, Equatable, Identifiable {
        /// How the rule stands against the envelope.
        public enum Verdict: Sendable, Equatable {
            /// Nothing measured yet.
            case notMeasured
            /// Every measurement so far lies inside the envelope.
            case inside
            /// At least one measurement lay outside the envelope (kept apart, never used).
            case outside
        }

        /// The rule's name as `volumekit profiles` and `trace fit` print it (`roundTrip`, `stepQuantization`).
        public var id: String
        /// What the rule is, in words ("First repeat of a hold").
        public var title: String
        /// The envelope's range ("300–700 ms").
        public var envelope: String
        /// The learned value ("412 ms", "exact"), or "not measured yet".
        public var value: String
        /// The sample count and spread ("12 samples, spread 3.1 ms"), when something was learned.
        public var detail: String?
        /// How many measurements fell outside the envelope.
        public var outside: Int
        /// The flag for them ("2 outside the envelope, last 850 ms"), when there are any.
        public var outsideNote: String?
        /// How the rule stands against the envelope.
        public var verdict: Verdict
    }

    /// Every timed rule in ``CalibrationRule`` order, then the step quantization and the down-press refusal.
    public let rows: [Row]

    /// What the screen says under the rows: how to read them, where they are kept, and how to reset them.
    public static let explanation =
        "What VolumeKit has measured of this iPhone from its own volume sets and your presses, beside the range known for iPhones (the envelope). A measurement outside it is kept apart and never used: please send the trace then, it is the news we most want. It is kept on this iPhone only, per model and iOS version, and used from the next start."

    /// How to forget what was learned.
    public static let reset =
        "To start afresh, remove the UserDefaults key \(CalibrationStore.key) (deleting the app does it too)."

    /// The rows for what the engines learned: for each rule, the estimate of whichever engine measured it most
    /// (the field check's capture and, in the extras, the camera's capture events each learn their own; both
    /// start from the same stored calibration, so their counts are not added).
    public init(_ machines: [CalibrationMachine]) {
        var rows = [Row]()
        for rule in CalibrationRule.allCases {
            let estimates = machines.compactMap { $0.estimates[rule] }
            let best = estimates.max { $0.samples + $0.outsideSamples < $1.samples + $1.outsideSamples }
            rows.append(Self.row(rule, best ?? CalibrationEstimate()))
        }
        let quantization = machines.lazy.compactMap(\.quantization).first
        rows.append(
            Row(
                id: "stepQuantization", title: "Step quantization (where a press from between steps lands)",
                envelope: StepQuantization.allCases.map(\.rawValue).joined(separator: " or "),
                value: quantization?.rawValue ?? Self.notMeasured, detail: nil, outside: 0, outsideNote: nil,
                verdict: quantization == nil ? .notMeasured : .inside))
        // Seen in any engine's runs of down presses (the stored calibration both started from counts once).
        let refusals = machines.map(\.downPressRefusals).max() ?? 0
        rows.append(
            Row(
                id: "downPressRefusal", title: "Sets refused while volume down is held (iOS 11+)",
                envelope: "refused (seedShape) or applied",
                value: refusals > 0 ? "refused (seedShape)" : Self.notMeasured,
                detail: refusals > 0
                    ? (refusals == 1 ? "1 run of down presses" : "\(refusals) runs of down presses") : nil,
                outside: 0, outsideNote: nil, verdict: refusals > 0 ? .inside : .notMeasured))
        self.rows = rows
    }

    /// The rows for one engine's calibration (nothing learned when `nil`).
    public init(_ machine: CalibrationMachine? = nil) {
        self.init(machine.map { [$0] } ?? [])
    }

    /// How many measurements fell outside the envelope, over all rules.
    public var outsideCount: Int { rows.reduce(0) { $0 + $1.outside } }

    /// Whether anything was measured outside the envelope.
    public var isFlagged: Bool { outsideCount > 0 }

    /// One sentence on the whole: nothing measured yet, all inside, or what lay outside.
    public var summary: String {
        if isFlagged {
            let rules = rows.filter { $0.outside > 0 }.map { $0.title.prefix(1).lowercased() + $0.title.dropFirst() }
            let count = outsideCount == 1 ? "1 measurement" : "\(outsideCount) measurements"
            return "\(count) outside the envelope (\(rules.joined(separator: "; "))): this iPhone does something "
                + "VolumeKit did not know of. Please send the trace."
        }
        if rows.allSatisfy({ $0.verdict == .notMeasured }) {
            return "Nothing measured yet: VolumeKit learns as capture runs (holds, presses, route changes)."
        }
        return "Everything measured so far is inside the envelope."
    }

    /// What the screen shows where a rule has nothing learned.
    public static let notMeasured = "not measured yet"

    private static func row(_ rule: CalibrationRule, _ estimate: CalibrationEstimate) -> Row {
        let detail = estimate.value.map { _ in
            let samples = estimate.samples == 1 ? "1 sample" : "\(estimate.samples) samples"
            return estimate.samples > 1 ? "\(samples), spread \(milliseconds(estimate.spread))" : samples
        }
        var note: String?
        if estimate.outsideSamples > 0 {
            let last = estimate.lastOutside.map { ", last \(milliseconds($0))" } ?? ""
            note = "\(estimate.outsideSamples) outside the envelope\(last)"
        }
        let verdict: Row.Verdict =
            estimate.outsideSamples > 0 ? .outside : estimate.value == nil ? .notMeasured : .inside
        return Row(
            id: rule.rawValue, title: title(rule), envelope: milliseconds(rule.range),
            value: estimate.value.map(milliseconds) ?? (verdict == .outside ? "none inside" : notMeasured),
            detail: detail, outside: estimate.outsideSamples, outsideNote: note, verdict: verdict)
    }

    private static func title(_ rule: CalibrationRule) -> String {
        switch rule {
        case .roundTrip: "Round trip (a volume set → its KVO)"
        case .firstRepeatDelay: "First repeat of a hold"
        case .repeatInterval: "Repeat interval of a hold"
        case .tapLength: "Tap length (camera capture events)"
        case .routeNotificationGap: "Route notification ↔ its KVO"
        }
    }

    /// Seconds as milliseconds: whole ones from 10 ms, tenths below ("412 ms", "3.5 ms").
    static func milliseconds(_ seconds: Double) -> String {
        "\(millisecondNumber(seconds)) ms"
    }

    /// A range of seconds as milliseconds ("300–700 ms").
    static func milliseconds(_ range: ClosedRange<Double>) -> String {
        "\(millisecondNumber(range.lowerBound))–\(millisecondNumber(range.upperBound)) ms"
    }

    private static func millisecondNumber(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "?" }
        let value = seconds * 1000
        if abs(value) >= 9.95 { return "\(Int(value.rounded()))" }
        let tenths = Int((abs(value) * 10).rounded())
        return (value < 0 && tenths > 0 ? "-" : "")
            + (tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)")
    }
}
