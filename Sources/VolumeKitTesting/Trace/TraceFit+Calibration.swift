import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The live calibration a trace carries: what VolumeKit itself had learned of the phone when it last saved it —
/// the last `storeWrite` of ``/VolumeKitCore/CalibrationStore/key`` (the JSON of
/// ``/VolumeKitCore/CalibrationStore/encode(_:for:)``), read back as
/// ``/VolumeKitCore/CalibrationStore/machine(reading:for:)`` reads it for the trace's device. `trace fit` shows
/// it beside its own estimates; the fit never uses it.
public struct LiveCalibration: Sendable, Equatable {
    /// What the calibration had learned of one rule.
    public struct Estimate: Sendable, Equatable {
        /// The mean of the measurements inside the envelope, in seconds (`nil`: none yet).
        public var value: Double?
        /// How many measurements inside the envelope.
        public var samples: Int
        /// Their standard deviation, in seconds.
        public var spread: Double
        /// How many measurements fell outside the envelope (kept apart, never used).
        public var outsideSamples: Int
        /// The last of them.
        public var lastOutside: Double?
    }

    /// When the trace stored it (seconds since the trace's clock origin).
    public var time: Double
    /// The timed rules, by name (``/VolumeKitCore/CalibrationRule`` raw values: `roundTrip`, `firstRepeatDelay`, …).
    public var estimates: [String: Estimate]
    /// The step quantization learned (`stepQuantization`), if any.
    public var quantization: String?
    /// The down-press refusal learned (`downPressRefusal`): `seedShape` once runs of down steps showed VolumeKit's
    /// sets refused (``/VolumeKitCore/CalibrationMachine/refusesSetsDuringDownPress``), else `nil`.
    public var downPressRefusal: String?
    /// Why the stored calibration could not be read (a sentence), or that it was removed; `nil` when it was read.
    public var problem: String?

    /// The last calibration `trace` stored, or `nil` when it stored none.
    public init?(_ trace: Trace) {
        var last: (time: Double, data: Data?)?
        for record in trace.records {
            if case .storeWrite(CalibrationStore.key, let data) = record.event { last = (record.time, data) }
        }
        guard let last else { return nil }
        time = last.time
        estimates = [:]
        guard let data = last.data else {
            problem = "the calibration was removed (reset)"
            return
        }
        var device = DeviceInfo(osVersion: trace.header.osVersion, kind: trace.header.deviceKind)
        device.modelIdentifier = trace.header.deviceModel
        do {
            let machine = try CalibrationStore.machine(reading: data, for: device)
            for (rule, estimate) in machine.estimates {
                estimates[rule.rawValue] = Estimate(
                    value: estimate.value, samples: estimate.samples, spread: estimate.spread,
                    outsideSamples: estimate.outsideSamples, lastOutside: estimate.lastOutside)
            }
            quantization = machine.quantization?.rawValue
            if machine.refusesSetsDuringDownPress {
                downPressRefusal = DeviceBehaviour.DownPressRefusal.seedShape.rawValue
            }
        } catch {
            problem = "the stored calibration could not be read: \(error)"
        }
    }

    /// The live estimate of fit rule `rule`, as text for people: `"177.1 ms (16, ±0.3 ms)"`, a variant, or `nil`.
    func text(_ rule: String) -> String? {
        if rule == "stepQuantization" { return quantization }
        if rule == "downPressRefusal" { return downPressRefusal }
        guard let estimate = estimates[rule] else { return nil }
        var text =
            estimate.value.map {
                cFormat("%.1f ms (%d, ±%.1f)", $0 * 1000, estimate.samples, estimate.spread * 1000)
            } ?? "—"
        if estimate.outsideSamples > 0 {
            text += " \(estimate.outsideSamples) outside"
        }
        return text
    }

    /// The live estimate of fit rule `rule` as JSON: `{"value":…, "samples":…, "spread":…}` (with `"outside"` and
    /// `"lastOutside"` when measurements fell outside the envelope), a variant's name, or `null`.
    func json(_ rule: String) -> TraceJSON {
        if rule == "stepQuantization" { return quantization.map(TraceJSON.string) ?? .null }
        if rule == "downPressRefusal" { return downPressRefusal.map(TraceJSON.string) ?? .null }
        guard let estimate = estimates[rule] else { return .null }
        var members: [TraceJSON.Member] = [
            .init("value", estimate.value.map(TraceJSON.number) ?? .null),
            .init("samples", .number(Double(estimate.samples))), .init("spread", .number(estimate.spread)),
        ]
        if estimate.outsideSamples > 0 {
            members.append(.init("outside", .number(Double(estimate.outsideSamples))))
            members.append(.init("lastOutside", estimate.lastOutside.map(TraceJSON.number) ?? .null))
        }
        return .object(members)
    }
}
