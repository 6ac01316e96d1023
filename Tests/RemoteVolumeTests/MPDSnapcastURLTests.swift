import Foundation
import Testing

@testable import RemoteVolume

@Suite("Remote device URLs")
struct RemoteDeviceURLTests {
    @Test(
        "the accepted forms parse to the device they name",
        arguments: [
            ("mpd://127.0.0.1", RemoteDeviceURL.mpd(host: "127.0.0.1", port: 6600, password: nil)),
            ("mpd://secret@moode.local:6601", .mpd(host: "moode.local", port: 6601, password: "secret")),
            ("mpd://p%40ss%20word@host/", .mpd(host: "host", port: 6600, password: "p@ss word")),
            ("MPD://[::1]:6600", .mpd(host: "::1", port: 6600, password: nil)),
            (
                "snapcast://snap.local/00:11:22:33:44:55",
                .snapcastClient(host: "snap.local", port: 1705, clientID: "00:11:22:33:44:55")
            ),
            (
                "snapcast://127.0.0.1:17705/vk-client-2#2",
                .snapcastClient(host: "127.0.0.1", port: 17705, clientID: "vk-client-2#2")
            ),
            (
                "snapcast://127.0.0.1/vk-client-2%232",
                .snapcastClient(host: "127.0.0.1", port: 1705, clientID: "vk-client-2#2")
            ),
            (
                "snapcast://h/group/4dcc4e3b-c699-a04b-7f0c-8260d23c43e1",
                .snapcastGroup(host: "h", port: 1705, groupID: "4dcc4e3b-c699-a04b-7f0c-8260d23c43e1")
            ),
            (
                " http://10.77.0.1:49494/description.xml\n",
                .upnp(URL(string: "http://10.77.0.1:49494/description.xml")!)
            ),
        ])
    func parses(_ text: String, _ expected: RemoteDeviceURL) throws {
        #expect(try RemoteDeviceURL.parse(text) == expected)
    }

    @Test(
        "anything else is one line that names the accepted forms",
        arguments: [
            "ftp://host/x", "mpd://", "mpd://host/music", "mpd://host:99999", "mpd://a:b@host", "mpd://host?x=1",
            "snapcast://host", "snapcast://host/", "snapcast://host/group/", "snapcast://host/a/b",
            "snapcast://u@host/id",
            "volume up", "", "http:///nohost", "\u{1B}[2Jmpd://x",
        ])
    func refuses(_ text: String) {
        do {
            _ = try RemoteDeviceURL.parse(text)
            Issue.record("accepted \(text)")
        } catch let error as RemoteVolumeError {
            guard case .invalidURL(let message) = error else { Issue.record("\(error)"); return }
            #expect(message.contains(RemoteDeviceURL.acceptedForms))
            #expect(!message.contains("\n") && !message.contains("\u{1B}"))
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test(
        "mpd:// and snapcast:// are read without Foundation as URLComponents read them",
        arguments: [
            ("mpd://a@b@c", RemoteDeviceURL.mpd(host: "c", port: 6600, password: "a@b")),
            ("mpd://%zz@h", .mpd(host: "h", port: 6600, password: "%zz")),
            ("mpd://p<w%41@h", .mpd(host: "h", port: 6600, password: "p<w%41")),
            ("mpd://%C3%BC@h:", .mpd(host: "h", port: 6600, password: "ü")),
            ("snapcast://h/a#b#c", .snapcastClient(host: "h", port: 1705, clientID: "a#b#c")),
            ("snapcast://h/<a>%20", .snapcastClient(host: "h", port: 1705, clientID: "<a>%20")),
            ("snapcast://h/k%C3%BCche", .snapcastClient(host: "h", port: 1705, clientID: "küche")),
            ("snapcast://[fe80::1%25eth0]:1/k", .snapcastClient(host: "fe80::1%eth0", port: 1, clientID: "k")),
        ])
    func readsLikeURLComponents(_ text: String, _ expected: RemoteDeviceURL) throws {
        #expect(try RemoteDeviceURL.parse(text) == expected)
    }

    @Test(
        "what URLComponents refused is refused, with the reason",
        arguments: [
            ("mpd://%", "not a URL"), ("mpd://h<x", "not a URL"), ("mpd://[::1", "not a URL"),
            ("mpd://host:abc", "not a URL"), ("mpd://host:1234567890123", "port 1234567890123 is out of range"),
            ("mpd://münchen", "a host may hold"), ("mpd:host", "no host"), ("mpd://h%0A%1Bx", "a host may hold"),
            // A query that does not decode was taken for none by URLComponents' decoded getter; it is refused.
            ("snapcast://h/m?%a1", "a query is not part of the form"),
        ])
    func refusesLikeURLComponents(_ text: String, _ reason: String) {
        do {
            _ = try RemoteDeviceURL.parse(text)
            Issue.record("accepted \(text)")
        } catch RemoteVolumeError.invalidURL(let message) {
            #expect(message.contains(reason), "\(message)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test("connect() gives the device the scheme names")
    func connects() async throws {
        let mpd = try FakeMPD()
        let device = try await RemoteDeviceURL.parse("mpd://127.0.0.1:\(mpd.port)").connect(requestTimeout: 1)
        #expect(device is MPDDevice)
        #expect(device.displayName == "MPD at 127.0.0.1:\(mpd.port)")
        let snap = try FakeSnapserver(clients: [("kitchen", 5)])
        let client = try await RemoteDeviceURL.parse("snapcast://127.0.0.1:\(snap.port)/kitchen").connect(
            requestTimeout: 1)
        #expect(try await client.volume() == 5)
        let group = try await RemoteDeviceURL.parse("snapcast://127.0.0.1:\(snap.port)/group/g1").connect(
            requestTimeout: 1)
        #expect(group is SnapcastGroup)
        #expect(try await group.volume() == 5)
    }

    @Test("peer text shows control characters and bidi overrides as escapes, and is cut")
    func peerText() {
        #expect(PeerText.clean("ok\u{1B}[31m\u{07}\u{202E}x") == #"ok\u{1B}[31m\u{7}\u{202E}x"#)
        #expect(PeerText.clean(String(repeating: "a", count: 500)) == String(repeating: "a", count: 256) + "…")
        #expect(PeerText.clean("Küche 🔊") == "Küche 🔊")
    }
}
