/// Input as a message may echo it back: cut to a few characters, with every control
/// character shown as an escape instead of reaching the terminal.
///
/// One rule for every echo of input in VolumeKit — traces' and scripts' messages, the CLI's usage errors and
/// paths, sound files' names and bytes (``bytes(_:limit:)``), and every text a remote peer sends
/// (RemoteVolume's names and error details, UPnP, MPD, Snapcast, DNS-SD): at most ``defaultLimit``
/// characters (or the call site's limit), then "…"; control characters (C0, DEL, C1), line and paragraph
/// separators, bidirectional controls and the byte-order mark are written as Swift spells them, `\u{1B}`, so
/// a reader sees what the input held and a terminal never receives an escape sequence or a bell. Nothing else
/// is changed (no trimming, no collapsing of spaces).
package enum EchoedText {
    /// How many characters of one input a message shows before cutting it with "…".
    package static let defaultLimit = 40
    /// How many characters of a path a message shows (a file named on a command line or in an error).
    package static let pathLimit = 120
    /// How many characters of a command-line argument a message shows (an unknown subcommand, option,
    /// action or value).
    package static let argumentLimit = 80

    /// A path as a message shows it: cleaned, cut to ``pathLimit`` characters.
    package static func path(_ path: some StringProtocol) -> String { clean(path, limit: pathLimit) }

    /// A command-line argument as a message shows it: cleaned, cut to ``argumentLimit`` characters.
    package static func argument(_ argument: some StringProtocol) -> String { clean(argument, limit: argumentLimit) }

    /// `text` cut to `limit` characters (an escape counts as one), with control characters made visible.
    package static func clean(_ text: some StringProtocol, limit: Int = defaultLimit) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == max(1, limit) {
                result += "…"
                return result
            }
            if isUnsafe(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
            count += 1
        }
        return result
    }

    /// Bytes of a file as a message shows them (a chunk's four-character code, a file's first bytes): visible
    /// ASCII as it is, any other byte as `\xNN` — they are bytes, not characters, and need not be text at all —
    /// cut to `limit` bytes, then "…".
    package static func bytes(_ bytes: some Sequence<UInt8>, limit: Int = defaultLimit) -> String {
        var result = ""
        for (count, byte) in bytes.enumerated() {
            if count == max(1, limit) {
                result += "…"
                return result
            }
            if (0x20...0x7E).contains(byte) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result += "\\x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return result
    }

    /// Whether `scalar` must not reach a terminal as it is.
    package static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true  // C0 (ESC, BEL, line breaks), DEL, C1 (CSI 0x9B)
        case 0x2028, 0x2029: true  // line and paragraph separators
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // bidirectional controls
        case 0xFEFF: true  // byte-order mark
        default: false
        }
    }
}
