#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One JSON-RPC connection to snapserver's TCP control port.
///
/// Bounds (docs/security.md): a line is at most ``maxLineBytes``; while waiting for its reply a request
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
    /// `Client.GetStatus` first: one round trip per set. Empty on a fresh connection: what
    /// happened while none was open is unknown.
    private(set) var known: [String: Volume] = [:]
    /// The set ``sendSetVolume(_:of:deadline:)`` sent, whose reply ``receiveSetVolume(deadline:)`` reads.
    private var pendingSet: (request: Int, client: String, canonical: Snapcast.CanonicalReply<Snapcast.VolumeResult>)?
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
        let id = try send(method, params, deadline: deadline)
        return try reply(to: id, method, as: type, deadline: deadline, canonical: canonical, notified: notified)
    }

    /// Sends `method(params)` with the next id, which it returns: the first half of
    /// ``call(_:_:as:deadline:canonical:notified:)``.
    func send<P: Snapcast.Params>(_ method: String, _ params: P, deadline: Deadline) throws -> Int {
        let id = nextID
        nextID += 1
        try channel.send(Snapcast.request(id: id, method: method, params: params) + "\n", deadline: deadline)
        return id
    }

    /// Reads up to the reply to request `id` and decodes its `result` as `R`: the second half of
    /// ``call(_:_:as:deadline:canonical:notified:)``.
    func reply<R: Decodable>(
        to id: Int, _ method: String, as type: R.Type, deadline: Deadline,
        canonical: Snapcast.CanonicalReply<R>? = nil, notified: (String, String) -> Void = { _, _ in }
    ) throws -> R {
        let expected = canonical.map { ($0.text(id), $0.result) }
        var skipped = 0
        while true {
            let line = try channel.readLine(deadline: deadline)
            if let expected, line == expected.0 { return expected.1 }
            if JSONLine.isArray(line) {
                // A batch of notifications (snapserver sends one when another controller sent a batch).
                try skipBatch(line, awaiting: method, skipped: &skipped, notified: notified)
                continue
            }
            // One parse for the usual line (the per-request cost); a reply whose result does not
            // decode is decoded again strictly, for the error's words.
            let envelope = try JSONLine.decode(Snapcast.Answer<R>.self, from: line)
            if envelope.id == id { return try Self.result(of: envelope, line, method: method) }
            if envelope.id == nil, let name = envelope.method {
                note(name, line)
                notified(name, line)
            }
            skipped += 1
            guard skipped <= Self.maxSkippedLines else { throw Self.flooded(awaiting: method) }
        }
    }

    /// Sends `requests` as one JSON-RPC batch — one line out, one line back (JSON-RPC 2.0 §6; snapserver
    /// answers a batch with one array) — and returns each request's reply element, in the order given.
    /// Notifications met meanwhile are kept as ``call(_:_:as:deadline:canonical:notified:)`` keeps them.
    func batch(_ requests: [(method: String, params: any Snapcast.Params)], deadline: Deadline) throws -> [String] {
        let first = nextID
        nextID += requests.count
        let lines = requests.enumerated().map { offset, request in
            Snapcast.request(id: first + offset, method: request.method, params: request.params)
        }
        try channel.send("[" + lines.joined(separator: ",") + "]\n", deadline: deadline)
        let method = requests.map(\.method).joined(separator: " + ")
        var skipped = 0
        while true {
            let line = try channel.readLine(deadline: deadline)
            guard JSONLine.isArray(line) else {
                let envelope = try JSONLine.decode(Snapcast.Envelope.self, from: line)
                if let id = envelope.id, (first..<(first + requests.count)).contains(id) {
                    // A lone reply to a batch: the server refused the batch as a whole.
                    throw Self.refusal(envelope, method: method)
                }
                if envelope.id == nil, let name = envelope.method { note(name, line) }
                skipped += 1
                guard skipped <= Self.maxSkippedLines else { throw Self.flooded(awaiting: method) }
                continue
            }
            let elements = try JSONLine.elements(ofArray: line, limit: Self.maxSkippedLines)
            var replies: [Int: String] = [:]
            for element in elements {
                let envelope = try JSONLine.decode(Snapcast.Envelope.self, from: element)
                if let id = envelope.id, id >= first, id < first + requests.count {
                    replies[id] = element
                } else if envelope.id == nil, let name = envelope.method {
                    note(name, element)
                }
            }
            guard replies.isEmpty else {
                return try (first..<(first + requests.count)).map { id in
                    guard let reply = replies[id] else {
                        throw RemoteVolumeError.invalidReply(
                            "a Snapcast batch reply without the answer to request \(id)")
                    }
                    return reply
                }
            }
            skipped += elements.count
            guard skipped <= Self.maxSkippedLines else { throw Self.flooded(awaiting: method) }
        }
    }

    /// The `result` of one reply (a line, or an element of a batch reply) to `method`, as `R`; a JSON-RPC
    /// error is thrown as ``SnapcastRefusal``.
    static func result<R: Decodable>(of reply: String, method: String, as type: R.Type) throws -> R {
        try result(of: JSONLine.decode(Snapcast.Answer<R>.self, from: reply), reply, method: method)
    }

    private static func result<R: Decodable>(of envelope: Snapcast.Answer<R>, _ reply: String, method: String) throws
        -> R
    {
        if let error = envelope.error { throw refusal(error, method: method) }
        if let result = envelope.result { return result }
        return try JSONLine.decode(Snapcast.Reply<R>.self, from: reply).result
    }

    /// Refuses a reply about another `kind` (`client`, `group`) than the one asked about: `answered` is the
    /// id the reply names, `asked` the id the request named.
    static func checkAnswer(about kind: String, _ answered: String, asked: String) throws {
        guard answered == asked else {
            throw RemoteVolumeError.invalidReply(
                "Snapcast answered about \(kind) \"\(PeerText.clean(answered, limit: 60))\" when asked about \"\(PeerText.clean(asked, limit: 60))\""
            )
        }
    }

    private static func refusal(_ envelope: Snapcast.Envelope, method: String) -> any Error {
        guard let error = envelope.error else {
            return RemoteVolumeError.invalidReply("Snapcast answered \(method) with one reply, not a batch")
        }
        return refusal(error, method: method)
    }

    private static func refusal(_ error: Snapcast.RPCError, method: String) -> SnapcastRefusal {
        let detail = [error.message, error.data].compactMap { $0 }.joined(separator: ": ")
        return SnapcastRefusal(method: method, code: error.code, message: PeerText.clean(detail))
    }

    private static func flooded(awaiting method: String) -> RemoteVolumeError {
        .invalidReply("more than \(maxSkippedLines) Snapcast messages without the reply to \(method)")
    }

    /// Notes the notifications of a batch line met while waiting for the reply to `method`; each counts as a
    /// skipped line.
    private func skipBatch(
        _ line: String, awaiting method: String, skipped: inout Int, notified: (String, String) -> Void
    ) throws {
        let batch = try Self.notifications(inBatch: line)
        for (name, element) in batch {
            note(name, element)
            notified(name, element)
        }
        skipped += max(1, batch.count)
        guard skipped <= Self.maxSkippedLines else { throw Self.flooded(awaiting: method) }
    }

    /// The notifications (method and text) of a line that is a JSON array; replies in it are ignored. At most
    /// ``maxSkippedLines`` elements are read.
    static func notifications(inBatch line: String) throws -> [(method: String, text: String)] {
        try JSONLine.elements(ofArray: line, limit: maxSkippedLines).compactMap { element in
            let envelope = try JSONLine.decode(Snapcast.Envelope.self, from: element)
            guard envelope.id == nil, let name = envelope.method else { return nil }
            return (name, element)
        }
    }
}

extension SnapcastSession {
    /// Reads the notifications that already arrived on this connection (without waiting, at most
    /// ``maxSkippedLines``), so ``known`` is current before a set.
    func catchUp() throws {
        var read = 0
        while read < Self.maxSkippedLines, let line = try channel.readLineIfReady() {
            read += 1
            if JSONLine.isArray(line) {
                for (name, element) in try Self.notifications(inBatch: line) { note(name, element) }
                continue
            }
            let envelope = try JSONLine.decode(Snapcast.Envelope.self, from: line)
            if envelope.id == nil, let name = envelope.method { note(name, line) }
        }
    }

    /// `Client.SetVolume` of `change` for client `id` (only the parts it changes are sent), keeping what the
    /// server answered as the client's state; snapserver's usual reply is recognised without parsing (the
    /// per-request cost). The client's volume after the set, as the server answered it.
    @discardableResult
    func setVolume(_ change: Snapcast.VolumeChange, of id: String, deadline: Deadline) throws -> Volume {
        try sendSetVolume(change, of: id, deadline: deadline)
        return try receiveSetVolume(deadline: deadline)
    }

    /// Sends `Client.SetVolume` of `change` for client `id`: the first half of ``setVolume(_:of:deadline:)``,
    /// whose reply may be read on another thread.
    func sendSetVolume(_ change: Snapcast.VolumeChange, of id: String, deadline: Deadline) throws {
        // The reply is expected to hold the part not sent as this connection last knew it (unmuted, when it
        // knows nothing): a wrong guess costs a parse, never a wrong result.
        let guess =
            change.applied(to: known[id] ?? Volume(percent: 0, muted: false)) ?? Volume(percent: 0, muted: false)
        let canonical = Snapcast.CanonicalReply(
            text: { #"{"id":\#($0),"jsonrpc":"2.0","result":{"volume":\#(guess.json)}}"# },
            result: Snapcast.VolumeResult(volume: guess))
        let request = try send("Client.SetVolume", Snapcast.SetVolumeParams(id: id, volume: change), deadline: deadline)
        pendingSet = (request, id, canonical)
    }

    /// Whether a line naming the pending set's request id has arrived, waiting at most `milliseconds`
    /// (``LineChannel/hasLine(waitingAtMost:where:)``). A notification alone is not its reply; a reply written
    /// otherwise than snapserver writes it reads as not arrived, and is then read on another thread.
    func setVolumeReplyArrived(waitingAtMost milliseconds: Int32) throws -> Bool {
        guard let pendingSet else { return true }
        let head = Array(#"{"id":\#(pendingSet.request),"#.utf8)
        return try channel.hasLine(waitingAtMost: milliseconds) { $0.starts(with: head) }
    }

    /// Reads the reply to the set ``sendSetVolume(_:of:deadline:)`` sent (notifications met meanwhile are kept),
    /// keeps the client's state it gives, and returns the client's volume.
    func receiveSetVolume(deadline: Deadline) throws -> Volume {
        guard let pending = pendingSet else {
            throw RemoteVolumeError.invalidReply("no Snapcast set is waiting for its reply")
        }
        pendingSet = nil
        let result = try reply(
            to: pending.request, "Client.SetVolume", as: Snapcast.VolumeResult.self, deadline: deadline,
            canonical: pending.canonical)
        remember(result.volume, of: pending.client)
        return result.volume
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

    /// Requests handed to another thread than their caller's (``SerialLink/handOffs``; tests count them).
    var handOffs: Int { link.handOffs }

    /// How long a caller's thread waits for a quick reply (``SerialLink/callerPatience``; tests set it).
    var callerPatience: TimeInterval {
        get { link.callerPatience }
        set { link.callerPatience = newValue }
    }

    /// "HOST:PORT" (an IPv6 host in brackets), for messages.
    var address: String { "\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    /// What a request asks about, for a "not found" refusal worded by the caller: the server was reached, but
    /// has no `kind` (client or group) `id`; `note` follows the command that lists them.
    struct Missing: Sendable {
        var kind: String
        var id: String
        var note = ""
    }

    /// Runs `work` (one or more calls) as one request within ``requestTimeout``.
    ///
    /// A refusal saying the server does not know the client or group asked about is thrown, when `missing`
    /// is given, as "the server answered, but has no such client" with the command that lists them (a caller
    /// such as `connect`: the server was reached); else as ``SnapcastRefusal/remoteVolumeError(at:)`` says.
    func request<T: Sendable>(
        missing: Missing? = nil, _ work: @escaping @Sendable (SnapcastSession, Deadline) throws -> T
    ) async throws -> T {
        try await mappingErrors(missing: missing) {
            try await link.perform(timeout: requestTimeout, keepsSession: { $0 is SnapcastRefusal }, work)
        }
    }

    /// Sets client `id`'s volume (``SnapcastSession/setVolume(_:of:deadline:)``) on the caller's thread when
    /// the connection answers quickly (``SerialLink``'s quick path, as MPD's requests): on loopback or a wired
    /// LAN that saves the two thread hand-offs of the link's queue, most of a set's cost. Errors as
    /// ``request(missing:_:)``.
    func setVolume(_ change: Snapcast.VolumeChange, of id: String) async throws {
        let exchange = SerialLink<SnapcastSession>.Exchange<Void>(
            // Notifications that came while the connection was idle (another controller's changes) are read
            // first, before the caller's patience starts: a burst of them takes longer than the patience.
            prepare: { session in try session.catchUp() },
            send: { session, deadline in try session.sendSetVolume(change, of: id, deadline: deadline) },
            arrived: { session, milliseconds in try session.setVolumeReplyArrived(waitingAtMost: milliseconds) },
            receive: { session, deadline in _ = try session.receiveSetVolume(deadline: deadline) })
        try await mappingErrors(missing: nil) {
            try await link.perform(timeout: requestTimeout, keepsSession: { $0 is SnapcastRefusal }, quick: exchange)
        }
    }

    /// `body`'s errors in the user's words (see ``request(missing:_:)``).
    private func mappingErrors<T>(missing: Missing?, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let refusal as SnapcastRefusal {
            if let missing, refusal.isNotFound {
                throw RemoteVolumeError.unsupported(
                    "the Snapcast server at \(address) answered, but has no \(missing.kind) \"\(PeerText.clean(missing.id, limit: 60))\" (\(refusal.message)); 'volumekit remote list snapcast://\(address)' lists its \(missing.kind)s\(missing.note)"
                )
            }
            throw refusal.remoteVolumeError(at: address)
        } catch {
            throw error.asRemoteVolumeError
        }
    }
}
