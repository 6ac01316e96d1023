import Foundation
import Testing
import VolumeKitCore

@testable import RemoteVolume

/// Issue 23, "Remote speakers and the CLI, as a newcomer meets them": one round trip per Snapcast set, MPD's
/// level kept across mute, a truthful mute flag, and messages that name what happened. Loopback peers only.
@Suite("Remote speakers as a newcomer meets them", .serialized)
struct RemoteNewcomerTests {
    @Test("a Snapcast client set is one Client.SetVolume on the wire once the connection knows the client")
    func snapcastOneRoundTrip() async throws {
        let server = try FakeSnapserver(clients: [("kitchen", 30)])
        let client = server.client("kitchen")
        #expect(try await client.volume() == 30)
        server.state.withLock { $0.methods.removeAll() }
        try await client.setVolume(40)
        try await client.setVolume(41)
        try await client.setMuted(true)
        try await client.setVolume(42)
        #expect(server.state.current.methods == Array(repeating: "Client.SetVolume", count: 4))
        #expect(server.state.current.clients["kitchen"]! == (42, true), "the mute was kept")
    }

    @Test("a Snapcast group set is one Client.SetVolume per client it moves once the connection knows the group")
    func snapcastGroupOneRoundTrip() async throws {
        let server = try FakeSnapserver(clients: [("a", 20), ("b", 40)])
        let group = server.group()
        #expect(try await group.volume() == 40)
        server.state.withLock { $0.methods.removeAll() }
        try await group.setVolume(80)
        try await group.setVolume(60)
        #expect(server.state.current.methods == Array(repeating: "Client.SetVolume", count: 4))
        #expect(server.levels() == [30, 60])
        // Another connection moves one room: the command connection hears of it by notification, and the
        // next set takes the new levels as the shape, still without reading the group first. The fake server
        // writes the notification before its reply to the mover (with no Nagle hold), so it has reached the
        // command connection by the time the mover's set returns.
        try await server.client("a").setVolume(60)
        server.state.withLock { $0.methods.removeAll() }
        try await group.setVolume(30)
        #expect(server.state.current.methods == ["Client.SetVolume", "Client.SetVolume"])
        #expect(server.levels() == [30, 30])
    }

    @Test("a mute made by someone else reaches the command connection by notification and is kept by the next set")
    func snapcastMuteFromElsewhere() async throws {
        let server = try FakeSnapserver(clients: [("kitchen", 30)])
        let client = server.client("kitchen")
        try await client.setVolume(35)
        // Another connection: the fake server writes the notification to this one before it replies there.
        try await server.client("kitchen").setMuted(true)
        server.state.withLock { $0.methods.removeAll() }
        try await client.setVolume(36)
        #expect(server.state.current.clients["kitchen"]! == (36, true))
        #expect(server.state.current.methods == ["Client.SetVolume"])
    }

    @Test("an unknown Snapcast client is named as such: the server answered")
    func snapcastUnknownClient() async throws {
        let server = try FakeSnapserver(clients: [("kitchen", 30)])
        let error = await remoteError {
            _ = try await SnapcastClient.connect(host: "127.0.0.1", port: server.port, clientID: "attic")
        }
        let text = error?.description ?? ""
        #expect(text.contains("answered, but has no client \"attic\""), "\(text)")
        #expect(!text.contains("cannot be reached"), "\(text)")
    }

    @Test("a client the server forgets later is still transient, and the message says the server answered")
    func snapcastClientForgotten() async throws {
        let server = try FakeSnapserver(clients: [("kitchen", 30)])
        let client = server.client("kitchen")
        #expect(try await client.volume() == 30)
        server.state.withLock { $0.forgotten = ["kitchen"] }
        let error = try #require(await remoteError { _ = try await client.volume() })
        #expect(error.isTransient, "a restarting server forgets its clients for a moment")
        #expect(
            error.description.contains("answered but does not know the client or group now")
                && error.description.contains("'volumekit remote list snapcast://127.0.0.1:\(server.port)'"),
            "\(error)")
    }

    @Test("at MPD volume 0, a press up ends not muted, even when MPD's own report comes after the stop")
    func mpdMuteFlagAfterUp() async throws {
        let server = try FakeMPD()
        server.state.withLock { $0.volume = 0 }
        let controller = RemoteVolumeController(device: try server.device())
        try await controller.start()
        #expect(await controller.isMuted == true)
        await controller.press(.up)
        await controller.stop()
        #expect(server.state.current.volume == 2)
        #expect(await controller.isMuted == false)
    }

    @Test("the HTTP 500 of a wrong control path does not only say 'starting up'")
    func http500Message() {
        let text = RemoteVolumeError.httpStatus(500).description
        #expect(text.contains("starting up") && text.contains("description URL"), "\(text)")
    }

    // MARK: The CLI

    @Test("remote control names an unknown piped line on stderr and still obeys the known ones")
    func controlNamesUnknownLines() async throws {
        let server = try FakeMPD()
        defer { server.peer.stop() }
        let run = try await CLI.run(
            ["remote", "control", "mpd://127.0.0.1:\(server.port)"], input: "printf 'hello\\033[2J\\nup\\nquit\\n' |")
        #expect(run.status == 0, "\(run.error)")
        #expect(run.error.contains(#"ignored 'hello\u{1B}[2J'"#), "\(run.error)")
        #expect(server.state.current.volume == 52)
    }

    @Test("remote control piped 'up' from MPD volume 0 ends 'volume 2', not 'volume 2, muted'")
    func controlMuteFlag() async throws {
        let server = try FakeMPD()
        defer { server.peer.stop() }
        server.state.withLock { $0.volume = 0 }
        let run = try await CLI.run(
            ["remote", "control", "mpd://127.0.0.1:\(server.port)"], input: "printf 'up\\nquit\\n' |")
        #expect(run.status == 0, "\(run.error)")
        let last = run.output.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasSuffix("volume 2"), "\(run.output)")
    }

    @Test("MPD mute off in a new process restores the level from before mute on (kept in the cache folder)")
    func mpdMuteAcrossProcesses() async throws {
        let server = try FakeMPD()
        defer { server.peer.stop() }
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("vk-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let url = "mpd://127.0.0.1:\(server.port)"
        let environment = "XDG_CACHE_HOME='\(cache.path)'"
        #expect(try await CLI.run(["remote", "set", url, "40"], environment: environment).status == 0)
        let on = try await CLI.run(["remote", "mute", url, "on"], environment: environment)
        #expect(on.status == 0 && on.output.contains("restores 40"), "\(on.output)\(on.error)")
        #expect(server.state.current.volume == 0)
        let off = try await CLI.run(["remote", "mute", url, "off"], environment: environment)
        #expect(off.status == 0, "\(off.error)")
        #expect(server.state.current.volume == 40, "\(off.output)")
        // Without the file, mute off says plainly what it set.
        server.state.withLock { $0.volume = 0 }
        let plain = try await CLI.run(["remote", "mute", url, "off"], environment: environment)
        #expect(plain.output.contains("is not known here, so 20 was set"), "\(plain.output)")
    }

    @Test(
        "remote set snapcast://… is one request line on the wire: a batch of the Client.SetVolume and a Client.GetStatus"
    )
    func cliSnapcastSet() async throws {
        let server = try FakeSnapserver(clients: [("kitchen", 30), ("hall", 10)])
        server.state.withLock { $0.clients["kitchen"]!.muted = true }
        let base = "snapcast://127.0.0.1:\(server.port)"
        let run = try await CLI.run(["remote", "set", "\(base)/kitchen", "40"])
        #expect(run.status == 0 && run.output == "room-kitchen: volume 40\n", "\(run.output)\(run.error)")
        // One line out and one back, on one connection: the set carries the percent alone (snapserver keeps
        // the mute), and the status read in the same batch names the client. Before: a Client.GetStatus for
        // the name and the mute state, then the Client.SetVolume — two round trips.
        #expect(server.state.current.lines.count == 1, "\(server.state.current.lines)")
        #expect(server.state.current.methods == ["Client.SetVolume", "Client.GetStatus"])
        #expect(server.peer.accepted.current == 1)
        #expect(server.state.current.clients["kitchen"]! == (40, true), "the mute was kept")
        server.state.withLock { $0.methods.removeAll() }
        let group = try await CLI.run(["remote", "set", "\(base)/group/g1", "80"])
        #expect(group.status == 0 && group.output == "g1: volume 80\n", "\(group.output)\(group.error)")
        #expect(server.state.current.methods == ["Group.GetStatus", "Client.SetVolume", "Client.SetVolume"])
        #expect(server.levels() == [80, 20])
        // An unknown client: the server answered, and the message says so.
        let unknown = try await CLI.run(["remote", "set", "\(base)/attic", "40"])
        #expect(
            unknown.status == 1 && unknown.error.contains("answered, but has no client \"attic\""), "\(unknown.error)")
        let outside = try await CLI.run(["remote", "set", "\(base)/kitchen", "140"])
        #expect(outside.status == 2 && outside.error.contains("range 0…100; 140 does not"), "\(outside.error)")
    }

    @Test("remote get snapcast://… is one Client.GetStatus; remote get|set mpd://… send no probe first")
    func cliOneRequestReads() async throws {
        let snapserver = try FakeSnapserver(clients: [("kitchen", 30)])
        snapserver.state.withLock { $0.clients["kitchen"]!.muted = true }
        let get = try await CLI.run(["remote", "get", "snapcast://127.0.0.1:\(snapserver.port)/kitchen"])
        #expect(
            get.status == 0 && get.output == "room-kitchen: volume 30 of 0…100, muted\n", "\(get.output)\(get.error)")
        // Before: connect's Client.GetStatus, then one each for the volume and the mute state.
        #expect(snapserver.state.current.methods == ["Client.GetStatus"])
        let mpd = try FakeMPD()
        defer { mpd.peer.stop() }
        let url = "mpd://127.0.0.1:\(mpd.port)"
        let read = try await CLI.run(["remote", "get", url])
        #expect(
            read.status == 0 && read.output == "MPD at 127.0.0.1:\(mpd.port): volume 50 of 0…100\n", "\(read.output)")
        // Before: connect's getvol, then one each for the volume and the mute state.
        #expect(mpd.state.current.commands == ["getvol"])
        mpd.state.withLock { $0.commands.removeAll() }
        let set = try await CLI.run(["remote", "set", url, "40"])
        #expect(set.status == 0 && set.output == "MPD at 127.0.0.1:\(mpd.port): volume 40\n", "\(set.output)")
        #expect(mpd.state.current.commands == ["setvol 40", "getvol"])
    }

    @Test("a usage error never prints the MPD password")
    func cliRedactsPassword() async throws {
        let run = try await CLI.run(["remote", "get", "mpd://hunter2@127.0.0.1:99999"])
        #expect(run.status == 2)
        #expect(!run.error.contains("hunter2") && run.error.contains("mpd://•••@127.0.0.1:99999"), "\(run.error)")
        #expect(run.error.contains("port 99999 is out of range"), "\(run.error)")
    }

    @Test("remote list prints a Snapcast server's groups and clients with the URLs that name them")
    func listSnapcast() async throws {
        let server = try FakeSnapserver(clients: [("kitchen", 30), ("hall#2", 10)])
        let run = try await CLI.run(["remote", "list", "snapcast://127.0.0.1:\(server.port)"])
        #expect(run.status == 0, "\(run.error)")
        let base = "snapcast://127.0.0.1:\(server.port)"
        #expect(
            run.output == """
                \(base)/group/g1\tgroup (no name), 2 clients
                \(base)/kitchen\t  client "room-kitchen", volume 30
                \(base)/hall#2\t  client "room-hall#2", volume 10

                """, "\(run.output)")
        #expect(server.state.current.methods == ["Server.GetStatus"])
        // The printed URL names the client.
        #expect(
            try RemoteDeviceURL.parse("\(base)/hall#2")
                == .snapcastClient(host: "127.0.0.1", port: server.port, clientID: "hall#2"))
        let wrong = try await CLI.run(["remote", "list", "snapcast://127.0.0.1/kitchen"])
        #expect(wrong.status == 2 && wrong.error.contains("host and port alone"), "\(wrong.error)")
    }

    @Test("a hostile Server.GetStatus: names and ids cleaned, an out-of-range percent not believed")
    func listHostile() async throws {
        let peer = try hostileSnapserver { id, connection in
            connection.send(
                #"{"id":\#(id),"jsonrpc":"2.0","result":{"server":{"groups":[{"id":"g\u001b[2J","muted":true,"name":"Living\u0007room","clients":[{"id":"k","connected":false,"config":{"name":"","volume":{"percent":140,"muted":true}},"host":{"name":"vm\u202e"}}]}]}}}"#
                    + "\n")
        }
        defer { peer.stop() }
        let status = try await SnapcastServerStatus.read(host: "127.0.0.1", port: peer.port, requestTimeout: 1)
        let group = try #require(status.groups.first)
        #expect(group.id == #"g\u{1B}[2J"# && !group.idIsExact && group.name == #"Living\u{7}room"# && group.muted)
        #expect(
            group.clients == [
                .init(
                    id: "k", idIsExact: true, name: #"vm\u{202E}"#, hostName: #"vm\u{202E}"#, volume: nil, muted: true,
                    connected: false)
            ])
    }

    @Test("a discovery that cannot start does not blame a device")
    func discoveryFailureMessage() async throws {
        // 192.0.2.1 (TEST-NET-1) is no interface of this machine: the socket option fails before any packet.
        let run = try await CLI.run(["remote", "discover", "--interface", "192.0.2.1", "--timeout", "0.5"])
        #expect(run.status != 0)
        #expect(!run.error.contains("The device") && run.error.contains("could not run"), "\(run.error)")
    }
}
