import Dispatch
import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// GENA eventing (UDA 1.1 §4): subscribe, renew and unsubscribe requests.
enum GENA {
    /// A granted subscription.
    struct Subscription: Sendable, Equatable {
        var sid: String
        /// Seconds until it lapses unless renewed.
        var timeout: Int
    }

    /// The shortest subscription time believed, in seconds; a device granting less is renewed this often.
    static let minTimeout = 4
    /// The longest subscription time believed, in seconds (one day); a device granting more is renewed as if
    /// it had granted this.
    static let maxTimeout = 86_400

    /// Reads the granted SID and timeout (clamped to ``minTimeout``…``maxTimeout``) from a SUBSCRIBE reply.
    static func parseSubscribeReply(_ reply: HTTPMessage) throws -> Subscription {
        let status = reply.status ?? 0
        guard status == 200 else { throw RemoteVolumeError.httpStatus(status) }
        guard let sid = reply[header: "SID"], !sid.isEmpty, sid.count <= 256 else {
            throw RemoteVolumeError.invalidReply("SUBSCRIBE reply without SID")
        }
        guard !sid.unicodeScalars.contains(where: PeerText.isUnsafe) else {
            throw RemoteVolumeError.invalidReply("SUBSCRIBE reply with a control character in its SID")
        }
        var timeout = 1800  // UDA 1.1 §4.1.2: "Second-infinite" is deprecated; treat it and absence as 30 min.
        if let text = reply[header: "TIMEOUT"]?.lowercased(), text.hasPrefix("second-") {
            let digits = text.dropFirst(7)
            if !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit) {
                // A peer's number is clamped before any arithmetic (docs/security.md). More digits than an
                // Int holds is "very long" too.
                timeout = min(
                    maxTimeout,
                    max(minTimeout, Int(digits.prefix(18)).map { digits.count > 18 ? maxTimeout : $0 } ?? maxTimeout))
            }
        }
        return Subscription(sid: sid, timeout: timeout)
    }

    static func subscribe(_ url: URL, callback: String, timeout: Int, requestTimeout: TimeInterval) async throws
        -> Subscription
    {
        let reply = try await HTTPClient.send(
            method: "SUBSCRIBE", url: url,
            headers: [
                ("CALLBACK", "<\(callback)>"), ("NT", "upnp:event"), ("TIMEOUT", "Second-\(timeout)"),
            ], timeout: requestTimeout, maxBodyBytes: 4096)
        return try parseSubscribeReply(reply.message)
    }

    static func renew(_ url: URL, sid: String, timeout: Int, requestTimeout: TimeInterval) async throws -> Subscription
    {
        let reply = try await HTTPClient.send(
            method: "SUBSCRIBE", url: url,
            headers: [
                ("SID", sid), ("TIMEOUT", "Second-\(timeout)"),
            ], timeout: requestTimeout, maxBodyBytes: 4096)
        return try parseSubscribeReply(reply.message)
    }

    static func unsubscribe(_ url: URL, sid: String, requestTimeout: TimeInterval) async throws {
        let reply = try await HTTPClient.send(
            method: "UNSUBSCRIBE", url: url, headers: [("SID", sid)],
            timeout: requestTimeout, maxBodyBytes: 4096)
        guard reply.status == 200 else { throw RemoteVolumeError.httpStatus(reply.status) }
    }

    /// What to answer a NOTIFY head before its body is read: `nil` to go on reading, else the status to
    /// answer at once. Pure, for tests.
    ///
    /// UDA 1.1 §4.3: a NOTIFY must be `NT: upnp:event`, `NTS: upnp:propchange` with a SID; 400 otherwise,
    /// 412 when it is not for our callback path or carries a SID we did not get. Checked from the head,
    /// so a request to a wrong path is refused before any of its body is read.
    static func checkNotifyHead(_ head: HTTPHead, expectedPath: String, acceptsSID: (String) -> Bool = { _ in true })
        -> Int?
    {
        guard head.startLine.first == "NOTIFY" else { return 405 }
        guard head.startLine.count >= 2, head.startLine[1] == expectedPath else { return 412 }
        guard head[header: "NT"] == "upnp:event", head[header: "NTS"] == "upnp:propchange" else { return 400 }
        guard let sid = head[header: "SID"] else { return 400 }
        guard acceptsSID(sid) else { return 412 }
        return nil
    }

    /// What to answer a NOTIFY, and the change it carried. Pure, for tests.
    static func handleNotify(_ request: HTTPMessage, expectedPath: String, acceptsSID: (String) -> Bool = { _ in true })
        -> (status: Int, change: LastChange?)
    {
        if let status = checkNotifyHead(
            HTTPHead(startLine: request.startLine, headers: request.headers),
            expectedPath: expectedPath, acceptsSID: acceptsSID)
        {
            return (status, nil)
        }
        guard var change = try? LastChange.parse(propertySet: request.body) else { return (400, nil) }
        // UDA 1.1 §4.2: the initial event of a subscription carries SEQ 0 — the device's state, not a change.
        change.isInitial = request[header: "SEQ"].map { $0.trimmingSpaces() == "0" } ?? false
        change.sid = request[header: "SID"]
        change.seq = request[header: "SEQ"].flatMap { text in
            let digits = text.trimmingSpaces()
            return digits.count <= 10 && digits.allSatisfy(\.isASCIIDigit) ? UInt32(digits) : nil
        }
        return (200, change)
    }
}

/// A tiny HTTP server that receives GENA NOTIFY requests on a path only this listener knows.
///
/// Hardened against anyone on the LAN (docs/security.md): it listens only on the
/// address that reaches the device (not `0.0.0.0`), checks method, path and SID from the head and answers
/// at once when they are wrong, gives each connection ``connectionDeadline`` seconds in all (head 16 KiB,
/// body 64 KiB), and serves up to ``maxConnections`` connections at the same time — further ones are
/// closed unread — so a slow or endless request delays nobody else.
final class GENAListener: Sendable {
    /// The most connections served at the same time.
    static let maxConnections = 16
    /// The longest head of a NOTIFY, in bytes.
    static let maxHeadBytes = 16_384
    /// The longest body of a NOTIFY, in bytes.
    static let maxBodyBytes = 65_536

    let port: UInt16
    let path: String
    /// The address it listens on.
    let host: String
    /// Seconds one connection may take from accept to the answer.
    let connectionDeadline: TimeInterval
    private let socket: Socket
    private let stopped = Locked(false)
    private let active = Locked(0)
    private let sids = Locked((known: [String](), opening: 0))
    private let onChange: @Sendable (LastChange) -> Void

    /// Listens on `host` (an IPv4 or IPv6 literal: the local address that reaches the device).
    init(host: String, connectionDeadline: TimeInterval = 2, onChange: @escaping @Sendable (LastChange) -> Void) throws
    {
        let isV6 = host.contains(":")
        let fd = Socket.open(family: isV6 ? AF_INET6 : AF_INET, type: Socket.streamType)
        guard fd >= 0 else { throw RemoteVolumeError.unreachable(Socket.lastError) }
        socket = Socket(fd: fd)
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        let bound: Bool
        if isV6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            let literal = host.split(separator: "%").first.map(String.init) ?? host
            guard inet_pton(AF_INET6, literal, &address.sin6_addr) == 1 else {
                throw RemoteVolumeError.unreachable("cannot listen for events on \(PeerText.clean(host, limit: 64))")
            }
            if let zone = host.split(separator: "%").dropFirst().first {
                address.sin6_scope_id = if_nametoindex(String(zone))
            }
            bound = socket.bindAddress(address)
        } else {
            guard let address = Socket.ipv4Address(host: host, port: 0) else {
                throw RemoteVolumeError.unreachable("cannot listen for events on \(PeerText.clean(host, limit: 64))")
            }
            bound = socket.bindAddress(address)
        }
        guard bound, listen(fd, 32) == 0, let local = socket.localEndpoint() else {
            throw RemoteVolumeError.unreachable("cannot listen for events: \(Socket.lastError)")
        }
        port = local.port
        self.host = local.host
        self.connectionDeadline = connectionDeadline
        path = "/volumekit/events/\(UUID().uuidString.lowercased())"
        self.onChange = onChange
    }

    func start() {
        DetachedThread.run(named: "VolumeKit GENA listener") { [self] in serve() }
    }

    func stop() {
        stopped.withLock { $0 = true }
    }

    /// A SUBSCRIBE is about to be sent: until ``subscribed(sid:)`` any SID is accepted (the device may send
    /// its initial event before we read its reply).
    func subscribing() {
        sids.withLock { $0.opening += 1 }
    }

    /// A SUBSCRIBE ended; `sid` is the one granted (`nil` if it failed). The last 4 SIDs stay accepted.
    func subscribed(sid: String?) {
        sids.withLock { state in
            state.opening = max(0, state.opening - 1)
            if let sid, !state.known.contains(sid) {
                state.known.append(sid)
                if state.known.count > 4 { state.known.removeFirst() }
            }
        }
    }

    private func accepts(_ sid: String) -> Bool {
        let state = sids.current
        return state.opening > 0 || state.known.isEmpty || state.known.contains(sid)
    }

    private func serve() {
        socket.serve(until: stopped) {
            let client = accept(socket.fd, nil, nil)
            guard client >= 0 else { return }
            let connection = Socket(fd: client)
            let admitted = active.withLock { count -> Bool in
                guard count < Self.maxConnections else { return false }
                count += 1
                return true
            }
            guard admitted else {
                connection.close()
                return
            }
            DetachedThread.run(named: "VolumeKit GENA connection") { [self] in
                serveOne(connection)
                connection.close()
                active.withLock { $0 -= 1 }
            }
        }
    }

    private func serveOne(_ connection: Socket) {
        let deadline = Deadline(in: connectionDeadline)
        var reader = HTTPMessageReader(kind: .request, maxHeadBytes: Self.maxHeadBytes, maxBodyBytes: Self.maxBodyBytes)
        var message: HTTPMessage?
        var status: Int?
        do {
            while message == nil && status == nil {
                let chunk = try connection.receive(deadline: deadline)
                message = chunk.isEmpty ? try reader.finish() : try reader.append(chunk)
                if let head = reader.head {
                    status = GENA.checkNotifyHead(head, expectedPath: path, acceptsSID: accepts)
                }
            }
        } catch RemoteVolumeError.replyTooLarge {
            status = 413
        } catch RemoteVolumeError.timedOut {
            status = 408
        } catch {
            status = 400
        }
        if status == nil, let message {
            let handled = GENA.handleNotify(message, expectedPath: path, acceptsSID: accepts)
            status = handled.status
            if let change = handled.change { onChange(change) }
        }
        let code = status ?? 400
        let reason =
            [
                200: "OK", 400: "Bad Request", 405: "Method Not Allowed", 408: "Request Timeout",
                412: "Precondition Failed",
                413: "Payload Too Large",
            ][code] ?? "Error"
        let reply = "HTTP/1.1 \(code) \(reason)\r\nCONTENT-LENGTH: 0\r\nCONNECTION: close\r\n\r\n"
        try? connection.sendAll(Data(reply.utf8), deadline: Deadline(in: min(1, connectionDeadline)))
    }
}
