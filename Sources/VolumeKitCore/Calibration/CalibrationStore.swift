#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The calibration kept on the phone through the key-value store client: one entry for the device model and
/// iOS version it was learned on — another model or another iOS version starts afresh (an update may change
/// the volume system's timing), and the next save replaces the old entry. Nothing leaves the phone.
///
/// Versioned (``key``), bounded (``maximumBytes``), and checked when read: a corrupt or hostile store is refused
/// with a ``CalibrationStoreError``, and capture then starts with nothing learned.
public enum CalibrationStore {
    /// The key-value store key.
    public static let key = "VolumeKit.calibration.v1"
    /// The largest stored entry read; a larger one is refused.
    public static let maximumBytes = 16 * 1024

    /// The stored form.
    struct Entry: Codable, Equatable {
        var version = 1
        var model: String
        var osVersion: String
        var estimates: [String: CalibrationEstimate]
        var quantization: StepQuantization?
        /// The per-route rules' estimates by route name (absent in entries written before routes were told
        /// apart, and when nothing was measured per route).
        var byRoute: [String: [String: CalibrationEstimate]]?
        /// The runs of down steps that showed a set refused (``CalibrationMachine/downPressRefusals``; absent in
        /// entries written before it was learned, and when none did).
        var downPressRefusals: Int?

        /// Whether it was learned on `device`'s model and iOS version.
        func isLearned(on device: DeviceInfo) -> Bool {
            model == device.modelIdentifier ?? "" && osVersion == device.osVersion.description
        }
    }

    /// What was learned on `device`, if the store holds an entry for its model and iOS version.
    public static func load(for device: DeviceInfo, from store: KeyValueStoreClient) -> CalibrationMachine? {
        guard let data = store.data(key), let entry = try? decode(data), entry.isLearned(on: device) else {
            return nil
        }
        return machine(from: entry)
    }

    /// Saves what `machine` learned on `device`, replacing an entry of another model or iOS version. A rule the
    /// stored entry for `device` has and `machine` has not (another engine of the app learned it — capture events
    /// the tap length, say) is kept: engines started from the same entry and saving in turn lose nothing.
    public static func save(_ machine: CalibrationMachine, for device: DeviceInfo, to store: KeyValueStoreClient) {
        var merged = machine
        if let stored = load(for: device, from: store) { merged.keep(stored) }
        store.setData(encode(merged, for: device), key)
    }

    /// The stored bytes of `machine` on `device` (what ``save(_:for:to:)`` writes; also a `--calibration` file).
    public static func encode(_ machine: CalibrationMachine, for device: DeviceInfo) -> Data {
        let entry = Entry(
            model: device.modelIdentifier ?? "", osVersion: device.osVersion.description,
            estimates: named(machine.estimates), quantization: machine.quantization,
            byRoute: machine.byRoute.isEmpty
                ? nil : Dictionary(uniqueKeysWithValues: machine.byRoute.map { ($0.key.rawValue, named($0.value)) }),
            downPressRefusals: machine.downPressRefusals > 0 ? machine.downPressRefusals : nil)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(entry)) ?? Data()
    }

    /// Reads stored bytes, refusing what VolumeKit did not write.
    static func decode(_ data: Data) throws -> Entry {
        guard data.count <= maximumBytes else { throw CalibrationStoreError.tooLarge(data.count) }
        let entry: Entry
        do {
            entry = try JSONDecoder().decode(Entry.self, from: data)
        } catch {
            throw CalibrationStoreError.unreadable
        }
        guard entry.version == 1 else { throw CalibrationStoreError.unsupportedVersion(entry.version) }
        if let refusals = entry.downPressRefusals, refusals < 0 { throw CalibrationStoreError.unreadable }
        _ = try rules(entry.estimates)
        for (name, estimates) in entry.byRoute ?? [:] {
            guard AudioRoute(rawValue: name) != nil else {
                throw CalibrationStoreError.unknownRoute(EchoedText.clean(name, limit: EchoedText.defaultLimit))
            }
            _ = try rules(estimates)
        }
        return entry
    }

    /// Estimates by rule name, as stored (the inverse of ``rules(_:)``).
    private static func named(_ estimates: [CalibrationRule: CalibrationEstimate]) -> [String: CalibrationEstimate] {
        Dictionary(uniqueKeysWithValues: estimates.map { ($0.key.rawValue, $0.value) })
    }

    /// Stored estimates by rule name, each checked: a rule VolumeKit knows, inside its envelope.
    private static func rules(_ named: [String: CalibrationEstimate]) throws -> [CalibrationRule: CalibrationEstimate] {
        var estimates = [CalibrationRule: CalibrationEstimate]()
        for (name, estimate) in named {
            guard let rule = CalibrationRule(rawValue: name) else {
                throw CalibrationStoreError.unknownRule(EchoedText.clean(name, limit: EchoedText.defaultLimit))
            }
            guard estimate.isPlausible(for: rule.range) else { throw CalibrationStoreError.implausible(rule) }
            estimates[rule] = estimate
        }
        return estimates
    }

    /// The machine a checked entry stands for.
    static func machine(from entry: Entry) -> CalibrationMachine {
        var byRoute = [AudioRoute: [CalibrationRule: CalibrationEstimate]]()
        for (name, estimates) in entry.byRoute ?? [:] {
            if let route = AudioRoute(rawValue: name) { byRoute[route] = (try? rules(estimates)) ?? [:] }
        }
        return CalibrationMachine(
            estimates: (try? rules(entry.estimates)) ?? [:], byRoute: byRoute, quantization: entry.quantization,
            downPressRefusals: entry.downPressRefusals ?? 0)
    }

    /// Reads a calibration file's bytes (`volumekit simulate --calibration FILE`) for `device`: its entry, or a
    /// machine with nothing learned when the entry is another model's or iOS version's.
    /// Throws a ``CalibrationStoreError``.
    public static func machine(reading data: Data, for device: DeviceInfo) throws -> CalibrationMachine {
        let entry = try decode(data)
        return entry.isLearned(on: device) ? machine(from: entry) : CalibrationMachine()
    }
}

/// Why a stored calibration was refused.
public enum CalibrationStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Larger than ``CalibrationStore/maximumBytes``.
    case tooLarge(Int)
    /// Not the JSON VolumeKit writes.
    case unreadable
    /// A version this VolumeKit does not know.
    case unsupportedVersion(Int)
    /// A rule this VolumeKit does not know (the name, cut and cleaned).
    case unknownRule(String)
    /// An estimate outside its rule's envelope, or not a number.
    case implausible(CalibrationRule)
    /// A route this VolumeKit does not know (the name, cut and cleaned).
    case unknownRoute(String)

    /// One sentence a person can act on.
    public var description: String {
        switch self {
        case .tooLarge(let bytes):
            "the calibration is \(bytes) bytes, more than the \(CalibrationStore.maximumBytes) VolumeKit writes; delete it to start afresh."
        case .unreadable:
            "the calibration is not the JSON VolumeKit writes; delete it to start afresh."
        case .unsupportedVersion(let version):
            "the calibration is version \(version); this VolumeKit reads version 1 — delete it to start afresh."
        case .unknownRule(let name):
            "the calibration names a rule \"\(name)\" VolumeKit does not know; delete it to start afresh."
        case .unknownRoute(let name):
            "the calibration names an audio route \"\(name)\" VolumeKit does not know; delete it to start afresh."
        case .implausible(let rule):
            "the calibration's \(rule.rawValue) lies outside what any iPhone does (\(rule.range.lowerBound)–\(rule.range.upperBound) s); delete it to start afresh."
        }
    }
}
