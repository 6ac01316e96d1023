#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation
import VolumeKitCore

/// GENA eventing (UDA 1.1 §4): subscribe, renew and unsubscribe requests.
enum GENA {
    /// A granted subscription.
    struct Subscription: Sendable, Equatable {
        var sid: String
        /// Seconds until it lapses unless renewed.
        var timeout: Int
    }

    /// Reads the granted SID and timeout from a SUBSCRIBE reply.
    static func parseSubscribeReply(_ reply: HTTPMessage) throws -> Subscription {
        let status = reply.status ?? 0
        guard status == 200 else { throw RemoteVolumeError.httpStatus(status) }
        guard let sid = reply[header: "SID"], !sid.isEmpty, sid.count <= 256 else {
            throw RemoteVolumeError.invalidReply("SUBSCRIBE reply without SID")
        }
        var timeout = 1800  // UDA 1.1 §4.1.2: "Second-infinite" is deprecated; treat it and absence as 30 min.
        if let text = reply[header: "TIMEOUT"]?.lowercased(), text.hasPrefix("second-"), let seconds = Int(text.dropFirst(7)) {
            timeout = max(1, seconds)
        }
        return Subscription(sid: sid, timeout: timeout)
    }

    static func subscribe(_ url: URL, callback: String, timeout: Int, requestTimeout: TimeInterval) async throws -> Subscription {
        let reply = try await HTTPClient.send(method: "SUBSCRIBE", url: url, headers: [
            ("CALLBACK", "<\(callback)>"), ("NT", "upnp:event"), ("TIMEOUT", "Second-\(timeout)"),
        ], timeout: requestTimeout, maxBodyBytes: 4096)
        return try parseSubscribeReply(reply.message)
    }

    static func renew(_ url: URL, sid: String, timeout: Int, requestTimeout: TimeInterval) async throws -> Subscription {
        let reply = try await HTTPClient.send(method: "SUBSCRIBE", url: url, headers: [
            ("SID", sid), ("TIMEOUT", "Second-\(timeout)"),
        ], timeout: requestTimeout, maxBodyBytes: 4096)
        return try parseSubscribeReply(reply.message)
    }

    static func unsubscribe(_ url: URL, sid: String, requestTimeout: TimeInterval) async throws {
        let reply = try await HTTPClient.send(method: "UNSUBSCRIBE", url: url, headers: [("SID", sid)],
                                              timeout: requestTimeout, maxBodyBytes: 4096)
        guard reply.status == 200 else { throw RemoteVolumeError.httpStatus(reply.status) }
    }

    /// What to answer a NOTIFY, and the change it carried. Pure, for tests.
    ///
    /// UDA 1.1 §4.3: a NOTIFY must be `NT: upnp:event`, `NTS: upnp:propchange` with a SID; 400 otherwise,
    /// 412 when it is not for our callback path.
    static func handleNotify(_ request: HTTPMessage, expectedPath: String) -> (status: Int, change: LastChange?) {
        guard request.startLine.first == "NOTIFY" else { return (405, nil) }
        guard request.startLine.count >= 2, request.startLine[1] == expectedPath else { return (412, nil) }
        guard request[header: "NT"] == "upnp:event", request[header: "NTS"] == "upnp:propchange",
              request[header: "SID"] != nil else { return (400, nil) }
        guard let change = try? LastChange.parse(propertySet: request.body) else { return (400, nil) }
        return (200, change)
    }
}

/// A tiny HTTP server that receives GENA NOTIFY requests on a path only this listener knows.
///
/// Each connection is served with a 2 s deadline, a 16 KiB head and a 64 KiB body limit; one at a time.
final class GENAListener: Sendable {
    let port: UInt16
    let path: String
    private let socket: Socket
    private let stopped = Locked(false)
    private let onChange: @Sendable (LastChange) -> Void

    init(onChange: @escaping @Sendable (LastChange) -> Void) throws {
        let fd = Socket.open(family: AF_INET, type: Socket.streamType)
        guard fd >= 0 else { throw RemoteVolumeError.unreachable(Socket.lastError) }
        socket = Socket(fd: fd)
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = INADDR_ANY
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0, let local = socket.localEndpoint() else {
            throw RemoteVolumeError.unreachable("cannot listen for events: \(Socket.lastError)")
        }
        port = local.port
        path = "/volumekit/events/\(UUID().uuidString.lowercased())"
        self.onChange = onChange
    }

    func start() {
        let thread = Thread { [self] in self.serve() }
        thread.name = "VolumeKit GENA listener"
        thread.start()
    }

    func stop() {
        stopped.withLock { $0 = true }
    }

    private func serve() {
        while !stopped.current {
            guard (try? socket.wait(until: Deadline(in: 0.25))) != nil else { continue }
            let client = accept(socket.fd, nil, nil)
            guard client >= 0 else { continue }
            let connection = Socket(fd: client)
            serveOne(connection)
            connection.close()
        }
        socket.close()
    }

    private func serveOne(_ connection: Socket) {
        let deadline = Deadline(in: 2)
        var reader = HTTPMessageReader(kind: .request, maxHeadBytes: 16_384, maxBodyBytes: 65_536)
        var message: HTTPMessage?
        var status = 400
        do {
            while message == nil {
                let chunk = try connection.receive(deadline: deadline)
                message = chunk.isEmpty ? try reader.finish() : try reader.append(chunk)
            }
        } catch RemoteVolumeError.replyTooLarge {
            status = 413
        } catch {
            status = 400
        }
        if let message {
            let handled = GENA.handleNotify(message, expectedPath: path)
            status = handled.status
            if let change = handled.change { onChange(change) }
        }
        let reason = [200: "OK", 400: "Bad Request", 405: "Method Not Allowed", 412: "Precondition Failed", 413: "Payload Too Large"][status] ?? "Error"
        let reply = "HTTP/1.1 \(status) \(reason)\r\nCONTENT-LENGTH: 0\r\nCONNECTION: close\r\n\r\n"
        try? connection.sendAll(Data(reply.utf8), deadline: deadline)
    }
}
