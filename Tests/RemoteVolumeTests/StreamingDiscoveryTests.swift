import Foundation
import Testing
import VolumeKitCore

@testable import RemoteVolume

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An SSDP responder on 127.0.0.1: answers every M-SEARCH with each scripted answer after its delay.
final class ScriptedSSDPPeer: Sendable {
    let port: UInt16
    private let stopped = Locked(false)
    /// When each answer (by its index in the script) was last sent, on the uptime clock.
    let sentAt = Locked<[Int: UInt64]>([:])

    init(answers: [(delay: Double, text: String)]) throws {
        let fd = socket(AF_INET, Socket.datagramType, 0)
        port = try bindLoopback(fd, "the test SSDP peer")
        let stopped = self.stopped
        let sentAt = self.sentAt
        Thread {
            var buffer = [UInt8](repeating: 0, count: 2048)
            while !stopped.current {
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 20) > 0 else { continue }
                var sender = sockaddr_in()
                var senderLength = socklen_t(MemoryLayout<sockaddr_in>.size)
                let received = withUnsafeMutablePointer(to: &sender) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(fd, &buffer, buffer.count, 0, $0, &senderLength)
                    }
                }
                guard received > 0 else { continue }
                // Answered from a thread of its own (not Dispatch, which the flood tests beside it keep busy).
                let to = sender
                Thread {
                    let start = DispatchTime.now().uptimeNanoseconds
                    for (index, answer) in answers.enumerated().sorted(by: { $0.element.delay < $1.element.delay }) {
                        let due = start + UInt64(answer.delay * 1e9)
                        let now = DispatchTime.now().uptimeNanoseconds
                        if due > now { usleep(UInt32((due - now) / 1000)) }
                        var target = to
                        sentAt.withLock { $0[index] = DispatchTime.now().uptimeNanoseconds }
                        _ = Data(answer.text.utf8).withUnsafeBytes { raw in
                            withUnsafePointer(to: &target) {
                                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                                    sendto(
                                        fd, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)
                                    )
                                }
                            }
                        }
                    }
                }.start()
            }
        }.start()
    }

    deinit { stopped.withLock { $0 = true } }

    static func answer(usn: String, location: String, target: String = "urn:schemas-upnp-org:device:MediaRenderer:1")
        -> String
    {
        "HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=100\r\nST: \(target)\r\nUSN: \(usn)\r\nLOCATION: \(location)\r\n\r\n"
    }
}

/// A description server on 127.0.0.1 (description and SCPD).
func descriptionServer() throws -> HostilePeer {
    try HostilePeer { peer, connection in
        let request = String(decoding: connection.readRequest(), as: UTF8.self)
        if request.hasPrefix("GET /desc.xml") {
            connection.write(HostilePeer.ok(Canned.description(control: "/ctl", event: "/evt")))
        } else if request.hasPrefix("GET /rc.xml") {
            connection.write(HostilePeer.ok(Canned.scpd()))
        } else {
            connection.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
        }
    }
}

@Suite("Discovery streams (issue 15, item 3)", .serialized)
struct StreamingDiscoveryTests {
    @Test("SSDP answers are yielded as they arrive, once per device (USN), not at the timeout")
    func answersStream() async throws {
        let peer = try ScriptedSSDPPeer(answers: [
            (
                0.05,
                ScriptedSSDPPeer.answer(
                    usn: "uuid:fast::urn:schemas-upnp-org:device:MediaRenderer:1", location: "http://127.0.0.1:1/a.xml")
            ),
            (
                0.06,
                ScriptedSSDPPeer.answer(
                    usn: "uuid:FAST::urn:schemas-upnp-org:service:RenderingControl:1",
                    location: "http://127.0.0.1:1/a.xml",
                    target: "urn:schemas-upnp-org:service:RenderingControl:1")
            ),
            (2, ScriptedSSDPPeer.answer(usn: "uuid:slow::upnp:rootdevice", location: "http://127.0.0.1:1/b.xml")),
        ])
        var seen: [(usn: String, at: UInt64)] = []
        let start = DispatchTime.now().uptimeNanoseconds
        for try await answer in try SSDP.answers(
            timeout: 30, interfaceAddress: nil, destination: ("127.0.0.1", peer.port))
        {
            seen.append((answer.usn, DispatchTime.now().uptimeNanoseconds))
            if answer.usn.hasPrefix("uuid:slow") { break }
        }
        #expect(
            seen.map(\.usn) == [
                "uuid:fast::urn:schemas-upnp-org:device:MediaRenderer:1", "uuid:slow::upnp:rootdevice",
            ],
            "each device once, though each search is sent twice and answered per target")
        // A search that collects until its timeout would yield both at 30 s. The bound is loose because the
        // consumer runs on a cooperative pool of 2 threads shared with the whole suite's CPU-heavy sweeps (seen:
        // 2.4 s late, and 9 s in a clean-clone CI run).
        let slowSent = try #require(peer.sentAt.current[2])
        #expect(
            seen[1].at < start + 20_000_000_000,
            "the slow answer (sent at \(Double(slowSent - start) / 1e9) s) came at \(Double(seen[1].at - start) / 1e9) s"
        )
        #expect(seen[0].at <= seen[1].at)
    }

    @Test("renderers are yielded as soon as their description is read; leaving early ends the search")
    func renderersStream() async throws {
        let server = try descriptionServer()
        defer { server.stop() }
        let peer = try ScriptedSSDPPeer(answers: [
            (0.05, ScriptedSSDPPeer.answer(usn: "uuid:1234", location: server.url().absoluteString))
        ])
        let start = Date()
        var first: DiscoveredRenderer?
        for try await item in try UPnPRenderer.discoveries(
            timeout: 10, interfaceAddress: nil, destination: ("127.0.0.1", peer.port))
        {
            first = item
            break
        }
        let elapsed = Date().timeIntervalSince(start)
        #expect(first?.renderer?.displayName == "Living Room & Kitchen")
        // Typically 0.06 s; the bound is loose because flood tests run beside this one on 2 cores.
        #expect(elapsed < 8, "the first renderer came \(elapsed) s after the search (timeout 10 s)")
    }

    @Test("discover(timeout:) still returns every renderer in answer order within its timeout")
    func collectsInOrder() async throws {
        let server = try descriptionServer()
        defer { server.stop() }
        let peer = try ScriptedSSDPPeer(answers: [
            (0.02, ScriptedSSDPPeer.answer(usn: "uuid:one", location: "http://127.0.0.1:1/gone.xml")),
            (0.1, ScriptedSSDPPeer.answer(usn: "uuid:two", location: server.url().absoluteString)),
        ])
        let found = try await UPnPRenderer.discover(
            timeout: 1, interfaceAddress: nil, destination: ("127.0.0.1", peer.port))
        #expect(found.map(\.response.usn) == ["uuid:one", "uuid:two"])
        #expect(found[0].renderer == nil && found[0].error != nil)
        #expect(found[1].renderer != nil)
    }
}
