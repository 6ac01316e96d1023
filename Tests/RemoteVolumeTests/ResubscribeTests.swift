import Foundation
import Testing
import VolumeKitCore

@testable import RemoteVolume

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A renderer on 127.0.0.1 that can "restart": SOAP GetVolume/GetMute, GENA SUBSCRIBE (a renewal of a SID
/// from an earlier boot is refused with 412, as a restarted device does) and NOTIFY to the callback.
final class RestartingRenderer: Sendable {
    struct State: Sendable {
        var volume = 40
        var muted = true
        var boot = 1
        var sids: [String] = []
        var subscribes = 0
        var renewals = 0
        var callback: URL?
    }

    let state: Locked<State>
    let peer: HostilePeer

    init() throws {
        let state = Locked(State())
        self.state = state
        peer = try HostilePeer { _, connection in
            let request = String(decoding: connection.readRequest(), as: UTF8.self)
            let lines = request.components(separatedBy: "\r\n")
            let start = lines.first ?? ""
            func header(_ name: String) -> String? {
                lines.first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
                    .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
            }
            if start.hasPrefix("SUBSCRIBE") {
                let reply = state.withLock { state -> String in
                    if let sid = header("SID") {
                        guard state.sids.contains(sid) else {
                            return "HTTP/1.1 412 Precondition Failed\r\nContent-Length: 0\r\n\r\n"
                        }
                        state.renewals += 1
                        return "HTTP/1.1 200 OK\r\nSID: \(sid)\r\nTIMEOUT: Second-300\r\nContent-Length: 0\r\n\r\n"
                    }
                    state.subscribes += 1
                    let sid = "uuid:boot\(state.boot)-\(state.subscribes)"
                    state.sids.append(sid)
                    state.callback = header("CALLBACK").flatMap { URL(string: String($0.dropFirst().dropLast())) }
                    return "HTTP/1.1 200 OK\r\nSID: \(sid)\r\nTIMEOUT: Second-300\r\nContent-Length: 0\r\n\r\n"
                }
                connection.write(reply)
            } else if start.hasPrefix("UNSUBSCRIBE") {
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
            } else if request.contains("#GetVolume") {
                connection.write(
                    HostilePeer.soap("GetVolume", "<CurrentVolume>\(state.current.volume)</CurrentVolume>"))
            } else if request.contains("#GetMute") {
                connection.write(
                    HostilePeer.soap("GetMute", "<CurrentMute>\(state.current.muted ? 1 : 0)</CurrentMute>"))
            } else {
                connection.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            }
        }
    }

    deinit { peer.stop() }

    /// Forgets every subscription and comes back at `volume` / `muted`.
    func restart(volume: Int, muted: Bool) {
        state.withLock { state in
            state.boot += 1
            state.sids.removeAll()
            state.volume = volume
            state.muted = muted
        }
    }

    /// Sends a NOTIFY for the latest subscription with `seq`.
    func notify(volume: Int, seq: Int) async throws {
        let (callback, sid) = state.withLock { ($0.callback, $0.sids.last) }
        let url = try #require(callback)
        let reply = try await HTTPClient.send(
            method: "NOTIFY", url: url,
            headers: [
                ("NT", "upnp:event"), ("NTS", "upnp:propchange"), ("SID", try #require(sid)), ("SEQ", String(seq)),
                ("CONTENT-TYPE", "text/xml"),
            ], body: Canned.notify(volume: volume, mute: 0), timeout: 2)
        #expect(reply.status == 200)
    }
}

/// A UDP port on 127.0.0.1 that was free a moment ago.
func freeUDPPort() throws -> UInt16 {
    let fd = socket(AF_INET, Socket.datagramType, 0)
    defer { close(fd) }
    return try bindLoopback(fd, "a UDP probe")
}

/// Sends SSDP NOTIFY datagrams to 127.0.0.1:`port`.
struct AnnouncementSender {
    let port: UInt16
    private let fd = socket(AF_INET, Socket.datagramType, 0)

    init(port: UInt16) { self.port = port }

    func send(_ text: String) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let data = Data(text.utf8)
        _ = data.withUnsafeBytes { raw in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    func finish() { close(fd) }

    static func notify(_ nts: String, usn: String, bootHeader: String = "") -> String {
        "NOTIFY * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nCACHE-CONTROL: max-age=100\r\n"
            + "LOCATION: http://127.0.0.1:1/desc.xml\r\nNT: upnp:rootdevice\r\nNTS: \(nts)\r\n\(bootHeader)USN: \(usn)\r\n\r\n"
    }
}

@Suite("UPnP notices a device coming back (issue 15, item 2)", .serialized)
struct ResubscribeTests {
    @Test(
        "announcements are parsed with their boot id (BOOTID.UPNP.ORG, or libupnp's 01-NLS); anything else is not one")
    func parsesAnnouncements() {
        let alive = SSDPAnnouncement.parse(
            Data(
                AnnouncementSender.notify(
                    "ssdp:alive", usn: "uuid:ABC::upnp:rootdevice",
                    bootHeader: "BOOTID.UPNP.ORG: 7\r\n"
                ).utf8))
        #expect(alive == SSDPAnnouncement(kind: .alive, usn: "uuid:ABC::upnp:rootdevice", bootID: "7"))
        #expect(alive?.udn == "uuid:abc")
        let libupnp = SSDPAnnouncement.parse(
            Data(
                AnnouncementSender.notify(
                    "ssdp:byebye", usn: "uuid:abc",
                    bootHeader: "01-NLS: b5f3\r\n"
                ).utf8))
        #expect(libupnp?.kind == .byebye)
        #expect(libupnp?.bootID == "b5f3")
        #expect(SSDPAnnouncement.parse(Data("HTTP/1.1 200 OK\r\nUSN: uuid:abc\r\n\r\n".utf8)) == nil, "a search answer")
        #expect(SSDPAnnouncement.parse(Data(AnnouncementSender.notify("ssdp:other", usn: "uuid:abc").utf8)) == nil)
        #expect(
            SSDPAnnouncement.parse(Data(AnnouncementSender.notify("ssdp:alive", usn: "uuid:a\u{1B}[2J").utf8)) == nil)
        let huge = AnnouncementSender.notify("ssdp:alive", usn: "uuid:abc") + String(repeating: "X", count: 9000)
        #expect(SSDPAnnouncement.parse(Data(huge.utf8)) == nil, "larger than the datagram cap")
    }

    @Test("only the followed device's goodbye-then-alive or new boot id counts as a restart")
    func presenceVerdicts() {
        func alive(_ usn: String, boot: String? = nil) -> SSDPAnnouncement {
            .init(kind: .alive, usn: usn, bootID: boot)
        }
        var presence = DevicePresence(udn: "uuid:ABC")
        #expect(presence.note(alive("uuid:other::upnp:rootdevice", boot: "1")) == .none)
        #expect(presence.note(SSDPAnnouncement(kind: .byebye, usn: "uuid:other")) == .none)
        #expect(
            presence.note(alive("uuid:abc::upnp:rootdevice", boot: "1")) == .check, "first boot id seen: cannot tell")
        #expect(presence.note(alive("uuid:abc::urn:schemas-upnp-org:device:MediaRenderer:1", boot: "1")) == .none)
        #expect(presence.note(alive("uuid:abc", boot: "2")) == .restarted)
        #expect(presence.note(SSDPAnnouncement(kind: .byebye, usn: "uuid:abc")) == .none)
        #expect(presence.note(alive("uuid:abc", boot: "2")) == .restarted, "back after a goodbye")
        #expect(presence.note(alive("uuid:abc")) == .check, "no boot id: cannot tell")
        #expect(presence.note(SSDPAnnouncement(kind: .update, usn: "uuid:abc", nextBootID: "3")) == .none)
        #expect(presence.note(alive("uuid:abc", boot: "3")) == .none, "the boot id ssdp:update announced")
    }

    @Test("event numbers: in order, a gap (missed events), a late repeat, and the wrap from 4294967295 to 1")
    func sequenceVerdicts() {
        var sequence = EventSequence()
        #expect(sequence.note(sid: "s1", seq: 5) == .inOrder, "not our subscription: not checked")
        sequence.subscribed("s1")
        #expect(sequence.note(sid: "s1", seq: 0) == .inOrder)
        #expect(sequence.note(sid: "s1", seq: 1) == .inOrder)
        #expect(sequence.note(sid: "s1", seq: 4) == .gap)
        #expect(sequence.note(sid: "s1", seq: 3) == .stale)
        #expect(sequence.note(sid: "s1", seq: 5) == .inOrder)
        #expect(sequence.note(sid: "s1", seq: nil) == .inOrder)
        sequence.subscribed("s2")
        #expect(sequence.note(sid: "s2", seq: UInt32.max) == .inOrder)
        #expect(sequence.note(sid: "s2", seq: 1) == .inOrder, "wraps to 1, not 0")
    }

    @Test("a restart announced over SSDP re-subscribes and re-reads at once: the new level and the mute state at once")
    func restartAnnounced() async throws {
        let device = try RestartingRenderer()
        let renderer = try renderer(at: device.peer)
        let port = try freeUDPPort()
        let changes = try #require(try await renderer.changes(announcements: ("127.0.0.1", port)))
        let sender = AnnouncementSender(port: port)
        defer { sender.finish() }
        sender.send(
            AnnouncementSender.notify("ssdp:alive", usn: "uuid:1234::upnp:rootdevice", bootHeader: "01-NLS: boot-1\r\n")
        )
        // That first alive renews (accepted: same boot). Waiting out the 1 s re-subscription limit it started.
        try await Task.sleep(nanoseconds: 1_100_000_000)
        #expect(device.state.current.renewals == 1)
        device.restart(volume: 70, muted: false)
        let sentAt = Date()
        for target in ["upnp:rootdevice", "urn:schemas-upnp-org:device:MediaRenderer:1"] {
            sender.send(
                AnnouncementSender.notify("ssdp:alive", usn: "uuid:1234::\(target)", bootHeader: "01-NLS: boot-2\r\n"))
        }
        // Typically a few ms; loose because this runs beside CPU-heavy flood tests on 2 cores. Before, it
        // waited for the renewal: 150 s.
        let reread = await first(of: changes, within: 2) { $0.volume == 70 }
        #expect(reread == RemoteVolumeChange(volume: 70, muted: false, isInitialState: true))
        #expect(Date().timeIntervalSince(sentAt) < 2)
        #expect(device.state.current.subscribes == 2)
        // Device-side changes are reported again through the new subscription.
        try await device.notify(volume: 75, seq: 1)
        #expect(await first(of: changes, within: 2) { $0.volume == 75 } != nil)
    }

    @Test("a failed renewal after an alive without a boot id re-reads too")
    func aliveWithoutBootID() async throws {
        let device = try RestartingRenderer()
        let renderer = try renderer(at: device.peer)
        let port = try freeUDPPort()
        let changes = try #require(try await renderer.changes(announcements: ("127.0.0.1", port)))
        let sender = AnnouncementSender(port: port)
        defer { sender.finish() }
        device.restart(volume: 12, muted: true)
        sender.send(AnnouncementSender.notify("ssdp:alive", usn: "uuid:1234"))
        #expect(
            await first(of: changes, within: 2) { $0.volume == 12 }
                == RemoteVolumeChange(volume: 12, muted: true, isInitialState: true))
    }

    @Test(
        "other devices' announcements are ignored, and a flood of fake restarts costs at most one re-subscription per interval"
    )
    func floodIsBounded() async throws {
        let device = try RestartingRenderer()
        let renderer = try renderer(at: device.peer)
        let port = try freeUDPPort()
        let changes = try #require(
            try await renderer.changes(announcements: ("127.0.0.1", port), minimumResyncInterval: 1))
        _ = changes
        let sender = AnnouncementSender(port: port)
        defer { sender.finish() }
        for index in 0..<400 {
            sender.send(
                AnnouncementSender.notify(
                    index % 2 == 0 ? "ssdp:byebye" : "ssdp:alive", usn: "uuid:other-\(index)",
                    bootHeader: "BOOTID.UPNP.ORG: \(index)\r\n"))
            if index % 50 == 0 { try await Task.sleep(nanoseconds: 5_000_000) }
        }
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(device.state.current.subscribes == 1)
        #expect(device.state.current.renewals == 0)
        let start = Date()
        for index in 0..<1000 {  // ≈ 0.5 s of restarts with a new boot id each
            sender.send(
                AnnouncementSender.notify("ssdp:alive", usn: "uuid:1234", bootHeader: "BOOTID.UPNP.ORG: \(index)\r\n"))
            if index % 20 == 0 { try await Task.sleep(nanoseconds: 10_000_000) }
        }
        let elapsed = Date().timeIntervalSince(start)
        try await Task.sleep(nanoseconds: 1_500_000_000)
        let state = device.state.current
        let allowed = 1 + Int(elapsed + 1.5) + 1
        #expect(
            state.subscribes + state.renewals <= allowed,
            "\(state.subscribes) subscribes, \(state.renewals) renewals in \(elapsed + 1.5) s")
        #expect(state.subscribes >= 2)
    }

    @Test("a NOTIFY sequence gap re-subscribes and re-reads")
    func sequenceGap() async throws {
        let device = try RestartingRenderer()
        let renderer = try renderer(at: device.peer)
        let changes = try #require(try await renderer.changes(announcements: nil))
        try await device.notify(volume: 40, seq: 0)
        try await device.notify(volume: 41, seq: 1)
        #expect(await first(of: changes, within: 2) { $0.volume == 41 } != nil)
        device.state.withLock { $0.volume = 47 }  // Events 2…4 were lost on the way.
        try await device.notify(volume: 45, seq: 5)
        let reread = await first(of: changes, within: 2) { $0.isInitialState && $0.volume == 47 }
        #expect(reread != nil)
        #expect(device.state.current.subscribes == 2)
    }
}
