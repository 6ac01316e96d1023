import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One Snapcast client (a `snapclient` in some room) as a ``RemoteVolumeDevice``, over snapserver's
/// JSON-RPC 2.0 control port (TCP 1705, one JSON object per line): `Client.GetStatus`, `Client.SetVolume`,
/// and `Client.OnVolumeChanged` notifications for changes made elsewhere (Snapweb, another app).
///
/// ```swift
/// let kitchen = try await SnapcastClient.connect(host: "snapserver.local", clientID: "b8:27:eb:12:34:56")
/// let controller = RemoteVolumeController(device: kitchen)
/// ```
///
/// A set is one `Client.SetVolume` carrying only what it changes — the percent, or the mute state — which
/// snapserver keeps apart (the part left out stays as it is: its `Volume::fromJson`, 0.17 to 0.34, and the
/// real 0.26 server), so no `Client.GetStatus` comes first and a mute made elsewhere a moment before is never
/// overwritten by a stale one: one round trip per set.
///
/// **Bounds.** One persistent command connection, one request at a time, each within ``requestTimeout``;
/// lines capped at 1 MiB; at most 512 notifications skipped while waiting for a reply; a reply about
/// another client, or with a percent outside 0…100, is refused (an event with such a percent is not
/// believed); ``changes()`` delivers at most 10 changes a second and reconnects at most once a second
/// after the first few tries.
public final class SnapcastClient: RemoteVolumeDevice {
    /// snapserver's JSON-RPC TCP port.
    public static let defaultPort: UInt16 = 1705

    /// The client's id (snapclient's host id, by default its MAC address; `ID#N` for instance N > 1).
    public let clientID: String
    /// The server's host name or address.
    public var host: String { link.host }
    /// The server's control port.
    public var port: UInt16 { link.port }
    /// The deadline for each request, in seconds.
    public var requestTimeout: TimeInterval { link.requestTimeout }
    /// Snapcast volumes are percentages.
    public let volumeRange: ClosedRange<Int> = 0...100
    /// The client's name as the server knows it (its configured name, else its host name, else its id).
    public let displayName: String

    /// The command connection (internal: tests count its hand-offs).
    let link: SnapcastLink

    /// Creates a device; no connection is made until the first request.
    public convenience init(
        host: String, port: UInt16 = SnapcastClient.defaultPort, clientID: String,
        requestTimeout: TimeInterval = 3, displayName: String? = nil
    ) {
        self.init(
            link: SnapcastLink(host: host, port: port, requestTimeout: requestTimeout), clientID: clientID,
            displayName: displayName ?? clientID)
    }

    private init(link: SnapcastLink, clientID: String, displayName: String) {
        self.link = link
        self.clientID = clientID
        self.displayName = displayName
    }

    /// Connects, checks that the server knows `clientID` and takes its name.
    ///
    /// The client returned keeps that connection and what `Client.GetStatus` said, so a set right after is
    /// one `Client.SetVolume` (`volumekit remote set snapcast://…` is two requests on one connection — the
    /// first tells the client's mute state, which a set must carry).
    ///
    /// A server that answers but does not know the client fails with ``RemoteVolumeError/unsupported(_:)``
    /// saying so (not "cannot be reached": the server was reached).
    public static func connect(
        host: String, port: UInt16 = SnapcastClient.defaultPort, clientID: String,
        requestTimeout: TimeInterval = 3
    ) async throws -> SnapcastClient {
        let link = SnapcastLink(host: host, port: port, requestTimeout: requestTimeout)
        let client = try await link.request(missing: missing(clientID)) { session, deadline in
            try Self.status(of: clientID, session, deadline)
        }
        return SnapcastClient(link: link, clientID: clientID, displayName: name(of: client, id: clientID))
    }

    /// The client's configured name, else its host's, else its id; cleaned.
    private static func name(of client: Snapcast.Client, id: String) -> String {
        let names = [client.config.name, client.host?.name].compactMap { $0 }.filter { !$0.isEmpty }
        return PeerText.clean(names.first ?? id, limit: 80)
    }

    /// A request about client `id`, for a "not found" refusal worded as such.
    private static func missing(_ id: String) -> SnapcastLink.Missing {
        .init(kind: "client", id: id, note: " (a server that has just restarted knows them again within a second)")
    }

    /// Reads the client's percent; one outside 0…100 is refused (``RemoteVolumeError/invalidReply(_:)``).
    public func volume() async throws -> Int {
        let client = try await status()
        return try client.config.volume.checkedPercent(of: client.named)
    }

    /// Sets the client's percent, keeping its mute state: one `Client.SetVolume` carrying the percent alone
    /// (see the type's notes).
    public func setVolume(_ level: Int) async throws {
        try await link.setVolume(.init(percent: volumeRange.clamped(level)), of: clientID)
    }

    /// Reads the client's mute state.
    public func isMuted() async throws -> Bool {
        try await status().config.volume.muted
    }

    /// Mutes or unmutes the client, keeping its percent: one `Client.SetVolume` carrying the mute state alone.
    public func setMuted(_ muted: Bool) async throws {
        try await link.setVolume(.init(muted: muted), of: clientID)
    }

    /// The client's name, percent and mute state from one `Client.GetStatus` — read after setting its percent
    /// to `level` in the same message when a level is given (a JSON-RPC batch of a `Client.SetVolume` and
    /// the `Client.GetStatus`: one line each way). What `volumekit remote get|set snapcast://…` print, in one
    /// round trip on one connection.
    ///
    /// A server that answers but does not know the client fails with ``RemoteVolumeError/unsupported(_:)``
    /// saying so, as ``connect(host:port:clientID:requestTimeout:)`` does; a percent outside 0…100 (read, or
    /// `level`) is refused.
    public func status(settingVolume level: Int? = nil) async throws -> SnapcastClientStatus {
        if let level, !volumeRange.contains(level) {
            throw RemoteVolumeError.unsupported("a Snapcast percent lies within 0…100; \(level) does not")
        }
        let id = clientID
        let client = try await link.request(missing: Self.missing(id)) { session, deadline in
            guard let level else { return try Self.status(of: id, session, deadline) }
            let replies = try session.batch(
                [
                    ("Client.SetVolume", Snapcast.SetVolumeParams(id: id, volume: .init(percent: level))),
                    ("Client.GetStatus", Snapcast.IDParams(id: id)),
                ], deadline: deadline)
            _ = try SnapcastSession.result(
                of: replies[0], method: "Client.SetVolume", as: Snapcast.VolumeResult.self)
            return try Self.checked(
                SnapcastSession.result(of: replies[1], method: "Client.GetStatus", as: Snapcast.ClientStatus.self)
                    .client, id: id, session)
        }
        return SnapcastClientStatus(
            name: Self.name(of: client, id: id), volume: try client.config.volume.checkedPercent(of: client.named),
            muted: client.config.volume.muted)
    }

    /// Follows the server's notifications for this client on a second connection; after a reconnect (the
    /// server restarted) the client's state is read again and yielded. At most 10 changes a second are
    /// yielded, the newest last; a percent outside 0…100 is not believed (the change carries only the mute
    /// state). Ends when its consumer stops listening.
    public func changes() async throws -> AsyncStream<RemoteVolumeChange>? {
        changes(clock: .system)
    }

    /// ``changes()`` with the watcher paced by `clock` (tests advance it by hand).
    func changes(clock: WatcherClock) -> AsyncStream<RemoteVolumeChange> {
        let id = clientID
        let change: @Sendable (Snapcast.Volume) -> RemoteVolumeChange = { volume in
            RemoteVolumeChange(volume: volume.isInRange ? volume.percent : nil, muted: volume.muted)
        }
        return link.changes(
            clock: clock,
            resync: { session, deadline in change(try Self.status(of: id, session, deadline).config.volume) },
            notified: { method, line in
                switch method {
                case "Client.OnVolumeChanged":
                    if let params = try? JSONLine.decode(Snapcast.Notification<Snapcast.VolumeChanged>.self, from: line)
                        .params,
                        params.id == id
                    {
                        return change(params.volume)
                    }
                case "Client.OnConnect":
                    if let params = try? JSONLine.decode(
                        Snapcast.Notification<Snapcast.ClientConnected>.self, from: line
                    ).params,
                        params.id == id
                    {
                        return change(params.client.config.volume)
                    }
                case "Server.OnUpdate":
                    if let server = try? JSONLine.decode(Snapcast.Notification<Snapcast.ServerStatus>.self, from: line)
                        .params,
                        let client = server.server.groups.flatMap(\.clients).first(where: { $0.id == id })
                    {
                        return change(client.config.volume)
                    }
                default:
                    break
                }
                return nil
            }
        )
    }

    private func status() async throws -> Snapcast.Client {
        let id = clientID
        return try await link.request { session, deadline in try Self.status(of: id, session, deadline) }
    }

    /// `Client.GetStatus` for `id`; a reply about another client is refused. What it
    /// says is kept as the client's state on this connection.
    static func status(of id: String, _ session: SnapcastSession, _ deadline: Deadline) throws -> Snapcast.Client {
        try checked(
            session.call(
                "Client.GetStatus", Snapcast.IDParams(id: id), as: Snapcast.ClientStatus.self, deadline: deadline
            ).client, id: id, session)
    }

    /// `client` if it is the one asked about (`id`), kept as that client's state on the connection.
    private static func checked(_ client: Snapcast.Client, id: String, _ session: SnapcastSession) throws
        -> Snapcast.Client
    {
        try SnapcastSession.checkAnswer(about: "client", client.id, asked: id)
        session.remember(client.config.volume, of: id)
        return client
    }
}

/// What one `Client.GetStatus` says about a Snapcast client (``SnapcastClient/status(settingVolume:)``).
public struct SnapcastClientStatus: Sendable, Equatable {
    /// Its configured name, else its host's name, else its id — cleaned of control characters.
    public var name: String
    /// Its percent (0…100).
    public var volume: Int
    /// Whether the client itself is muted.
    public var muted: Bool
}
