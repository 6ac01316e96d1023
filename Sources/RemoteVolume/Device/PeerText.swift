import Foundation

/// Text that came from a peer (a name, an error description, a header — UPnP, MPD or Snapcast), made safe to
/// print and to keep.
///
/// A device on the LAN is not trusted (docs/security.md): a friendly name of `Kitchen&#10;fake line` or one
/// holding ESC sequences would otherwise inject lines into `remote discover`'s tab-separated output or
/// rewrite a terminal (issue 12, defect 7). Every C0 and C1 control character, DEL, the Unicode line and
/// paragraph separators and the bidirectional overrides (which can make text read backwards) become a space;
/// runs of spaces collapse; the result is trimmed and cut to `limit` characters.
enum PeerText {
    /// The longest peer text kept, in characters, unless a call site asks for less.
    static let defaultLimit = 256

    /// `text` with control and formatting characters replaced by spaces, trimmed, at most `limit` characters;
    /// a text that was cut ends with "…" (counted in `limit`), so a reader sees it was cut.
    static func clean(_ text: some StringProtocol, limit: Int = defaultLimit) -> String {
        let limit = max(1, limit)
        var result = ""
        var lastWasSpace = true
        var count = 0
        var cut = false
        for scalar in text.unicodeScalars {
            let safe = !isUnsafe(scalar)
            guard (safe && scalar != " ") || !lastWasSpace else { continue }
            if count >= limit {
                cut = true
                break
            }
            if safe && scalar != " " {
                result.unicodeScalars.append(scalar)
                lastWasSpace = false
            } else {
                result.append(" ")
                lastWasSpace = true
            }
            count += 1
        }
        if cut {
            result.unicodeScalars.removeLast()
            result.append("…")
        } else if result.hasSuffix(" ") {
            result.removeLast()
        }
        return result
    }

    /// Whether `scalar` must not be printed as it is.
    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true  // C0, DEL, C1 (incl. NEL 0x85, CSI 0x9B)
        case 0x2028, 0x2029: return true  // line / paragraph separator
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0xFEFF: return true  // bidi marks and overrides, BOM
        default: return false
        }
    }
}
