import Foundation

/// One JSON-RPC connection to snapserver's TCP control port.
///
/// Bounds (issue 15 item 8): a line is at most ``maxLineBytes``; while waiting for its reply a request
/// skips at most ``maxSkippedLines`` notifications (snapserver pushes every change to every control
/// connection); everything within the caller's deadline.
final class SnapcastSession {
    /// The longest line read: `Server.GetStatus` is ~1.7 KB per client, so 1 MiB is hundreds of clients.
    static let maxLineBytes = 1024 * 1024
    /// Notifications skipped while waiting for one reply before the connection is given up as flooded.
    static let maxSkippedLines = 512

    let channel: LineChannel
    private var nextID = 1
    /// Client volumes as this connection last learnt them — from replies, and from the notifications
    /// snapserver pushes to every control connection when someone else changes one — so a set needs no
    /// `Client.GetStatus` first (issue 23: one round trip per set). Empty on a fresh connection: what
    /// happened while none was open is unknown.
    private(set) var known: [String: Volume] = [:]
    /// Each group's client ids, in the server's order, as this connection last learnt them (from
    /// `Group.GetStatus` replies and `Server.OnUpdate`, which snapserver sends whenever membership changes),
    /// so a group set needs no `Group.GetStatus` first either. Forgotten when a client this connection
    /// places in no group connects (it may have joined one).
    private(set) var members: [String: [String]] = [:]

    typealias Volume = Snapcast.Volume

    init(host: String, port: UInt16, deadline: Deadline) throws {
        channel = try LineChannel(host: host, port: port, maxLineBytes: Self.maxLineBytes, deadline: deadline)
    }

    /// Sends `method(params)` and decodes its `result` as `R`; notifications met meanwhile go to `notified`.
    /// A reply that is word for word `canonical`'s is taken as its result without parsing.
    func call<P: Snapcast.Params, R: Decodable>(
        _ method: String, _ params: P, as type: R.Type, deadline: Deadline,
        canonical: Snapcast.CanonicalReply<R>? = nil, notified: (String, String) -> Void = { _, _ in }
    ) throws -> R {
        let id = nextID
        nextID += 1
        try channel.send(Snapcast.request(id: id, method: method, params: params) + "\n", deadline: deadline)
        let expected = canonical.map { ($0.text(id), $0.result) }
        var skipped = 0
        while true {
            let line = try channel.readLine(deadline: deadline)
            if let expected, line == expected.0 { return expected.1 }
            // One parse for the usual line (issue 23: the per-request cost); a reply whose result does not
            // decode is decoded again strictly, for the error's words.
            let envelope = try JSONLine.decode(Snapcast.Answer<R>.self, from: line)
            if envelope.id == id {
                if let error = envelope.error {
                    let detail = [error.message, error.data].compactMap { $0 }.joined(separator: ": ")
                    throw SnapcastRefusal(method: method, code: error.code, message: PeerText.clean(detail))
                }
                if let result = envelope.result { return result }
                return try JSONLine.decode(Snapcast.Reply<R>.self, from: line).result
            }
            if envelope.id == nil, let name = envelope.method {
                note(name, line)
                notified(name, line)
            }
            skipped += 1
            guard skipped <= Self.maxSkippedLines else {
                throw RemoteVolumeError.invalidReply(
                    "more than \(Self.maxSkippedLines) Snapcast messages without the reply to \(method)")
            }
        }
    }
}

extension SnapcastSession {
    /// Reads the notifications that already arrived on this connection (without waiting, at most
    /// ``maxSkippedLines``), so ``known`` is current before a set.
    func catchUp() throws {
        for _ in 0..<Self.maxSkippedLines {
            guard let line = try channel.readLineIfReady() else { return }
            let envelope = try JSONLine.decode(Snapcast.Envelope.self, from: line)
            if envelope.id == nil, let name = envelope.method { note(name, line) }
        }
    }

    /// `Client.SetVolume` of `volume` for client `id`, keeping what the server answered as the client's state;
    /// snapserver's usual reply is recognised without parsing (issue 23 item 4).
    func setVolume(_ volume: Volume, of id: String, deadline: Deadline) throws {
        let canonical = Snapcast.CanonicalReply(
            text: { #"{"id":\#($0),"jsonrpc":"2.0","result":{"volume":\#(volume.json)}}"# },
            result: Snapcast.VolumeResult(volume: volume))
        let result = try call(
            "Client.SetVolume", Snapcast.SetVolumeParams(id: id, volume: volume), as: Snapcast.VolumeResult.self,
            deadline: deadline, canonical: canonical)
        remember(result.volume, of: id)
    }

    /// Records `volume` as `id`'s, when its percent lies within 0…100 (otherwise forgets it).
    func remember(_ volume: Volume, of id: String) {
        known[id] = volume.isInRange ? volume : nil
    }

    /// Records `group`'s membership and its clients' volumes.
    func remember(_ group: Snapcast.Group) {
        var ids: [String] = []
        for client in group.clients where !ids.contains(client.id) {
            ids.append(client.id)
            remember(client.config.volume, of: client.id)
        }
        members[group.id] = ids
    }

    /// Keeps ``known`` and ``members`` current from one notification.
    private func note(_ method: String, _ line: String) {
        switch method {
        case "Client.OnVolumeChanged":
            if let change = try? JSONLine.decode(Snapcast.Notification<Snapcast.VolumeChanged>.self, from: line)
                .params
            {
                remember(change.volume, of: change.id)
            }
        case "Client.OnConnect":
            if let change = try? JSONLine.decode(Snapcast.Notification<Snapcast.ClientConnected>.self, from: line)
                .params
            {
                remember(change.client.config.volume, of: change.id)
                if !members.values.contains(where: { $0.contains(change.id) }) { members = [:] }
            }
        case "Server.OnUpdate":
            if let server = try? JSONLine.decode(Snapcast.Notification<Snapcast.ServerStatus>.self, from: line)
                .params
            {
                known = [:]
                members = [:]
                for group in server.server.groups { remember(group) }
            }
        default:
            break
        }
    }
}

/// What every Snapcast device shares: where the server is and one serialized command connection.
final class SnapcastLink: @unchecked Sendable {
    let host: String
    let port: UInt16
    let requestTimeout: TimeInterval
    private let link: SerialLink<SnapcastSession>

    init(host: String, port: UInt16, requestTimeout: TimeInterval) {
        self.host = host
        self.port = port
        self.requestTimeout = requestTimeout
        link = SerialLink(
            label: "RemoteVolume.Snapcast",
            open: { deadline in try SnapcastSession(host: host, port: port, deadline: deadline) },
            // Notifications arrive on an idle command connection all the time; they are skipped by `call`,
            // and a connection the server closed is found (and replaced) by the first read.
            isStale: { _ in false },
            close: { $0.channel.close() }
        )
    }

    /// "HOST:PORT" (an IPv6 host in brackets), for messages.
    var address: String { "\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    /// Runs `work` (one or more calls) as one request within ``requestTimeout``.
    ///
    /// With `mappingNotFound` false, a "not found" refusal is thrown as the ``SnapcastRefusal`` itself, for
    /// a caller that words it (``SnapcastClient/connect(host:port:clientID:requestTimeout:)``).
    func request<T: Sendable>(
        mappingNotFound: Bool = true, _ work: @escaping @Sendable (SnapcastSession, Deadline) throws -> T
    ) async throws -> T {
        do {
            return try await link.perform(timeout: requestTimeout, keepsSession: { $0 is SnapcastRefusal }, work)
        } catch let refusal as SnapcastRefusal {
            if !mappingNotFound && refusal.isNotFound { throw refusal }
            throw refusal.remoteVolumeError(at: address)
        } catch {
            throw error.asRemoteVolumeError
        }
    }
}
