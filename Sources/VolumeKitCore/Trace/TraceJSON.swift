#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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

    /// Appends `value` to `out` as a JSON string literal (RFC 8259 §7): quotes, backslashes and control
    /// characters escaped, everything else as it is. RemoteVolume's JSON-RPC requests write their strings so.
    package static func writeString(_ value: String, to out: inout String) {
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

    /// Parses one JSON text (RFC 8259). Throws ``TraceJSONSyntaxError`` saying what is wrong and at which
    /// byte column. Nesting deeper than ``maxDepth`` is refused before it can exhaust the stack.
    public static func parse(_ data: Data) throws -> TraceJSON {
        var parser = TraceJSONParser(bytes: [UInt8](data))
        return try parser.document()
    }

    /// Whether `data` ends inside a string or an open array or object: the look of a line cut short.
    public static func looksCutShort(_ data: Data) -> Bool {
        let scan = scan(data)
        return scan.inString || scan.depth > 0
    }

    private static func scan(_ data: Data) -> (depth: Int, deepest: Int, inString: Bool) {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in data {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == 0x5C {
                    escaped = true
                } else if byte == 0x22 {
                    inString = false
                }
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
}

/// A line that is not valid JSON, with the parser's explanation.
public struct TraceJSONSyntaxError: Error, Sendable, Equatable {
    /// What the JSON parser said.
    public var detail: String
}

/// A strict recursive-descent JSON parser over bytes: fast (no `Decoder` machinery per value), keeps the
/// members' order, and bounds its recursion by ``TraceJSON/maxDepth``.
private struct TraceJSONParser {
    let bytes: [UInt8]
    var index = 0
    var depth = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    private func fail(_ what: String) -> TraceJSONSyntaxError {
        TraceJSONSyntaxError(
            detail: index < bytes.count
                ? "\(what) at column \(index + 1)" : "\(what): the line ends at column \(index + 1)")
    }

    private func describe(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? "'\(Character(UnicodeScalar(byte)))'" : "byte 0x" + String(byte, radix: 16)
    }

    mutating func document() throws -> TraceJSON {
        skipSpace()
        let value = try parseValue()
        skipSpace()
        guard index == bytes.count else { throw fail("unexpected \(describe(bytes[index])) after the value") }
        return value
    }

    private mutating func skipSpace() {
        while index < bytes.count,
            bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D
        { index += 1 }
    }

    private mutating func parseValue() throws -> TraceJSON {
        guard index < bytes.count else { throw fail("expected a value") }
        switch bytes[index] {
        case 0x7B: return try nested { try $0.parseObject() }
        case 0x5B: return try nested { try $0.parseArray() }
        case 0x22: return .string(try parseString())
        case 0x74: try literal("true"); return .bool(true)
        case 0x66: try literal("false"); return .bool(false)
        case 0x6E: try literal("null"); return .null
        case 0x2D, 0x30...0x39: return .number(try parseNumber())
        default: throw fail("unexpected \(describe(bytes[index]))")
        }
    }

    private mutating func nested(_ body: (inout TraceJSONParser) throws -> TraceJSON) throws -> TraceJSON {
        depth += 1
        guard depth <= TraceJSON.maxDepth else {
            throw TraceJSONSyntaxError(detail: "arrays and objects nested more than \(TraceJSON.maxDepth) levels deep")
        }
        defer { depth -= 1 }
        return try body(&self)
    }

    private mutating func literal(_ word: String) throws {
        let expected = Array(word.utf8)
        let count = expected.count
        guard index + count <= bytes.count, bytes[index..<(index + count)].elementsEqual(expected) else {
            throw fail("expected \(word)")
        }
        index += count
    }

    private mutating func parseObject() throws -> TraceJSON {
        index += 1
        var members: [TraceJSON.Member] = []
        skipSpace()
        if index < bytes.count, bytes[index] == 0x7D { index += 1; return .object(members) }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == 0x22 else { throw fail("expected a key in quotes") }
            let key = try parseString()
            skipSpace()
            guard index < bytes.count, bytes[index] == 0x3A else { throw fail("expected ':' after the key") }
            index += 1
            skipSpace()
            members.append(TraceJSON.Member(key, try parseValue()))
            if try closes(0x7D) { return .object(members) }
        }
    }

    private mutating func parseArray() throws -> TraceJSON {
        index += 1
        var values: [TraceJSON] = []
        skipSpace()
        if index < bytes.count, bytes[index] == 0x5D { index += 1; return .array(values) }
        while true {
            skipSpace()
            values.append(try parseValue())
            if try closes(0x5D) { return .array(values) }
        }
    }

    /// After an object's member or an array's value: skips space, then takes a `,` (another follows: `false`)
    /// or the closing `bracket` (`}` or `]`: the last one, `true`); anything else fails saying what it found.
    private mutating func closes(_ bracket: UInt8) throws -> Bool {
        skipSpace()
        func expected() -> String { "expected ',' or '\(Character(Unicode.Scalar(bracket)))'" }
        guard index < bytes.count else { throw fail(expected()) }
        if bytes[index] == 0x2C {
            index += 1
            return false
        }
        if bytes[index] == bracket {
            index += 1
            return true
        }
        throw fail("\(expected()) but found \(describe(bytes[index]))")
    }

    private mutating func parseString() throws -> String {
        index += 1
        var out: [UInt8] = []
        while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let byte = bytes[index]
            switch byte {
            case 0x22:
                index += 1
                return String(decoding: out, as: UTF8.self)
            case 0x5C:
                index += 1
                guard index < bytes.count else { throw fail("unterminated escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case 0x22: out.append(0x22)
                case 0x5C: out.append(0x5C)
                case 0x2F: out.append(0x2F)
                case 0x62: out.append(0x08)
                case 0x66: out.append(0x0C)
                case 0x6E: out.append(0x0A)
                case 0x72: out.append(0x0D)
                case 0x74: out.append(0x09)
                case 0x75:
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == 0x5C, bytes[index + 1] == 0x75 else {
                            throw fail("unpaired surrogate")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = UnicodeScalar(scalar) else { throw fail("unpaired surrogate") }
                    out.append(contentsOf: Array(String(Character(unicode)).utf8))
                default:
                    index -= 1
                    throw fail("unknown escape \\\(describe(escape))")
                }
            case 0x00..<0x20:
                throw fail("control character \(describe(byte)) inside a string")
            default:
                out.append(byte)
                index += 1
            }
        }
    }

    private mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("expected four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw fail("expected a hex digit")
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws -> Double {
        let start = index
        func digits() -> Int {
            let from = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            return index - from
        }
        if bytes[index] == 0x2D { index += 1 }
        guard index < bytes.count, (0x30...0x39).contains(bytes[index]) else { throw fail("expected a digit") }
        if bytes[index] == 0x30 { index += 1 } else { _ = digits() }
        if index < bytes.count, bytes[index] == 0x2E {
            index += 1
            guard digits() > 0 else { throw fail("expected a digit after '.'") }
        }
        if index < bytes.count, bytes[index] == 0x65 || bytes[index] == 0x45 {
            index += 1
            if index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D { index += 1 }
            guard digits() > 0 else { throw fail("expected a digit in the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text) else { throw fail("unreadable number") }
        return value
    }
}
