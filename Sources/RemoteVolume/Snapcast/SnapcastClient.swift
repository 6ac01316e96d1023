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
/// `Client.SetVolume` always carries both `percent` and `muted` (the current other half is read first, in
/// the same request): snapserver 0.26 answers a `Client.SetVolume` carrying only `percent`, then never
/// answers that connection again and notifies no other (seen against the real Debian 0.26.0 server).
///
/// **Bounds.** One persistent command connection, one request at a time, each within ``requestTimeout``;
/// lines capped at 1 MiB; at most 512 notifications skipped while waiting for a reply; percents read back
/// are clamped to 0…100.
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

    /// Connects, checks that the server knows `clientID` and takes its name.
    public static func connect(
        host: String, port: UInt16 = SnapcastClient.defaultPort, clientID: String,
        requestTimeout: TimeInterval = 3
    ) async throws -> SnapcastClient {
        let probe = SnapcastClient(host: host, port: port, clientID: clientID, requestTimeout: requestTimeout)
        let client = try await probe.status()
        let names = [client.config.name, client.host?.name].compactMap { $0 }.filter { !$0.isEmpty }
        return SnapcastClient(
            host: host, port: port, clientID: clientID, requestTimeout: requestTimeout,
            displayName: PeerText.clean(names.first ?? clientID, limit: 80))
    }

    /// Reads the client's percent (clamped to 0…100).
    public func volume() async throws -> Int {
        try await status().config.volume.level
    }

    /// Sets the client's percent, keeping its mute state.
    public func setVolume(_ level: Int) async throws {
        let level = min(max(level, volumeRange.lowerBound), volumeRange.upperBound)
        let id = clientID
        try await link.request { session, deadline in
            let current = try Self.status(of: id, session, deadline)
            _ = try session.call(
                "Client.SetVolume",
                Snapcast.SetVolumeParams(id: id, volume: .init(percent: level, muted: current.config.volume.muted)),
                as: Snapcast.VolumeResult.self, deadline: deadline)
        }
    }

    /// Reads the client's mute state.
    public func isMuted() async throws -> Bool {
        try await status().config.volume.muted
    }

    /// Mutes or unmutes the client, keeping its percent.
    public func setMuted(_ muted: Bool) async throws {
        let id = clientID
        try await link.request { session, deadline in
            let current = try Self.status(of: id, session, deadline)
            _ = try session.call(
                "Client.SetVolume",
                Snapcast.SetVolumeParams(id: id, volume: .init(percent: current.config.volume.level, muted: muted)),
                as: Snapcast.VolumeResult.self, deadline: deadline)
        }
    }

    /// Follows the server's notifications for this client on a second connection; after a reconnect (the
    /// server restarted) the client's state is read again and yielded. Ends when its consumer stops listening.
    public func changes() async throws -> AsyncStream<RemoteVolumeChange>? {
        let (stream, continuation) = AsyncStream<RemoteVolumeChange>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = clientID
        let last = Locked<Snapcast.Volume?>(nil)
        let report: @Sendable (Snapcast.Volume) -> Void = { volume in
            let clamped = Snapcast.Volume(percent: volume.level, muted: volume.muted)
            let isNew = last.withLock { value -> Bool in
                defer { value = clamped }
                return value != clamped
            }
            if isNew { continuation.yield(RemoteVolumeChange(volume: clamped.percent, muted: clamped.muted)) }
        }
        let watcher = SnapcastWatcher(
            link: link,
            resync: { session, deadline in report(try Self.status(of: id, session, deadline).config.volume) },
            notified: { method, line in
                switch method {
                case "Client.OnVolumeChanged":
                    if let change = try? JSONLine.decode(Snapcast.Notification<Snapcast.VolumeChanged>.self, from: line)
                        .params,
                        change.id == id
                    {
                        report(change.volume)
                    }
                case "Client.OnConnect":
                    if let change = try? JSONLine.decode(
                        Snapcast.Notification<Snapcast.ClientConnected>.self, from: line
                    ).params,
                        change.id == id
                    {
                        report(change.client.config.volume)
                    }
                case "Server.OnUpdate":
                    if let server = try? JSONLine.decode(Snapcast.Notification<Snapcast.ServerStatus>.self, from: line)
                        .params,
                        let client = server.server.groups.flatMap(\.clients).first(where: { $0.id == id })
                    {
                        report(client.config.volume)
                    }
                default:
                    break
                }
            }
        )
        continuation.onTermination = { _ in watcher.cancel() }
        watcher.start()
        return stream
    }

    private func status() async throws -> Snapcast.Client {
        let id = clientID
        return try await link.request { session, deadline in try Self.status(of: id, session, deadline) }
    }

    static func status(of id: String, _ session: SnapcastSession, _ deadline: Deadline) throws -> Snapcast.Client {
        try session.call(
            "Client.GetStatus", Snapcast.IDParams(id: id), as: Snapcast.ClientStatus.self, deadline: deadline
        ).client
    }
}
