import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A whole Snapcast group (several rooms playing one stream) as one ``RemoteVolumeDevice`` that keeps the
/// clients' relative levels.
///
/// - The group's **level is its loudest client's** percent.
/// - Setting level *N* scales every client in proportion: client *i* gets `round(shapeᵢ × N / max(shape))`,
///   where the *shape* is the clients' levels as last set by someone else (or first read). So the loudest
///   client lands exactly on *N* (reading the level back gives *N*), and going down to 0 and back up
///   restores the same proportions (the shape is kept, not recomputed from rounded small levels). When the
///   levels change elsewhere (Snapweb moved one room) that becomes the new shape.
/// - Clients are sent in an order that never makes the loudest level pass through a third value: when
///   raising, the loudest first; when lowering, the loudest last.
/// - **Mute** is the group's own mute (`Group.SetMute`), which leaves the clients' levels alone.
///
/// Snapweb instead moves every client by the same share of its remaining headroom, so its group level (the
/// mean) does not read back exactly; this type prefers an exact read-back for ``RemoteVolumeController``.
public final class SnapcastGroup: RemoteVolumeDevice {
    /// The group's id (a UUID, from `Server.GetStatus`).
    public let groupID: String
    /// The server's host name or address.
    public var host: String { link.host }
    /// The server's control port.
    public var port: UInt16 { link.port }
    /// The deadline for each request, in seconds.
    public var requestTimeout: TimeInterval { link.requestTimeout }
    /// Snapcast volumes are percentages.
    public let volumeRange: ClosedRange<Int> = 0...100
    /// The group's name, or its id.
    public let displayName: String

    private let link: SnapcastLink
    /// The proportions kept, and what this object last set (to tell its own changes from someone else's).
    private let memory = Locked(Memory())

    struct Memory {
        var shape: [String: Int] = [:]
        var lastSet: [String: Int] = [:]
        /// Targets of a set that has not finished (a lost connection mid-way): a client at its pending
        /// target is ours, not "changed elsewhere", so a retry keeps the shape.
        var pending: [String: Int] = [:]

        /// Whether `current` differs from what this object set (or was setting).
        func changedElsewhere(_ current: [String: Int]) -> Bool {
            current.contains { id, level in level != lastSet[id] && level != pending[id] }
        }
    }

    /// Creates a device; no connection is made until the first request.
    public convenience init(
        host: String, port: UInt16 = SnapcastClient.defaultPort, groupID: String,
        requestTimeout: TimeInterval = 3, displayName: String? = nil
    ) {
        self.init(
            link: SnapcastLink(host: host, port: port, requestTimeout: requestTimeout), groupID: groupID,
            displayName: displayName ?? groupID)
    }

    private init(link: SnapcastLink, groupID: String, displayName: String) {
        self.link = link
        self.groupID = groupID
        self.displayName = displayName
    }

    /// Connects, checks that the server knows `groupID` (and that it has clients) and takes its name.
    ///
    /// A server that answers but does not know the group fails with ``RemoteVolumeError/unsupported(_:)``
    /// saying so. The group returned keeps that connection and the membership it read, so a set right after
    /// is one `Client.SetVolume` per client it moves.
    public static func connect(
        host: String, port: UInt16 = SnapcastClient.defaultPort, groupID: String,
        requestTimeout: TimeInterval = 3
    ) async throws -> SnapcastGroup {
        let link = SnapcastLink(host: host, port: port, requestTimeout: requestTimeout)
        let group = try await link.request(missing: .init(kind: "group", id: groupID)) { session, deadline in
            try Self.status(of: groupID, session, deadline)
        }
        _ = try Self.level(of: group)
        let name = group.name.flatMap { $0.isEmpty ? nil : $0 } ?? groupID
        return SnapcastGroup(link: link, groupID: groupID, displayName: PeerText.clean(name, limit: 80))
    }

    /// The loudest client's percent.
    public func volume() async throws -> Int {
        try Self.level(of: try await status())
    }

    /// Scales every client so the loudest is at `level`, keeping their proportions (see the type's notes):
    /// one `Client.SetVolume` per client it moves, preceded by a `Group.GetStatus` only on a connection that
    /// does not know the group yet. A level changed elsewhere whose notification has not reached this
    /// connection yet (a few milliseconds on a LAN) is not part of the shape: the set overwrites it, as any
    /// set after it would.
    public func setVolume(_ level: Int) async throws {
        let level = volumeRange.clamped(level)
        let id = groupID
        let memory = self.memory
        try await link.request { session, deadline in
            let (clients, current) = try Self.members(of: id, session, deadline)
            let targets = memory.withLock { state -> [String: Int] in
                if state.shape.keys.sorted() != current.keys.sorted()
                    || (state.changedElsewhere(current) && current.values.contains { $0 > 0 })
                {
                    state.shape = current
                    state.lastSet = current
                }
                let targets = Self.scaled(state.shape, to: level)
                state.pending = targets
                return targets
            }
            let raising = level >= (current.values.max() ?? 0)
            let loudest = targets.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
            var order = clients.filter { $0.id != loudest }
            if let first = clients.first(where: { $0.id == loudest }) {
                if raising { order.insert(first, at: 0) } else { order.append(first) }
            }
            for client in order {
                guard let target = targets[client.id], client.volume.percent != target else { continue }
                // The percent alone: the client's own mute stays as the server has it.
                try session.setVolume(.init(percent: target), of: client.id, deadline: deadline)
            }
            memory.withLock { state in
                state.lastSet = targets
                state.pending = [:]
            }
        }
    }

    /// The group's mute state.
    public func isMuted() async throws -> Bool {
        try await status().muted
    }

    /// Mutes or unmutes the whole group (`Group.SetMute`).
    public func setMuted(_ muted: Bool) async throws {
        let id = groupID
        try await link.request { session, deadline in
            _ = try session.call(
                "Group.SetMute", Snapcast.SetMuteParams(id: id, mute: muted), as: Snapcast.MuteResult.self,
                deadline: deadline)
        }
    }

    /// Follows the group's members' volume changes and the group's mute on a second connection, yielding
    /// the group level whenever it changes; after a reconnect the group is read again. Ends when its
    /// consumer stops listening.
    public func changes() async throws -> AsyncStream<RemoteVolumeChange>? {
        let id = groupID
        struct Seen { var levels: [String: Int] = [:]; var muted: Bool?; var reported: RemoteVolumeChange? }
        let seen = Locked(Seen())
        let publish: @Sendable (inout Seen) -> RemoteVolumeChange? = { state in
            let change = RemoteVolumeChange(volume: state.levels.values.max(), muted: state.muted)
            guard change != state.reported, change.volume != nil else { return nil }
            state.reported = change
            return change
        }
        let take: @Sendable (Snapcast.Group) -> RemoteVolumeChange? = { group in
            seen.withLock { state -> RemoteVolumeChange? in
                // A percent outside 0…100 is not believed: that client keeps the level last believed.
                var levels: [String: Int] = [:]
                for client in group.clients where levels[client.id] == nil {
                    let volume = client.config.volume
                    levels[client.id] = volume.isInRange ? volume.percent : state.levels[client.id]
                }
                state.levels = levels
                state.muted = group.muted
                return publish(&state)
            }
        }
        return link.changes(
            resync: { session, deadline in take(try Self.status(of: id, session, deadline)) },
            notified: { method, line in
                var change: RemoteVolumeChange?
                switch method {
                case "Client.OnVolumeChanged":
                    guard
                        let params = try? JSONLine.decode(
                            Snapcast.Notification<Snapcast.VolumeChanged>.self, from: line
                        ).params
                    else { return nil }
                    change = seen.withLock { state in
                        guard state.levels[params.id] != nil, params.volume.isInRange else { return nil }
                        state.levels[params.id] = params.volume.percent
                        return publish(&state)
                    }
                case "Group.OnMute":
                    guard
                        let params = try? JSONLine.decode(Snapcast.Notification<Snapcast.GroupMuted>.self, from: line)
                            .params, params.id == id
                    else { return nil }
                    change = seen.withLock { state in
                        state.muted = params.mute
                        return publish(&state)
                    }
                case "Server.OnUpdate":
                    if let server = try? JSONLine.decode(Snapcast.Notification<Snapcast.ServerStatus>.self, from: line)
                        .params,
                        let group = server.server.groups.first(where: { $0.id == id })
                    {
                        change = take(group)
                    }
                default:
                    break
                }
                return change
            }
        )
    }

    /// `shape` scaled so its largest value becomes `level` (all `level` when the shape is all 0).
    static func scaled(_ shape: [String: Int], to level: Int) -> [String: Int] {
        let loudest = shape.values.max() ?? 0
        guard loudest > 0 else { return shape.mapValues { _ in level } }
        return shape.mapValues { ($0 * level + loudest / 2) / loudest }
    }

    static func level(of group: Snapcast.Group) throws -> Int {
        guard let loudest = try levels(of: group).values.max() else {
            throw RemoteVolumeError.unsupported(
                "the Snapcast group \(PeerText.clean(group.id, limit: 60)) has no clients")
        }
        return loudest
    }

    /// Each client's percent; a reply with one outside 0…100 is refused.
    static func levels(of group: Snapcast.Group) throws -> [String: Int] {
        var levels: [String: Int] = [:]
        for client in group.clients where levels[client.id] == nil {
            levels[client.id] = try client.config.volume.checkedPercent(of: client.named)
        }
        return levels
    }

    /// The group's clients (in the server's order) with their volumes, and their percents: from what the
    /// connection already knows (replies, notifications read without waiting), so a set is one round trip
    /// per client it moves; a `Group.GetStatus` only when the connection does not know the group or one of
    /// its clients (a fresh connection).
    static func members(
        of id: String, _ session: SnapcastSession, _ deadline: Deadline
    ) throws -> (clients: [(id: String, volume: Snapcast.Volume)], levels: [String: Int]) {
        try session.catchUp()
        if let ids = session.members[id], !ids.isEmpty {
            let clients = ids.compactMap { client in session.known[client].map { (id: client, volume: $0) } }
            if clients.count == ids.count {
                return (clients, Dictionary(uniqueKeysWithValues: clients.map { ($0.id, $0.volume.percent) }))
            }
        }
        let group = try status(of: id, session, deadline)
        let levels = try levels(of: group)
        var clients: [(id: String, volume: Snapcast.Volume)] = []
        for client in group.clients where !clients.contains(where: { $0.id == client.id }) {
            clients.append((client.id, client.config.volume))
        }
        return (clients, levels)
    }

    private func status() async throws -> Snapcast.Group {
        let id = groupID
        return try await link.request { session, deadline in try Self.status(of: id, session, deadline) }
    }

    /// `Group.GetStatus` for `id`; a reply about another group is refused.
    static func status(of id: String, _ session: SnapcastSession, _ deadline: Deadline) throws -> Snapcast.Group {
        let group = try session.call(
            "Group.GetStatus", Snapcast.IDParams(id: id), as: Snapcast.GroupStatus.self, deadline: deadline
        ).group
        try SnapcastSession.checkAnswer(about: "group", group.id, asked: id)
        session.remember(group)
        return group
    }
}
