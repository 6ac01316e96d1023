import Foundation
import Testing

@testable import RemoteVolume

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-shot TCP server on 127.0.0.1 that answers each connection with the next canned reply
/// (or says nothing, to test deadlines). Loopback only.
final class CannedServer: Sendable {
    let port: UInt16
    init(replies: [Data?]) throws {
        let fd = socket(AF_INET, Socket.streamType, 0)
        port = try bindLoopback(fd, "the canned server")
        guard listen(fd, 4) == 0 else { throw RemoteVolumeError.unreachable("the canned server cannot listen") }
        let listener = fd
        Thread {
            for reply in replies {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                var buffer = [UInt8](repeating: 0, count: 65536)
                _ = recv(client, &buffer, buffer.count, 0)
                if let reply {
                    _ = reply.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    close(client)
                } else {
                    Thread.sleep(forTimeInterval: 1)  // Says nothing; the client's deadline must fire first.
                    close(client)
                }
            }
            close(listener)
        }.start()
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/desc.xml")! }

    static func ok(_ body: Data, extra: String = "") -> Data {
        Data("HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: \(body.count)\r\n\(extra)\r\n".utf8) + body
    }
}

@Suite("UPnP over loopback")
struct LoopbackHTTPTests {
    @Test("a renderer is connected and driven through description, SCPD and SOAP")
    func rendererRoundTrip() async throws {
        let desc = String(decoding: Canned.description(), as: UTF8.self)
        let server = try CannedServer(replies: [
            CannedServer.ok(Data(desc.utf8)), CannedServer.ok(Canned.scpd()), CannedServer.ok(Canned.getVolumeReply),
            Data("HTTP/1.1 500 Internal Server Error\r\nContent-Length: \(Canned.fault.count)\r\n\r\n".utf8)
                + Canned.fault,
        ])
        let renderer = try await UPnPRenderer.connect(to: server.url, requestTimeout: 2)
        #expect(renderer.volumeRange == 0...60)
        #expect(renderer.displayName == "Living Room & Kitchen")
        // The canned description points at 10.0.0.5; aim SOAP at the loopback server instead.
        var description = renderer.description
        description.controlURL = URL(string: "http://127.0.0.1:\(server.port)/upnp/control/rc1")!
        let local = UPnPRenderer(
            location: server.url, description: description, volumeRange: renderer.volumeRange, requestTimeout: 2)
        #expect(try await local.volume() == 42)
        await #expect(throws: RemoteVolumeError.upnp(code: 402, description: "Invalid Args")) {
            try await local.setVolume(10)
        }
    }

    @Test("a huge body is cut off at the cap")
    func hugeBody() async throws {
        let server = try CannedServer(replies: [
            Data("HTTP/1.1 200 OK\r\n\r\n".utf8) + Data(repeating: 0x3C, count: 300_000)
        ])
        await #expect(throws: RemoteVolumeError.replyTooLarge(limit: 65_536)) {
            _ = try await HTTPClient.get(server.url, timeout: 2, maxBodyBytes: 65_536)
        }
    }

    @Test("a device that never answers fails with timedOut, not a hang")
    func silentDevice() async throws {
        let server = try CannedServer(replies: [nil])
        await #expect(throws: RemoteVolumeError.timedOut) {
            _ = try await HTTPClient.get(server.url, timeout: 0.2)
        }
    }

    @Test("a refused connection is unreachable; a non-http location is refused without I/O")
    func refusedAndBadURL() async throws {
        let server = try CannedServer(replies: [])  // Closes its socket at once.
        let closedPort = server.port
        try await Task.sleep(nanoseconds: 0)
        await #expect(throws: RemoteVolumeError.self) {
            _ = try await HTTPClient.get(URL(string: "http://127.0.0.1:\(closedPort)/")!, timeout: 1)
        }
        await #expect(throws: RemoteVolumeError.invalidURL("file:///etc/passwd")) {
            _ = try await UPnPRenderer.connect(to: URL(string: "file:///etc/passwd")!)
        }
    }

    @Test("NOTIFY requests reach the listener over loopback and bad ones are refused")
    func genaListener() async throws {
        let (changes, continuation) = AsyncStream<LastChange>.makeStream()
        let listener = try GENAListener(host: "127.0.0.1") { continuation.yield($0) }
        listener.start()
        defer { listener.stop() }
        let url = URL(string: "http://127.0.0.1:\(listener.port)\(listener.path)")!
        let headers = [
            ("NT", "upnp:event"), ("NTS", "upnp:propchange"), ("SID", "uuid:s1"), ("SEQ", "0"),
            ("CONTENT-TYPE", "text/xml"),
        ]
        let wrongPath = try await HTTPClient.send(
            method: "NOTIFY", url: URL(string: "http://127.0.0.1:\(listener.port)/guess")!,
            headers: headers, body: Canned.notify(volume: 1, mute: 0), timeout: 2)
        #expect(wrongPath.status == 412)
        let good = try await HTTPClient.send(
            method: "NOTIFY", url: url, headers: headers, body: Canned.notify(volume: 55, mute: 1), timeout: 2)
        #expect(good.status == 200)
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next() == LastChange(volume: 55, muted: true, isInitial: true, sid: "uuid:s1", seq: 0))
    }
}
