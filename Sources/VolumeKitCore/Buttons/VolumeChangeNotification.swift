#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The meaning of a private system-volume notification, parsed from its raw name and payload.
///
/// Names and keys (`shared/facts/volume-buttons.md` §2):
/// - before iOS 15: `AVSystemController_SystemVolumeDidChangeNotification` with
///   `AVSystemController_AudioVolumeChangeReasonNotificationParameter`,
///   `AVSystemController_AudioVolumeNotificationParameter` and
///   `AVSystemController_AudioCategoryNotificationParameter` (seed 000; Apple's AVSystemController.h);
/// - from iOS 15: `SystemVolumeDidChange` with `Reason`, `Volume`, `AudioCategory`, `SequenceNumber`
///   (react-native-system-setting #134; lijianfei.com's payload dump; Signal-iOS, Navideck/VolumeButtonKit).
///
/// These are private Apple names: VolumeKit uses them only behind the explicit
/// ``ButtonStrategy/systemNotification`` opt-in.
public struct VolumeChangeNotification: Sendable, Equatable {
    /// Why the volume changed.
    public var reason: VolumeChangeReason
    /// The volume after the change, 0…1.
    public var volume: Float
    /// The audio category the change applies to, e.g. `Audio/Video` or `PhoneCall`.
    public var category: String?
    /// The iOS 15+ sequence number.
    public var sequenceNumber: Int?

    /// The notification name used before iOS 15. VolumeKit (iOS 15+) never observes it; it is parsed only so that
    /// a payload recorded on an older iOS (a trace, a test) still reads.
    public static let legacyName = "AVSystemController_SystemVolumeDidChangeNotification"
    /// The notification name used from iOS 15.
    public static let modernName = "SystemVolumeDidChange"
    /// The category of ordinary app audio (`Audio/Video`); calls, ringtones and alarms have their own.
    public static let mediaCategory = "Audio/Video"

    /// Creates a parsed notification.
    public init(reason: VolumeChangeReason, volume: Float, category: String? = nil, sequenceNumber: Int? = nil) {
        self.reason = reason
        self.volume = volume
        self.category = category
        self.sequenceNumber = sequenceNumber
    }
}

/// Why the system volume changed, as the notification says.
public enum VolumeChangeReason: Sendable, Equatable, Hashable {
    /// A button press, the Control Center slider or an app's slider: `ExplicitVolumeChange`.
    case explicitVolumeChange
    /// The output route changed: `RouteChange`.
    case routeChange
    /// The active category changed (e.g. Siri): `CategoryChange`.
    case categoryChange
    /// A reason VolumeKit does not know.
    case other(String)

    /// Parses the raw reason string.
    public init(rawReason: String) {
        switch rawReason {
        case "ExplicitVolumeChange": self = .explicitVolumeChange
        case "RouteChange": self = .routeChange
        case "CategoryChange": self = .categoryChange
        default: self = .other(rawReason)
        }
    }
}

/// Why a notification could not be understood.
public enum VolumeNotificationError: Error, Sendable, Equatable {
    /// Not a volume notification VolumeKit knows.
    case unknownName(String)
    /// A required key is missing.
    case missingValue(key: String)
    /// A key holds a value of the wrong type.
    case wrongType(key: String, found: PayloadValue)
    /// The volume is not a number in 0…1.
    case volumeOutOfRange(Double)
}

extension SystemVolumeNotification {
    /// Parses the notification, or throws a ``VolumeNotificationError`` naming what is odd about it.
    /// (Plain `throws`: typed throws cannot be compiled against the iOS 17.4 SDK's standard library.)
    public func parse() throws -> VolumeChangeNotification {
        let keys: (reason: String, volume: String, category: String, sequence: String?)
        switch name {
        case VolumeChangeNotification.modernName:
            keys = ("Reason", "Volume", "AudioCategory", "SequenceNumber")
        case VolumeChangeNotification.legacyName:
            keys = (
                "AVSystemController_AudioVolumeChangeReasonNotificationParameter",
                "AVSystemController_AudioVolumeNotificationParameter",
                "AVSystemController_AudioCategoryNotificationParameter", nil
            )
        default:
            throw VolumeNotificationError.unknownName(name)
        }
        let reason = try string(keys.reason)
        guard let volumeValue = userInfo[keys.volume] else {
            throw VolumeNotificationError.missingValue(key: keys.volume)
        }
        guard case .number(let volume) = volumeValue else {
            throw VolumeNotificationError.wrongType(key: keys.volume, found: volumeValue)
        }
        guard volume.isFinite, (0...1).contains(volume) else { throw VolumeNotificationError.volumeOutOfRange(volume) }
        let category = try optionalString(keys.category)
        var sequence: Int?
        if let key = keys.sequence, let value = userInfo[key] {
            guard case .number(let number) = value, number.isFinite, abs(number) < 1e15 else {
                throw VolumeNotificationError.wrongType(key: key, found: value)
            }
            sequence = Int(number)
        }
        return VolumeChangeNotification(
            reason: VolumeChangeReason(rawReason: reason),
            volume: Float(volume),
            category: category,
            sequenceNumber: sequence
        )
    }

    private func string(_ key: String) throws -> String {
        guard let value = try optionalString(key) else { throw VolumeNotificationError.missingValue(key: key) }
        return value
    }

    private func optionalString(_ key: String) throws -> String? {
        guard let value = userInfo[key] else { return nil }
        guard case .string(let text) = value else { throw VolumeNotificationError.wrongType(key: key, found: value) }
        return text
    }
}
