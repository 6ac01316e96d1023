import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a snapserver knows: its groups and their clients, with names and ids (`Server.GetStatus`), so a
/// person can find the id a `snapcast://HOST/CLIENT_ID` or `snapcast://HOST/group/GROUP_ID` URL needs.
///
/// ```swift
/// for group in try await SnapcastServerStatus.read(host: "snapserver.local").groups {
///     print(group.id, group.name, group.clients.map(\.name))
/// }
/// ```
///
/// **Bounds.** One request within `requestTimeout` on a fresh connection; the reply is one line of at most
/// 1 MiB; at most ``maxGroups`` groups and ``maxClients`` clients are kept; names are cleaned of control
/// characters and cut to 80 characters, ids to 256 (an id that had to be cleaned cannot be used in a URL,
/// and ``Client/idIsExact`` says so); a percent outside 0…100 is reported as `nil`.
public struct SnapcastServerStatus: Sendable, Equatable {
    /// The most groups kept from one reply.
    public static let maxGroups = 256
    /// The most clients kept from one reply, over all groups.
    public static let maxClients = 1024

    /// One client (a `snapclient` in some room).
    public struct Client: Sendable, Equatable {
        /// The client's id, cleaned.
        public var id: String
        /// Whether ``id`` is the server's id exactly (nothing had to be cleaned or cut).
        public var idIsExact: Bool
        /// Its configured name, else its host's name, else its id — cleaned.
        public var name: String
        /// The host name snapclient reported, cleaned (`nil` when it sent none).
        public var hostName: String?
        /// Its percent, or `nil` when the server reported one outside 0…100.
        public var volume: Int?
        /// Whether the client itself is muted.
        public var muted: Bool
        /// Whether the client is connected now (`nil` when the server did not say).
        public var connected: Bool?
    }

    /// One group (clients playing one stream).
    public struct Group: Sendable, Equatable {
        /// The group's id (a UUID), cleaned.
        public var id: String
        /// Whether ``id`` is the server's id exactly.
        public var idIsExact: Bool
        /// Its name, cleaned; empty when it has none (snapserver's default).
        public var name: String
        /// Whether the group is muted.
        public var muted: Bool
        /// Its clients, in the server's order.
        public var clients: [Client]
    }

    /// The server's groups, in its order.
    public var groups: [Group]
    /// Whether groups or clients beyond ``maxGroups`` / ``maxClients`` were left out.
    public var isTruncated: Bool

    /// Reads the server's status with one `Server.GetStatus`.
    public static func read(
        host: String, port: UInt16 = SnapcastClient.defaultPort, requestTimeout: TimeInterval = 3
    ) async throws -> SnapcastServerStatus {
        let link = SnapcastLink(host: host, port: port, requestTimeout: requestTimeout)
        let server = try await link.request { session, deadline in
            try session.call(
                "Server.GetStatus", Snapcast.NoParams(), as: Snapcast.ServerStatus.self, deadline: deadline
            ).server
        }
        return SnapcastServerStatus(server)
    }

    init(_ server: Snapcast.Server) {
        var groups: [Group] = []
        var clients = 0
        var truncated = server.groups.count > Self.maxGroups
        for group in server.groups.prefix(Self.maxGroups) {
            var members: [Client] = []
            for client in group.clients {
                guard clients < Self.maxClients else {
                    truncated = true
                    break
                }
                clients += 1
                let id = PeerText.clean(client.id, limit: 256)
                let hostName = client.host?.name.map { PeerText.clean($0, limit: 80) }.flatMap { $0.isEmpty ? nil : $0 }
                let configured = client.config.name.map { PeerText.clean($0, limit: 80) } ?? ""
                members.append(
                    Client(
                        id: id, idIsExact: id == client.id,
                        name: configured.isEmpty ? (hostName ?? PeerText.clean(client.id, limit: 80)) : configured,
                        hostName: hostName,
                        volume: client.config.volume.isInRange ? client.config.volume.percent : nil,
                        muted: client.config.volume.muted, connected: client.connected))
            }
            let id = PeerText.clean(group.id, limit: 256)
            groups.append(
                Group(
                    id: id, idIsExact: id == group.id, name: PeerText.clean(group.name ?? "", limit: 80),
                    muted: group.muted, clients: members))
        }
        self.groups = groups
        isTruncated = truncated
    }
}
