import Foundation

/// Text that came from a device (an error message, a name), made safe to show in a log line or a terminal.
enum PeerText {
    /// The longest peer text kept, in characters.
    static let maxCharacters = 200

    /// `text` with control characters (including ESC, so no terminal escape sequences) replaced by `?`,
    /// and cut to ``maxCharacters`` with an ellipsis.
    static func sanitize(_ text: some StringProtocol, limit: Int = maxCharacters) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit { return result + "…" }
            let isControl = scalar.properties.generalCategory == .control
                || scalar.properties.generalCategory == .format && scalar.value != 0x200D
            result.unicodeScalars.append(isControl ? "?" : scalar)
            count += 1
        }
        return result
    }
}
