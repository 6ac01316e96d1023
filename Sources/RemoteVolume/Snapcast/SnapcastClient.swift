import Foundation
import VolumeKitCore

/// One Snapcast client (a `snapclient` in some room) as a ``RemoteVolumeDevice``, over snapserver's
/// JSON-RPC 2.0 control port (TCP 1705, one JSON object per line): `Client.GetStatus`, `Client.SetVolume`,
/// and `Client.OnVolumeChanged` notifications for changes made elsewhere (Snapweb, another app).
///
/// ```swift
/// let kitchen = try await SnapcastClient.connect(host: "snapserver.local", clientID: "b8:27:eb:12:34:56")
/// let controller = RemoteVolumeController(device: kitchen)
/// ```
///
/// `Client.SetVolume` always carries both `percent` and `muted`: snapserver 0.26 answers a
/// `Client.SetVolume` carrying only `percent`, then never answers that connection again and notifies no
/// other (seen against the real Debian 0.26.0 server). The other half comes from what the command
/// connection already knows — the last reply about the client, and the notifications snapserver pushes to
/// it when someone else changes the client, read without waiting just before the set — so a set is one
/// round trip; only a fresh connection reads `Client.GetStatus` first.
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

    private let link: SnapcastLink

    /// Creates a device; no connection is made until the first request.
    public init(
        host: String, port: UInt16 = SnapcastClient.defaultPort, clientID: String,
        requestTimeout: TimeInterval = 3, displayName: String? = nil
    ) {
        link = SnapcastLink(host: host, port: port, requestTimeout: requestTimeout)
        self.clientID = clientID
        self.displayName = displayName ?? clientID
    }

    private init(link: SnapcastLink, clientID: String, displayName: String) {
        self.link = link
        self.clientID = clientID
        self.displayName = displayName
    }

    /// Connects, checks that the server knows `clientID` and takes its name.
    ///
    /// The client returned keeps that connection and what `Client.GetStatus` said, so a set right after is
    /// one `Client.SetVolume` (issue 23: `volumekit remote set snapcast://…` is two requests on one
    /// connection — the first tells the client's mute state, which a set must carry).
    ///
    /// A server that answers but does not know the client fails with ``RemoteVolumeError/unsupported(_:)``
    /// saying so (not "cannot be reached": the server was reached).
    public static func connect(
        host: String, port: UInt16 = SnapcastClient.defaultPort, clientID: String,
        requestTimeout: TimeInterval = 3
    ) async throws -> SnapcastClient {
        let probe = SnapcastClient(host: host, port: port, clientID: clientID, requestTimeout: requestTimeout)
        let client: Snapcast.Client
        do {
            client = try await probe.link.request(mappingNotFound: false) { session, deadline in
                try Self.status(of: clientID, session, deadline)
            }
        } catch let refusal as SnapcastRefusal where refusal.isNotFound {
            throw RemoteVolumeError.unsupported(
                "the Snapcast server at \(probe.link.address) answered, but has no client \"\(PeerText.clean(clientID, limit: 60))\" (\(refusal.message)); 'volumekit remote list snapcast://\(probe.link.address)' lists its clients (a server that has just restarted knows them again within a second)"
            )
        }
        let names = [client.config.name, client.host?.name].compactMap { $0 }.filter { !$0.isEmpty }
        return SnapcastClient(
            link: probe.link, clientID: clientID, displayName: PeerText.clean(names.first ?? clientID, limit: 80))
    }

    /// Reads the client's percent; one outside 0…100 is refused (``RemoteVolumeError/invalidReply(_:)``).
    public func volume() async throws -> Int {
        let client = try await status()
        return try client.config.volume.checkedPercent(of: client.named)
    }

    /// Sets the client's percent, keeping its mute state: one `Client.SetVolume`, preceded by a
    /// `Client.GetStatus` only on a fresh connection (see the type's notes).
    public func setVolume(_ level: Int) async throws {
        let level = min(max(level, volumeRange.lowerBound), volumeRange.upperBound)
        let id = clientID
        try await link.request { session, deadline in
            try session.catchUp()
            let muted = try session.known[id]?.muted ?? Self.status(of: id, session, deadline).config.volume.muted
            try session.setVolume(.init(percent: level, muted: muted), of: id, deadline: deadline)
        }
    }

    /// Reads the client's mute state.
    public func isMuted() async throws -> Bool {
        try await status().config.volume.muted
    }

    /// Mutes or unmutes the client, keeping its percent (one round trip, as ``setVolume(_:)``).
    public func setMuted(_ muted: Bool) async throws {
        let id = clientID
        try await link.request { session, deadline in
            try session.catchUp()
            let percent: Int
            if let known = session.known[id] {
                percent = known.percent
            } else {
                let client = try Self.status(of: id, session, deadline)
                percent = try client.config.volume.checkedPercent(of: client.named)
            }
            try session.setVolume(.init(percent: percent, muted: muted), of: id, deadline: deadline)
        }
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
        let (stream, continuation) = AsyncStream<RemoteVolumeChange>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = clientID
        let change: @Sendable (Snapcast.Volume) -> RemoteVolumeChange = { volume in
            RemoteVolumeChange(volume: volume.isInRange ? volume.percent : nil, muted: volume.muted)
        }
        let watcher = SnapcastWatcher(
            link: link,
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
            },
            clock: clock,
            deliver: { continuation.yield($0) }
        )
        continuation.onTermination = { _ in watcher.cancel() }
        watcher.start()
        return stream
    }

    private func status() async throws -> Snapcast.Client {
        let id = clientID
        return try await link.request { session, deadline in try Self.status(of: id, session, deadline) }
    }

    /// `Client.GetStatus` for `id`; a reply about another client is refused (issue 23 item 8). What it
    /// says is kept as the client's state on this connection.
    static func status(of id: String, _ session: SnapcastSession, _ deadline: Deadline) throws -> Snapcast.Client {
        let client = try session.call(
            "Client.GetStatus", Snapcast.IDParams(id: id), as: Snapcast.ClientStatus.self, deadline: deadline
        ).client
        guard client.id == id else {
            throw RemoteVolumeError.invalidReply(
                "Snapcast answered about client \"\(PeerText.clean(client.id, limit: 60))\" when asked about \"\(PeerText.clean(id, limit: 60))\""
            )
        }
        session.remember(client.config.volume, of: id)
        return client
    }
}
