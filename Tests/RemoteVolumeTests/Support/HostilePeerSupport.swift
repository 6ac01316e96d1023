import Dispatch
import Foundation
import VolumeKitCore

@testable import RemoteVolume

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One accepted connection of a ``HostilePeer``: raw reads and writes, nothing checked.
struct PeerConnection: Sendable {
    let fd: Int32

    /// Reads one request (head, plus a Content-Length body) or whatever arrives within `seconds`, at most 1 MiB.
    func readRequest(seconds: Double = 2) -> Data {
        var received = Data()
        let end = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while received.count < 1 << 20, DispatchTime.now().uptimeNanoseconds < end {
            if let head = received.range(of: Data("\r\n\r\n".utf8)) {
                let text = String(decoding: received[..<head.lowerBound], as: UTF8.self).lowercased()
                let length =
                    text.components(separatedBy: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) } ?? 0
                if received.count - head.upperBound >= length { break }
            }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 50) > 0 else { continue }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        return received
    }

    /// Writes all of `data`; `false` once the other side is gone.
    @discardableResult
    func write(_ data: Data) -> Bool {
        var offset = 0
        while offset < data.count {
            let sent = data.withUnsafeBytes {
                send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    @discardableResult
    func write(_ text: String) -> Bool { write(Data(text.utf8)) }
}

/// A hostile HTTP peer on 127.0.0.1 (loopback only): every connection is handed to `handler` on its own
/// thread; what each connection sent first is recorded. ``stop()`` ends the accept loop.
final class HostilePeer: Sendable {
    let port: UInt16
    private let listener: Int32
    private let stopped = Locked(false)
    /// The first request read on each connection, when the handler used ``PeerConnection/readRequest(seconds:)``
    /// through ``record(_:)``.
    let requests = Locked<[Data]>([])

    init(handler: @escaping @Sendable (HostilePeer, PeerConnection) -> Void) throws {
        let listener = socket(AF_INET, Socket.streamType, 0)
        self.listener = listener
        var on: Int32 = 1
        _ = setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        port = try bindLoopback(listener, "the test peer")
        guard listen(listener, 64) == 0 else { throw RemoteVolumeError.unreachable("test peer cannot listen") }
        let fd = listener
        Thread { [self] in
            while !self.stopped.current {
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 50) > 0 else { continue }
                let client = accept(fd, nil, nil)
                guard client >= 0 else { continue }
                Thread {
                    handler(self, PeerConnection(fd: client))
                    close(client)
                }.start()
            }
            close(fd)
        }.start()
    }

    /// Reads a request on `connection` and records it.
    @discardableResult
    func record(_ connection: PeerConnection) -> Data {
        let request = connection.readRequest()
        requests.withLock { $0.append(request) }
        return request
    }

    func stop() { stopped.withLock { $0 = true } }

    func url(_ path: String = "/desc.xml") -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// A complete 200 response with `body`.
    static func ok(_ body: Data, extra: String = "") -> Data {
        Data(
            "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: \(body.count)\r\n\(extra)Connection: close\r\n\r\n"
                .utf8) + body
    }

    /// A SOAP reply for `action` with `arguments`.
    static func soap(_ action: String, _ arguments: String) -> Data {
        ok(
            Data(
                """
                <?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>\
                <u:\(action)Response xmlns:u="urn:schemas-upnp-org:service:RenderingControl:1">\(arguments)</u:\(action)Response>\
                </s:Body></s:Envelope>
                """.utf8))
    }
}

/// A renderer whose control and event URLs point at `peer` (no I/O: the description is parsed locally).
func renderer(
    at peer: HostilePeer, control: String = "/ctl", range: ClosedRange<Int> = 0...100, timeout: TimeInterval = 0.5
) throws -> UPnPRenderer {
    let description = try UPnPDeviceDescription.parse(
        Canned.description(
            control: "http://127.0.0.1:\(peer.port)\(control)", event: "http://127.0.0.1:\(peer.port)/evt"),
        location: peer.url())
    return UPnPRenderer(location: peer.url(), description: description, volumeRange: range, requestTimeout: timeout)
}

/// Runs `work` and returns its error and the seconds it took; the error is `nil` when it succeeded.
func timed(_ work: () async throws -> Void) async -> (error: (any Error)?, seconds: Double) {
    let start = DispatchTime.now().uptimeNanoseconds
    var failure: (any Error)?
    do { try await work() } catch { failure = error }
    return (failure, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
}
