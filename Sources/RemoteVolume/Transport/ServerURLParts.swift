/// An `mpd://` or `snapcast://` URL split into its RFC 3986 parts by a scanner of its own, without Foundation's
/// `URLComponents` (reading the host through `URLComponents` loads ICU's IDNA tables, and with the NSString
/// bridging around it costs about half a millisecond of every `volumekit remote` command).
///
/// It splits as `URLComponents(string:)` does (RFC 3986 §3: `scheme ":" ["//" [userinfo "@"] host [":" port]]
/// path ["?" query] ["#" fragment]`, the userinfo ending at the authority's last `@`, the query at the first
/// `?`, the fragment at the first `#`) and is as lenient: a part holding a character it may not hold is kept
/// percent-encoded whole (every `%` in it too, as `URLComponents` does). Only a scheme that is not one, a
/// host name holding ASCII that RFC 3986 keeps out of one (`<`, `"`, `|`, `]`, a `%` without two hex digits,
/// …), a port that is not digits, and an IP literal without its `]` make the text "not a URL".
/// ``decoded(_:)`` decodes a part.
struct ServerURLParts: Equatable {
    /// The scheme, lowercased.
    var scheme: String
    /// The user part of the userinfo (before its first `:`), percent-encoded.
    var user: String?
    /// The password part of the userinfo (after its first `:`), percent-encoded.
    var password: String?
    /// The host as written: an IP literal keeps its brackets. `nil` without `//`.
    var host: String?
    /// The port, `nil` when absent or empty.
    var port: Int?
    /// The path, percent-encoded (`""` or starting with `/` after a host).
    var path: String
    /// The query, without its `?`, percent-encoded.
    var query: String?
    /// The fragment, without its `#`, percent-encoded.
    var fragment: String?

    /// The scheme of `text` when it is `mpd` or `snapcast` (any letter case), else `nil`: the forms this
    /// scanner reads. Anything else goes to Foundation's parser.
    static func serverScheme(of text: String) -> String? {
        guard let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let scheme = String(text[..<colon]).lowercased()
        return scheme == "mpd" || scheme == "snapcast" ? scheme : nil
    }

    /// Splits `text`; `nil` when it is not a URL even by `URLComponents`' lenient reading.
    init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, Self.isAlpha(bytes[0]),
            bytes[1..<colon].allSatisfy({ Self.isAlpha($0) || Self.isDigit($0) || "+-.".utf8.contains($0) })
        else { return nil }
        scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
        var index = colon + 1
        let fragmentStart = bytes[index...].firstIndex(of: UInt8(ascii: "#"))
        let beforeFragment = fragmentStart ?? bytes.endIndex
        let queryStart = bytes[index..<beforeFragment].firstIndex(of: UInt8(ascii: "?"))
        let beforeQuery = queryStart ?? beforeFragment
        if let fragmentStart { fragment = Self.encoded(bytes[(fragmentStart + 1)...], allowing: ":@/?") }
        if let queryStart { query = Self.encoded(bytes[(queryStart + 1)..<beforeFragment], allowing: ":@/?") }
        if bytes[index..<beforeQuery].starts(with: "//".utf8) {
            index += 2
            let authorityEnd = bytes[index..<beforeQuery].firstIndex(of: UInt8(ascii: "/")) ?? beforeQuery
            var hostStart = index
            if let at = bytes[index..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) {
                let userinfo = bytes[index..<at]
                if let split = userinfo.firstIndex(of: UInt8(ascii: ":")) {
                    user = Self.encoded(userinfo[..<split], allowing: "")
                    password = Self.encoded(userinfo[(split + 1)...], allowing: ":")
                } else {
                    user = Self.encoded(userinfo, allowing: "")
                }
                hostStart = at + 1
            }
            var hostEnd = authorityEnd
            if bytes[hostStart..<authorityEnd].first == UInt8(ascii: "[") {
                // An IP literal: up to its "]", then nothing or ":" and the port.
                guard let close = bytes[hostStart..<authorityEnd].firstIndex(of: UInt8(ascii: "]")) else { return nil }
                hostEnd = close + 1
                guard hostEnd == authorityEnd || bytes[hostEnd] == UInt8(ascii: ":") else { return nil }
            } else {
                if let portColon = bytes[hostStart..<authorityEnd].lastIndex(of: UInt8(ascii: ":")) {
                    hostEnd = portColon
                }
                // A name may hold other letters (IDNA), but no ASCII that RFC 3986 keeps out of a reg-name.
                let name = bytes[hostStart..<hostEnd]
                guard name.allSatisfy({ $0 >= 0x80 || Self.isRegName($0) }),
                    name.indices.allSatisfy({ name[$0] != UInt8(ascii: "%") || Self.isEscape(name, at: $0) })
                else { return nil }
            }
            host = String(decoding: bytes[hostStart..<hostEnd], as: UTF8.self)
            if hostEnd < authorityEnd {
                let digits = bytes[(hostEnd + 1)..<authorityEnd]
                guard digits.allSatisfy(Self.isDigit) else { return nil }
                if !digits.isEmpty {
                    // Beyond Int: far out of range all the same (a message says so, with the number).
                    port = Int(String(decoding: digits, as: UTF8.self)) ?? Int.max
                }
            }
            index = authorityEnd
        }
        path = Self.encoded(bytes[index..<beforeQuery], allowing: ":@/")
    }

    /// `text` with each `%XX` decoded; `nil` when the bytes are not UTF-8 (as Foundation's
    /// `removingPercentEncoding`). A `%` without two hex digits after it stays as it is.
    static func decoded(_ text: some StringProtocol) -> String? {
        let input = Array(text.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            if input[index] == UInt8(ascii: "%"), index + 2 < input.count,
                let high = hexValue(input[index + 1]), let low = hexValue(input[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(input[index])
                index += 1
            }
        }
        // Valid UTF-8 only (`String(validating:)` needs iOS 18; this package supports iOS 15).
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return String(decoding: bytes, as: UTF8.self)
            case .error: return nil
            }
        }
    }

    /// `part` as `URLComponents(string:)` keeps it: as written when every character is one the part may
    /// hold (RFC 3986) and every `%` starts an escape; otherwise percent-encoded whole — each byte it may not
    /// hold, and every `%`, written `%XX` — so decoding gives back exactly what was written.
    private static func encoded(_ part: ArraySlice<UInt8>, allowing extra: String) -> String {
        let allowed: (UInt8) -> Bool = { $0 < 0x80 && (isRegName($0) || extra.utf8.contains($0)) }
        if part.allSatisfy(allowed),
            part.indices.allSatisfy({ part[$0] != UInt8(ascii: "%") || isEscape(part, at: $0) })
        {
            return String(decoding: part, as: UTF8.self)
        }
        var result = ""
        for byte in part {
            if allowed(byte), byte != UInt8(ascii: "%") {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                result += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return result
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private static func isAlpha(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    /// Whether `bytes[index]` (a `%`) has two hex digits after it.
    private static func isEscape(_ bytes: ArraySlice<UInt8>, at index: Int) -> Bool {
        index + 2 < bytes.endIndex && hexValue(bytes[index + 1]) != nil && hexValue(bytes[index + 2]) != nil
    }

    /// RFC 3986's unreserved and sub-delims characters, and `%`.
    private static func isRegName(_ byte: UInt8) -> Bool {
        isAlpha(byte) || isDigit(byte) || "-._~!$&'()*+,;=%".utf8.contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}
