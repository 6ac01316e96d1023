#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An `interruptionDetails` record's fields (`docs/trace.md`), and the format versions that brought records.
extension TraceEvent {
    /// The trace format version that brought the `interruptionDetails` record and the
    /// `secondaryAudioShouldBeSilencedHint` read.
    static let interruptionDetailsVersion = 3

    /// The fields after `type`: `kind`, `reason`, `options`, `wasSuspended`, `delivered`, `observer`.
    static func fields(of details: InterruptionDetails, observer: Int) -> [TraceJSON.Member] {
        [
            .init("kind", .string(details.kind.rawValue)),
            .init("reason", details.reason.map(TraceJSON.string) ?? .null),
            .init("options", .array(details.options.map(TraceJSON.string))),
            .init("wasSuspended", .bool(details.wasSuspended)), .init("delivered", .bool(details.delivered)),
            .init("observer", .number(Double(observer))),
        ]
    }

    /// Reads an `interruptionDetails` record's fields.
    static func interruptionDetails(_ fields: TraceFields) throws -> TraceEvent {
        var options: [String] = []
        for option in try fields.array("options") {
            guard case .string(let name) = option else {
                throw fields.wrongType("options[\(options.count)]", "a string", option)
            }
            options.append(name)
        }
        let details = InterruptionDetails(
            kind: try fields.choice("kind", InterruptionDetails.Kind.self), reason: try fields.optionalString("reason"),
            options: options, wasSuspended: try fields.bool("wasSuspended"), delivered: try fields.bool("delivered"))
        return .interruptionDetails(details, observer: try fields.integer("observer"))
    }

    /// Refuses what a trace of format `version` cannot hold because it came with format `since`: its reader
    /// would not know it. `field` holds `value`, which should be `kind` of that format ("a record type").
    static func requireFormat(
        _ since: Int, _ fields: TraceFields, version: Int, field: String, value: String, kind: String, plural: String
    ) throws {
        guard version < since else { return }
        throw fields.invalid(
            field, "\"\(value)\"", expected: "\(kind) of trace format \(version) (\(plural) came with format \(since))")
    }
}
