#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension VolumeButtonsDiagnostic {
    /// The case's stable name, as a trace's `diagnostic` record and `volumekit simulate --json` write it
    /// (`headroomExhausted`); VolumeKitTesting's public `name`.
    package var traceName: String {
        switch self {
        case .unreadableNotification: "unreadableNotification"
        case .volumeSetFailed: "volumeSetFailed"
        case .sessionActivationFailed: "sessionActivationFailed"
        case .sessionTakenOver: "sessionTakenOver"
        case .captureEventsNotDelivered: "captureEventsNotDelivered"
        case .headroomExhausted: "headroomExhausted"
        case .routeChangeNotNotified: "routeChangeNotNotified"
        case .routeVolumeUncertain: "routeVolumeUncertain"
        case .railPressesUnseen: "railPressesUnseen"
        case .recoveredAtUnconfirmedSet: "recoveredAtUnconfirmedSet"
        case .ambiguousStep: "ambiguousStep"
        case .volumeControlUnavailable: "volumeControlUnavailable"
        case .outsideEnvelope: "outsideEnvelope"
        }
    }

    /// Every name ``traceName`` gives, in the order of the cases.
    package static let traceNames = [
        "unreadableNotification", "volumeSetFailed", "sessionActivationFailed", "sessionTakenOver",
        "captureEventsNotDelivered", "headroomExhausted", "routeChangeNotNotified", "routeVolumeUncertain",
        "railPressesUnseen", "recoveredAtUnconfirmedSet", "ambiguousStep", "volumeControlUnavailable",
        "outsideEnvelope",
    ]
}

/// A `diagnostic` record's fields (`docs/trace.md`): `name`, then the payload the case carries.
extension TraceEvent {
    /// The trace format version that brought the `diagnostic` record.
    static let diagnosticVersion = 2

    static let notificationErrorKinds = ["unknownName", "missingValue", "wrongType", "volumeOutOfRange"]

    /// The fields after `type`: `name`, then the payload.
    package static func fields(of diagnostic: VolumeButtonsDiagnostic) -> [TraceJSON.Member] {
        var members: [TraceJSON.Member] = [.init("name", .string(diagnostic.traceName))]
        switch diagnostic {
        case .unreadableNotification(let error):
            let detail: [TraceJSON.Member]
            switch error {
            case .unknownName(let name): detail = [.init("kind", .string("unknownName")), .init("name", .string(name))]
            case .missingValue(let key): detail = [.init("kind", .string("missingValue")), .init("key", .string(key))]
            case .wrongType(let key, let found):
                detail = [
                    .init("kind", .string("wrongType")), .init("key", .string(key)), .init("found", payload(found)),
                ]
            case .volumeOutOfRange(let value):
                // JSON has no NaN or infinity: those are written as words.
                let number: TraceJSON =
                    value.isFinite ? .number(value) : .string(value.isNaN ? "nan" : value < 0 ? "-inf" : "inf")
                detail = [.init("kind", .string("volumeOutOfRange")), .init("value", number)]
            }
            members.append(.init("error", .object(detail)))
        case .volumeSetFailed(let value): members.append(.init("value", .number(Double(value))))
        case .sessionActivationFailed(let reason): members.append(.init("reason", .string(reason)))
        case .sessionTakenOver(let category): members.append(.init("category", .string(category.rawValue)))
        case .railPressesUnseen(let rail): members.append(.init("rail", .number(Double(rail))))
        case .outsideEnvelope(let rule, let value):
            members.append(.init("rule", .string(rule.rawValue)))
            members.append(.init("value", .number(value.isFinite ? value : 0)))
        case .captureEventsNotDelivered, .headroomExhausted, .routeChangeNotNotified, .routeVolumeUncertain,
            .recoveredAtUnconfirmedSet, .ambiguousStep, .volumeControlUnavailable:
            break
        }
        return members
    }

    /// Reads a `diagnostic` record's fields, strictly: an unknown name, a missing or mistyped payload, a volume
    /// outside 0…1 is a ``TraceError`` naming the field.
    static func diagnostic(_ fields: TraceFields) throws -> VolumeButtonsDiagnostic {
        switch try fields.choice("name", among: VolumeButtonsDiagnostic.traceNames) {
        case "unreadableNotification":
            let error = try fields.object("error")
            switch try error.choice("kind", among: notificationErrorKinds) {
            case "unknownName": return .unreadableNotification(.unknownName(try error.string("name")))
            case "missingValue": return .unreadableNotification(.missingValue(key: try error.string("key")))
            case "wrongType":
                let key = try error.string("key")
                guard let found = error.json["found"], found != .null else {
                    throw TraceError(line: fields.line, .missingField("error.found"))
                }
                return .unreadableNotification(.wrongType(key: key, found: try payload(found, key: "found", error)))
            default:
                guard let value = error.json["value"], value != .null else {
                    throw TraceError(line: fields.line, .missingField("error.value"))
                }
                switch value {
                case .number(let number): return .unreadableNotification(.volumeOutOfRange(number))
                case .string("nan"): return .unreadableNotification(.volumeOutOfRange(.nan))
                case .string("inf"): return .unreadableNotification(.volumeOutOfRange(.infinity))
                case .string("-inf"): return .unreadableNotification(.volumeOutOfRange(-.infinity))
                default: throw error.wrongType("value", "a number, or \"nan\", \"inf\" or \"-inf\"", value)
                }
            }
        case "volumeSetFailed": return .volumeSetFailed(try volume("value", fields))
        case "sessionActivationFailed": return .sessionActivationFailed(try fields.string("reason"))
        case "sessionTakenOver": return .sessionTakenOver(try fields.choice("category", AudioCategory.self))
        case "railPressesUnseen": return .railPressesUnseen(try volume("rail", fields))
        case "captureEventsNotDelivered": return .captureEventsNotDelivered
        case "headroomExhausted": return .headroomExhausted
        case "routeChangeNotNotified": return .routeChangeNotNotified
        case "routeVolumeUncertain": return .routeVolumeUncertain
        case "recoveredAtUnconfirmedSet": return .recoveredAtUnconfirmedSet
        case "ambiguousStep": return .ambiguousStep
        case "outsideEnvelope":
            let value = try fields.number("value")
            guard value.isFinite, value >= 0 else {
                throw fields.invalid("value", "\(value)", expected: "a time in seconds, 0 or more")
            }
            return .outsideEnvelope(try fields.choice("rule", CalibrationRule.self), value)
        default: return .volumeControlUnavailable
        }
    }

    private static func volume(_ key: String, _ fields: TraceFields) throws -> Float {
        let value = try fields.float(key)
        guard (0...1).contains(value) else { throw fields.invalid(key, "\(value)", expected: "a volume in 0…1") }
        return value
    }
}
