import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One line of newline-delimited JSON from a peer, decoded with limits.
///
/// `JSONDecoder` rather than `JSONSerialization`: it keeps `true` and `1` apart (Foundation's `NSNumber`
/// bridging makes `1 as? Bool` succeed) and refuses `1.5` or `1e300` for an `Int`.
enum JSONLine {
    /// The deepest nesting of arrays and objects accepted (Snapcast's deepest reply is ~6 levels).
    static let maxDepth = 32

    /// `line` decoded as `T`.
    ///
    /// Refuses with ``RemoteVolumeError/invalidReply(_:)`` anything that does not decode, and anything that
    /// nests deeper than ``maxDepth`` (checked before decoding, so a hostile peer cannot make the decoder
    /// recurse without bound).
    static func decode<T: Decodable>(_ type: T.Type, from line: String) throws -> T {
        let bytes = Array(line.utf8)
        try checkDepth(bytes)
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch {
            throw RemoteVolumeError.invalidReply("unexpected JSON: \(PeerText.clean(line, limit: 80))")
        }
    }

    /// `value` as JSON text on one line (without the newline).
    static func encode<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Our own request structs of strings, integers and booleans always encode.
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// `text` as a JSON string literal (RFC 8259 §7): quotes, backslashes and control characters escaped,
    /// everything else as it is.
    static func quoted(_ text: String) -> String {
        var result = ""
        TraceJSON.writeString(text, to: &result)
        return result
    }

    /// Whether `line` holds a JSON array (its first non-blank character is `[`): a JSON-RPC batch.
    static func isArray(_ line: String) -> Bool {
        line.utf8.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D } == UInt8(ascii: "[")
    }

    /// The texts of the elements of the JSON array `line`, split at its top-level commas (brackets and
    /// commas inside strings are skipped); each is decoded on its own by the caller. More than `limit`
    /// elements, or text that is not one array, is ``RemoteVolumeError/invalidReply(_:)``.
    static func elements(ofArray line: String, limit: Int) throws -> [String] {
        let bytes = Array(line.utf8)
        try checkDepth(bytes)
        var elements: [String] = []
        var depth = 0
        var strings = StringTracker()
        var start: Int?
        var closed = false
        for (index, byte) in bytes.enumerated() {
            if strings.isInString(byte) { continue }
            if closed, byte != 0x20, byte != 0x09, byte != 0x0D { throw notOneArray(line) }
            switch byte {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth == 1 {
                    guard byte == UInt8(ascii: "[") else { throw notOneArray(line) }
                    start = index + 1
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
                if depth == 0 {
                    try append(start, index)
                    closed = true
                }
                guard depth >= 0 else { throw notOneArray(line) }
            case UInt8(ascii: ","):
                if depth == 1 {
                    try append(start, index)
                    start = index + 1
                }
            default: break
            }
        }
        guard closed else { throw notOneArray(line) }
        return elements

        func append(_ start: Int?, _ end: Int) throws {
            guard let start else { return }
            let text = String(decoding: bytes[start..<end], as: UTF8.self)
            guard !text.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) else { return }
            guard elements.count < limit else {
                throw RemoteVolumeError.invalidReply("a JSON-RPC batch of more than \(limit) messages")
            }
            elements.append(text)
        }
    }

    private static func notOneArray(_ line: String) -> RemoteVolumeError {
        .invalidReply("unexpected JSON: \(PeerText.clean(line, limit: 80))")
    }

    /// Refuses `bytes` nesting deeper than ``maxDepth``, before any decoder recurses into them.
    private static func checkDepth(_ bytes: [UInt8]) throws {
        guard nestingDepth(bytes) <= maxDepth else {
            throw RemoteVolumeError.invalidReply("JSON nested deeper than \(maxDepth) levels")
        }
    }

    /// The deepest bracket nesting in `bytes`, ignoring brackets inside strings.
    static func nestingDepth(_ bytes: [UInt8]) -> Int {
        var depth = 0
        var deepest = 0
        var strings = StringTracker()
        for byte in bytes {
            if strings.isInString(byte) { continue }
            switch byte {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }

    /// Tells the bytes of a JSON text that belong to a string literal from the rest, one byte at a time, for
    /// the scans that look only at the structure (brackets and commas inside strings are text).
    struct StringTracker {
        private var inString = false
        private var escaped = false

        /// Whether `byte`, the text's next one, is part of a string literal: the opening quote is not (it is
        /// where the structure says a string starts), every byte after it up to the closing quote is.
        @inline(__always)
        mutating func isInString(_ byte: UInt8) -> Bool {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                return true
            }
            if byte == UInt8(ascii: "\"") { inString = true }
            return false
        }
    }
}
