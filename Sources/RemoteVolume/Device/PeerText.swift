import VolumeKitCore

/// Text that came from a peer (a name, an error description, a header — UPnP, MPD, Snapcast or DNS-SD), made
/// safe to print and to keep.
///
/// A device on the LAN is not trusted (docs/security.md): a friendly name of `Kitchen&#10;fake line` or one
/// holding ESC sequences would otherwise inject lines into `remote discover`'s tab-separated output or
/// rewrite a terminal. Peer text follows the one rule every echo in VolumeKit follows, `EchoedText`'s: each
/// control character (C0, DEL, C1), line and paragraph separator, bidirectional control and byte-order mark
/// is written as Swift spells it, `\u{1B}`, and the text is cut to `limit` characters, then "…".
enum PeerText {
    /// The longest peer text kept, in characters, unless a call site asks for less.
    static let defaultLimit = 256

    /// `text` cleaned and cut by `EchoedText`'s rule: at most `limit` characters (an escape counts as one),
    /// then "…" when it was cut.
    static func clean(_ text: some StringProtocol, limit: Int = defaultLimit) -> String {
        EchoedText.clean(text, limit: limit)
    }

    /// Whether `scalar` must not be printed as it is (`EchoedText`'s rule).
    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        EchoedText.isUnsafe(scalar)
    }
}
