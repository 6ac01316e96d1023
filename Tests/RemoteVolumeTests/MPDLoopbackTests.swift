import Foundation
import Testing
import VolumeKitCore

@testable import RemoteVolume

/// One MPD volume read as ``MPDDevice`` does it (connect, greet, read) within one absolute deadline.
func timedMPDRead(port: UInt16, timeout: TimeInterval) async -> (seconds: Double, error: RemoteVolumeError?) {
    await timedOnThread {
        let deadline = Deadline(in: timeout)
        let session = try MPDSession(host: "127.0.0.1", port: port, password: nil, deadline: deadline)
        _ = try session.volume(deadline: deadline)
    }
}

@Suite("MPD over loopback")
struct MPDLoopbackTests {
    @Test("volume and the modelled mute round-trip through a password-protected MPD")
    func roundTrips() async throws {
        let server = try FakeMPD(password: "pa\"ss")
        let mpd = try server.device(password: "pa\"ss")
        try await mpd.setVolume(37)
        #expect(try await mpd.volume() == 37)
        #expect(server.state.current.volume == 37)
        try await mpd.setVolume(140)  // Clamped before it is sent.
        #expect(server.state.current.volume == 100)
        try await mpd.setVolume(37)
        try await mpd.setMuted(true)
        #expect(server.state.current.volume == 0)
        #expect(try await mpd.isMuted())
        try await mpd.setMuted(false)
        #expect(server.state.current.volume == 37)
        // Muted by someone else (or before a restart of the app): unmuting restores unmuteLevel.
        server.state.withLock { $0.volume = 0 }
        try await mpd.setMuted(false)
        #expect(server.state.current.volume == mpd.unmuteLevel)
        #expect(server.peer.accepted.current == 1, "one persistent command connection")
    }

    @Test("a wrong or missing password is an error naming the fix, not a retry")
    func password() async throws {
        let server = try FakeMPD(password: "secret")
        let wrong = await remoteError { _ = try await server.device(password: "nope").volume() }
        #expect(wrong?.isTransient == false)
        #expect(wrong?.description.contains("password") == true, "\(String(describing: wrong))")
        let missing = await remoteError { try await server.device().setVolume(3) }
        #expect(missing?.description.contains("mpd://PASSWORD@HOST") == true, "\(String(describing: missing))")
        #expect(throws: RemoteVolumeError.self) { _ = try MPDDevice(host: "127.0.0.1", password: "two\nlines") }
    }

    @Test("idle mixer reports another client's change, with muted meaning level 0")
    func changes() async throws {
        let server = try FakeMPD()
        let mpd = try server.device()
        let changes = try #require(try await mpd.changes())
        #expect(await first(of: changes, within: 5) { $0.volume == 50 } != nil)
        try await server.device().setVolume(0)
        #expect(await first(of: changes, within: 3) { $0.volume == 0 } == RemoteVolumeChange(volume: 0, muted: true))
        try await server.device().setVolume(12)
        #expect(await first(of: changes, within: 3) { $0.volume == 12 } == RemoteVolumeChange(volume: 12, muted: false))
    }

    @Test("the idle watcher reconnects when MPD drops its connection, and reports what it finds")
    func watcherReconnects() async throws {
        let server = try FakeMPD(commandsPerConnection: 3)  // getvol, idle, getvol: then MPD hangs up.
        let changes = try #require(try await server.device().changes())
        #expect(await first(of: changes, within: 5) { $0.volume == 50 } != nil)
        for level in [11, 22, 33] {
            try await server.device().setVolume(level)
            #expect(await first(of: changes, within: 5) { $0.volume == level } != nil, "level \(level)")
        }
        #expect(server.peer.accepted.current >= 5)
    }

    @Test("a connection MPD closed between requests (its connection_timeout) is replaced within the request")
    func reconnects() async throws {
        let server = try FakeMPD(commandsPerConnection: 1)
        let mpd = try server.device()
        for level in [10, 20, 30] {
            try await mpd.setVolume(level)
            #expect(try await mpd.volume() == level)
        }
        #expect(server.peer.accepted.current >= 6)
    }

    @Test("a peer that is not MPD is named as such")
    func notMPD() async throws {
        let peer = try LinePeer { $0.send("HTTP/1.1 400 Bad Request\r\n\r\n") }
        let error = await remoteError {
            _ = try await MPDDevice(host: "127.0.0.1", port: peer.port, requestTimeout: 1).volume()
        }
        #expect(error?.description.contains("not an MPD server") == true, "\(String(describing: error))")
    }

    @Test("a peer flooding one endless line is cut off at the line cap, at once")
    func flood() async throws {
        let peer = try hostileMPD { connection in
            let chunk = Data(repeating: UInt8(ascii: "x"), count: 65_536)
            for _ in 0..<128 where connection.send(chunk) {}  // At most 8 MiB, until the client hangs up.
        }
        let mpd = try MPDDevice(host: "127.0.0.1", port: peer.port, requestTimeout: 5)
        #expect(await remoteError { _ = try await mpd.volume() } == .replyTooLarge(limit: MPDSession.maxLineBytes))
        // Without the cap it would read all 8 MiB and then wait out the 5 s deadline.
        let timed = await timedMPDRead(port: peer.port, timeout: 5)
        #expect(timed.error == .replyTooLarge(limit: MPDSession.maxLineBytes))
        #expect(timed.seconds < 1, "took \(timed.seconds) s")
    }

    @Test("a silent peer and a trickling peer both end at the request's absolute deadline")
    func deadlines() async throws {
        // Each peer misbehaves for 10 s unless the client hangs up first: only the deadline can end the request.
        let silent = try hostileMPD { connection in _ = connection.readLine(timeout: 10) }
        let trickle = try hostileMPD { connection in
            // One byte every 40 ms, never a full line: each read succeeds, only the absolute deadline stops it.
            for _ in 0..<250 where connection.send("v") { Thread.sleep(forTimeInterval: 0.04) }
        }
        let mute = try LinePeer { connection in _ = connection.readLine(timeout: 10) }  // Never even greets.
        for peer in [silent, trickle, mute] {
            let mpd = try MPDDevice(host: "127.0.0.1", port: peer.port, requestTimeout: 0.5)
            #expect(await remoteError { _ = try await mpd.volume() } == .timedOut)
            let timed = await timedMPDRead(port: peer.port, timeout: 0.5)
            #expect(timed.error == .timedOut)
            #expect(timed.seconds >= 0.45 && timed.seconds < 0.8, "took \(timed.seconds) s")
        }
    }

    @Test("an MPD older than 0.23 is read with status (it has no getvol)")
    func olderMPD() async throws {
        let peer = try LinePeer { connection in
            connection.send("OK MPD 0.22.0\n")
            for _ in 0..<4 {
                guard let command = connection.readLine() else { return }
                connection.send(
                    command == "status"
                        ? "repeat: 0\nvolume: 61\nstate: stop\nOK\n" : "ACK [5@0] {} unknown command \"\(command)\"\n")
            }
        }
        #expect(try await MPDDevice(host: "127.0.0.1", port: peer.port, requestTimeout: 1).volume() == 61)
    }

    @Test("an endless response is refused after 256 lines")
    func endlessResponse() async throws {
        let peer = try hostileMPD { connection in
            for index in 0..<10_000 where connection.send("key\(index): value\n") {}
        }
        let error = await remoteError {
            _ = try await MPDDevice(host: "127.0.0.1", port: peer.port, requestTimeout: 2).volume()
        }
        #expect(error == .invalidReply("an MPD response longer than 256 lines"))
    }

    @Test("peer numbers outside 0…100 are refused, and peer text shows control characters as escapes")
    func garbage() async throws {
        let replies: [(String, RemoteVolumeError?)] = [
            ("volume: 65531\nOK\n", .invalidReply("MPD answered volume 65531, outside its range 0…100")),
            ("volume: 100\nOK\n", nil),
            ("volume: -1\nOK\n", .unsupported("this MPD has no mixer (volume -1); set mixer_type in its audio_output")),
            ("OK\n", .unsupported("this MPD has no mixer (it reports no volume); set mixer_type in its audio_output")),
            ("volume: loud\nOK\n", .invalidReply("an MPD volume that is not a number: loud")),
            (
                "volume: 99999999999999999999999\nOK\n",
                .invalidReply("an MPD volume that is not a number: 99999999999999999999…")
            ),
            (
                "ACK [5@0] {getvol} No mixer\n",
                .unsupported(
                    "this MPD has no mixer (it refused \"getvol\": No mixer); set mixer_type in its audio_output")
            ),
            ("no colon here\nOK\n", .invalidReply("an MPD line that is not \"key: value\": no colon here")),
            (
                "ACK [52@0] {getvol} \u{1B}[2J\u{07}boom\nOK\n",
                .unsupported(#"MPD refused "getvol": \u{1B}[2J\u{7}boom (ACK 52)"#)
            ),
        ]
        for (reply, expected) in replies {
            let peer = try hostileMPD { $0.send(reply) }
            let mpd = try MPDDevice(host: "127.0.0.1", port: peer.port, requestTimeout: 1)
            if let expected {
                #expect(await remoteError { _ = try await mpd.volume() } == expected, "\(reply)")
            } else {
                #expect(try await mpd.volume() == 100)
            }
        }
    }
}
