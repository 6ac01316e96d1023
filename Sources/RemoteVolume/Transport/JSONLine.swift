import Foundation

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
        guard nestingDepth(bytes) <= maxDepth else {
            throw RemoteVolumeError.invalidReply("JSON nested deeper than \(maxDepth) levels")
        }
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
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// The deepest bracket nesting in `bytes`, ignoring brackets inside strings.
    static func nestingDepth(_ bytes: [UInt8]) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }
}
