#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a network speaker is, as one URL string: what `volumekit remote get|set|mute|control URL` accepts.
///
/// - `http://HOST[:PORT]/description.xml` — a UPnP renderer's description (``UPnPRenderer``)
/// - `mpd://[PASSWORD@]HOST[:PORT]` — Music Player Daemon, port 6600 by default (``MPDDevice``)
/// - `snapcast://HOST[:PORT]/CLIENT_ID` — one Snapcast client, control port 1705 by default (``SnapcastClient``)
/// - `snapcast://HOST[:PORT]/group/GROUP_ID` — a whole Snapcast group (``SnapcastGroup``)
///
/// A Snapcast client id may contain `#` (snapclient's `HOSTID#INSTANCE` for a second instance): it is kept
/// whether written raw or as `%23`.
public enum RemoteDeviceURL: Sendable, Equatable, Hashable {
    /// A UPnP renderer's description URL.
    case upnp(URL)
    /// An MPD server.
    case mpd(host: String, port: UInt16, password: String?)
    /// One Snapcast client.
    case snapcastClient(host: String, port: UInt16, clientID: String)
    /// A Snapcast group.
    case snapcastGroup(host: String, port: UInt16, groupID: String)

    /// The forms accepted, for error messages and help text.
    public static let acceptedForms =
        "http://HOST[:PORT]/description.xml (UPnP), mpd://[PASSWORD@]HOST[:PORT], "
        + "snapcast://HOST[:PORT]/CLIENT_ID or snapcast://HOST[:PORT]/group/GROUP_ID"

    /// `text` safe to repeat in a message: whatever stands before the last `@` (an MPD password, or any
    /// user part) replaced by `•••`, control characters shown as escapes, at most `limit` characters.
    ///
    /// Every message that echoes a device URL uses this, so a password is never printed, even when the URL
    /// is refused before it could be parsed.
    public static func redacted(_ text: String, limit: Int = 120) -> String {
        var shown = trimmed(text)
        if let at = shown.lastIndex(of: "@") {
            let afterScheme =
                shown.indices.first { shown[$0...].hasPrefix("://") }.map { shown.index($0, offsetBy: 3) }
                ?? shown.firstIndex(of: ":").map { shown.index(after: $0) } ?? shown.startIndex
            let start = afterScheme <= at ? afterScheme : shown.startIndex
            shown.replaceSubrange(start..<at, with: "•••")
        }
        return PeerText.clean(shown, limit: limit)
    }

    /// `text` without white space and line breaks at either end (Unicode's, as Foundation's
    /// `whitespacesAndNewlines`; done here without Foundation, which a `remote` command's start pays for).
    static func trimmed(_ text: String) -> String {
        let blank: (Character) -> Bool = { $0.isWhitespace || $0.isNewline }
        guard let first = text.firstIndex(where: { !blank($0) }), let last = text.lastIndex(where: { !blank($0) })
        else { return "" }
        return String(text[first...last])
    }

    /// What a host may hold, for messages.
    static let hostRule = "letters, digits, '.', '-', '_' and ':' only"

    /// Whether `host` (already percent-decoded) is a host name, an IPv4 address or an IPv6 address (with an
    /// optional `%zone`): ASCII letters, digits and `.-_:%` only — nothing a resolver could be fooled by.
    static func isUsableHost(_ host: String) -> Bool {
        !host.isEmpty && host.utf8.count <= 255
            && host.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || ".-_:%".utf8.contains(byte)
            }
    }

    /// Whether an MPD password can be sent on MPD's line protocol: no control characters (NUL, ESC, line
    /// breaks, DEL, C1), which MPD's configuration file could not hold either.
    static func isSendablePassword(_ password: String) -> Bool {
        !password.unicodeScalars.contains { PeerText.isUnsafe($0) }
    }

    /// Parses `text`; anything else fails with ``RemoteVolumeError/invalidURL(_:)`` naming the accepted forms.
    ///
    /// The message repeats the URL with any password replaced by `•••` (``redacted(_:limit:)``).
    public static func parse(_ text: String) throws -> RemoteDeviceURL {
        let trimmed = trimmed(text)
        func refuse(_ why: String) -> RemoteVolumeError {
            .invalidURL("\(redacted(trimmed)): \(why); use \(acceptedForms)")
        }
        guard trimmed.utf8.count <= 8192, trimmed.count <= 2048,
            !trimmed.contains(where: { $0.isWhitespace || $0.isNewline })
        else { throw refuse("not a URL") }
        if let scheme = ServerURLParts.serverScheme(of: trimmed) {
            guard let parts = ServerURLParts(trimmed) else { throw refuse("not a URL") }
            return try server(parts, scheme: scheme, refuse: refuse)
        }
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased() else {
            throw refuse("not a URL")
        }
        switch scheme {
        case "http", "https":
            do {
                return .upnp(try UPnPURL.parse(trimmed))
            } catch {
                throw refuse("not a usable UPnP description URL")
            }
        default:
            throw refuse("unknown scheme \"\(PeerText.clean(scheme, limit: 20))\"")
        }
    }

    /// An `mpd://` or `snapcast://` URL from its parts.
    private static func server(
        _ parts: ServerURLParts, scheme: String, refuse: (String) -> RemoteVolumeError
    ) throws -> RemoteDeviceURL {
        guard var host = parts.host, !host.isEmpty else { throw refuse("no host") }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        host = ServerURLParts.decoded(host) ?? host
        // A host decoded from %0A%1B… would reach the resolver with a line break and ESC in it.
        guard isUsableHost(host) else { throw refuse("a host may hold \(hostRule)") }
        let port: UInt16
        if let given = parts.port {
            guard (1...65535).contains(given) else { throw refuse("port \(given) is out of range") }
            port = UInt16(given)
        } else {
            port = scheme == "mpd" ? MPDDevice.defaultPort : SnapcastClient.defaultPort
        }
        guard parts.query == nil else { throw refuse("a query is not part of the form") }
        if scheme == "mpd" {
            guard parts.path.isEmpty || parts.path == "/", parts.fragment == nil else {
                throw refuse("an MPD URL has no path")
            }
            guard parts.password == nil else {
                throw refuse(
                    "give the MPD password alone before the @ (mpd://PASSWORD@HOST; write a \":\" in it as %3A)")
            }
            let password = parts.user.map { ServerURLParts.decoded($0) ?? $0 }
            if let password, !isSendablePassword(password) {
                throw refuse("the password holds a control character (a line break, NUL, ESC, …), which cannot be sent")
            }
            return .mpd(host: host, port: port, password: password)
        }
        guard parts.user == nil, parts.password == nil else { throw refuse("Snapcast has no password") }
        var path = parts.path
        if let fragment = parts.fragment { path += "%23" + fragment }
        let pieces = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            .map { ServerURLParts.decoded($0) ?? String($0) }
        switch pieces.count {
        case 1 where !pieces[0].isEmpty:
            return .snapcastClient(host: host, port: port, clientID: pieces[0])
        case 2 where pieces[0] == "group" && !pieces[1].isEmpty:
            return .snapcastGroup(host: host, port: port, groupID: pieces[1])
        default:
            throw refuse("a Snapcast URL names a client (/CLIENT_ID) or a group (/group/GROUP_ID)")
        }
    }

    /// Parses a Snapcast server's address, `snapcast://HOST[:PORT]` (port 1705 by default), as
    /// `volumekit remote list` takes it; anything else fails with ``RemoteVolumeError/invalidURL(_:)``.
    public static func parseSnapcastServer(_ text: String) throws -> (host: String, port: UInt16) {
        let trimmed = trimmed(text)
        func refuse(_ why: String) -> RemoteVolumeError {
            .invalidURL("\(redacted(trimmed)): \(why); use snapcast://HOST[:PORT]")
        }
        let base = trimmed.hasSuffix("/") ? String(trimmed.dropLast()) : trimmed
        guard base.lowercased().hasPrefix("snapcast://") else { throw refuse("not a snapcast:// URL") }
        guard !base.dropFirst(11).contains(where: { "/?#".contains($0) }) else {
            throw refuse("a Snapcast server is named by its host and port alone")
        }
        do {
            guard case .snapcastClient(let host, let port, _) = try parse(base + "/-") else {
                throw refuse("not a Snapcast server")
            }
            return (host, port)
        } catch RemoteVolumeError.invalidURL(let message) {
            let reason = message.components(separatedBy: "; use ").first?.components(separatedBy: ": ").dropFirst()
                .joined(separator: ": ")
            throw refuse(reason.map { $0.isEmpty ? "not a Snapcast server" : $0 } ?? "not a Snapcast server")
        }
    }

    /// Connects to the device (checking that it answers) with the given per-request deadline.
    public func connect(requestTimeout: TimeInterval = 3) async throws -> any RemoteVolumeDevice {
        switch self {
        case .upnp(let url):
            return try await UPnPRenderer.connect(to: url, requestTimeout: requestTimeout)
        case .mpd(let host, let port, let password):
            return try await MPDDevice.connect(
                host: host, port: port, password: password, requestTimeout: requestTimeout)
        case .snapcastClient(let host, let port, let id):
            return try await SnapcastClient.connect(
                host: host, port: port, clientID: id, requestTimeout: requestTimeout)
        case .snapcastGroup(let host, let port, let id):
            return try await SnapcastGroup.connect(host: host, port: port, groupID: id, requestTimeout: requestTimeout)
        }
    }
}
