#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads the fields of one trace line, strictly: each getter throws a ``TraceError`` naming the line and the
/// field (with its path, e.g. `session.category`) when the field is missing or of the wrong type.
struct TraceFields {
    let json: TraceJSON
    let line: Int
    let path: String

    init(_ json: TraceJSON, line: Int, path: String = "") throws {
        guard case .object = json else { throw TraceError(line: line, .notAnObject(found: json.kindName)) }
        self.json = json
        self.line = line
        self.path = path
    }

    /// A field's name as a message shows it: a key from the file is cut and cleaned (``EchoedText``).
    private func name(_ key: String) -> String {
        let key = EchoedText.clean(key)
        return path.isEmpty ? key : "\(path).\(key)"
    }

    /// A string from the file as a message quotes it: cut and cleaned (``EchoedText``), in quotes.
    static func quoted(_ text: String) -> String { "\"" + EchoedText.clean(text) + "\"" }

    private func value(_ key: String) throws -> TraceJSON {
        guard let value = json[key], value != .null else { throw TraceError(line: line, .missingField(name(key))) }
        return value
    }

    func has(_ key: String) -> Bool { json[key].map { $0 != .null } ?? false }

    func wrongType(_ key: String, _ expected: String, _ found: TraceJSON) -> TraceError {
        TraceError(line: line, .wrongType(field: name(key), expected: expected, found: Self.describe(found)))
    }

    func invalid(_ key: String, _ value: String, expected: String) -> TraceError {
        TraceError(line: line, .invalidValue(field: name(key), value: value, expected: expected))
    }

    static func describe(_ value: TraceJSON) -> String {
        switch value {
        case .string(let text): "a string (\(quoted(text)))"
        case .number(let number): "a number (\(number))"
        case .bool(let bool): "a boolean (\(bool))"
        default: value.kindName
        }
    }

    func string(_ key: String) throws -> String {
        let value = try value(key)
        guard case .string(let text) = value else { throw wrongType(key, "a string", value) }
        return text
    }

    func optionalString(_ key: String) throws -> String? { has(key) ? try string(key) : nil }

    func number(_ key: String) throws -> Double {
        let value = try value(key)
        guard case .number(let number) = value else { throw wrongType(key, "a number", value) }
        return number
    }

    func optionalNumber(_ key: String) throws -> Double? { has(key) ? try number(key) : nil }

    /// A `Float` (a volume): any finite number, read at full precision.
    func float(_ key: String) throws -> Float {
        let number = try number(key)
        guard number.isFinite, abs(number) <= Double(Float.greatestFiniteMagnitude) else {
            throw invalid(key, "\(number)", expected: "a finite number")
        }
        return Float(number)
    }

    func integer(_ key: String) throws -> Int {
        let number = try number(key)
        guard number == number.rounded(), abs(number) < 9e15 else {
            throw invalid(key, "\(number)", expected: "a whole number")
        }
        return Int(number)
    }

    func optionalInteger(_ key: String) throws -> Int? { has(key) ? try integer(key) : nil }

    func bool(_ key: String) throws -> Bool {
        let value = try value(key)
        guard case .bool(let bool) = value else { throw wrongType(key, "true or false", value) }
        return bool
    }

    func object(_ key: String) throws -> TraceFields {
        let value = try value(key)
        guard case .object = value else { throw wrongType(key, "an object", value) }
        return try TraceFields(value, line: line, path: name(key))
    }

    func array(_ key: String) throws -> [TraceJSON] {
        let value = try value(key)
        guard case .array(let values) = value else { throw wrongType(key, "an array", value) }
        return values
    }

    /// A string that must be one of a `RawRepresentable`'s raw values.
    func choice<T: RawRepresentable & CaseIterable>(_ key: String, _ type: T.Type) throws -> T
    where T.RawValue == String {
        let text = try string(key)
        guard let value = T(rawValue: text) else {
            throw invalid(
                key, Self.quoted(text),
                expected: "one of " + T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))
        }
        return value
    }

    /// A string from a fixed list.
    func choice(_ key: String, among allowed: [String]) throws -> String {
        let text = try string(key)
        guard allowed.contains(text) else {
            throw invalid(
                key, Self.quoted(text), expected: "one of " + allowed.map { "\"\($0)\"" }.joined(separator: ", "))
        }
        return text
    }
}
