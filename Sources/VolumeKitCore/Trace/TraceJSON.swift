import Foundation

/// A JSON value as a trace line holds it: the one representation both the encoder and the strict decoder
/// work on, so that every field is checked by hand and a wrong type gets a sentence, not a crash.
///
/// Objects keep their keys in the order they were written, so trace lines read the same way every time
/// (`t` and `type` first).
public enum TraceJSON: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number. Non-finite values cannot be written as JSON and are encoded as `null`.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([TraceJSON])
    /// An object, its members in order.
    case object([Member])

    /// One member of an object.
    public struct Member: Sendable, Equatable {
        /// The key.
        public var key: String
        /// The value.
        public var value: TraceJSON
        /// Creates a member.
        public init(_ key: String, _ value: TraceJSON) {
            self.key = key
            self.value = value
        }
    }

    /// The value of `key` in an object (the first member with that key), `nil` otherwise.
    public subscript(key: String) -> TraceJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// What kind of value this is, in words: "a number", "a string", …
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    // MARK: - Writing

    /// The value as compact JSON text. Numbers use the shortest text that reads back to the same `Double`,
    /// so a `Float` written as `Double(value)` reads back bit for bit.
    public var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let value): out += value.isFinite ? Self.numberText(value) : "null"
        case .string(let value): Self.writeString(value, to: &out)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { out += "," }
                Self.writeString(member.key, to: &out)
                out += ":"
                member.value.write(to: &out)
            }
            out += "}"
        }
    }

    private static func numberText(_ value: Double) -> String {
        // Whole numbers within the exactly representable range read better without ".0".
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    private static func writeString(_ value: String, to out: inout String) {
        out += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    // MARK: - Reading

    /// The deepest nesting of arrays and objects a trace line may have (the format itself needs 3).
    public static let maxDepth = 32

    /// Parses one JSON text. Throws ``TraceJSONSyntaxError`` with the parser's explanation.
    public static func parse(_ data: Data) throws -> TraceJSON {
        // Checked before decoding, which recurses once per level.
        if let depth = nestingBeyondLimit(data) {
            throw TraceJSONSyntaxError(detail: "arrays and objects nested \(depth) levels deep, more than \(maxDepth)")
        }
        do {
            return try JSONDecoder().decode(DecodedJSON.self, from: data).value
        } catch let error as DecodingError {
            throw TraceJSONSyntaxError(detail: Self.explain(error))
        } catch {
            throw TraceJSONSyntaxError(detail: "\(error)")
        }
    }

    /// The nesting depth where it first exceeds ``maxDepth``, ignoring brackets inside strings.
    private static func nestingBeyondLimit(_ data: Data) -> Int? {
        let scan = scan(data)
        return scan.deepest > maxDepth ? scan.deepest : nil
    }

    /// Whether `data` ends inside a string or an open array or object: the look of a line cut short.
    public static func looksCutShort(_ data: Data) -> Bool {
        let scan = scan(data)
        return scan.inString || scan.depth > 0
    }

    private static func scan(_ data: Data) -> (depth: Int, deepest: Int, inString: Bool) {
        var depth = 0, deepest = 0, inString = false, escaped = false
        for byte in data {
            if inString {
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
                continue
            }
            switch byte {
            case 0x22: inString = true
            case 0x5B, 0x7B:
                depth += 1
                deepest = max(deepest, depth)
            case 0x5D, 0x7D: depth -= 1
            default: break
            }
        }
        return (depth, deepest, inString)
    }

    private static func explain(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context):
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return underlying ?? context.debugDescription
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context):
            return context.debugDescription
        @unknown default:
            return "\(error)"
        }
    }
}

/// A line that is not valid JSON, with the parser's explanation.
public struct TraceJSONSyntaxError: Error, Sendable, Equatable {
    /// What the JSON parser said.
    public var detail: String
}

/// Decodes any JSON value through `JSONDecoder`, which tells booleans from numbers and limits nesting.
private struct DecodedJSON: Decodable {
    let value: TraceJSON

    init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var values: [TraceJSON] = []
            while !array.isAtEnd { values.append(try array.decode(DecodedJSON.self).value) }
            value = .array(values)
            return
        }
        if let object = try? decoder.container(keyedBy: AnyKey.self) {
            // Sorted: `JSONDecoder` does not keep the written order, and a stable order keeps errors stable.
            let keys = object.allKeys.sorted { $0.stringValue < $1.stringValue }
            value = .object(try keys.map { TraceJSON.Member($0.stringValue, try object.decode(DecodedJSON.self, forKey: $0).value) })
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            value = .null
        } else if let bool = try? single.decode(Bool.self) {
            value = .bool(bool)
        } else if let number = try? single.decode(Double.self) {
            value = .number(number)
        } else {
            value = .string(try single.decode(String.self))
        }
    }

    private struct AnyKey: CodingKey {
        let stringValue: String
        let intValue: Int? = nil
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { return nil }
    }
}
