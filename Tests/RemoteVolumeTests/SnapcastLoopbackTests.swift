import Foundation
import Testing
import VolumeKitCore

@testable import RemoteVolume

/// One client read as ``SnapcastClient`` does it, timed on its own thread (see `timedOnThread`).
func timedSnapcastRead(port: UInt16, timeout: TimeInterval) async -> (seconds: Double, error: RemoteVolumeError?) {
    await timedOnThread {
        let deadline = Deadline(in: timeout)
        let session = try SnapcastSession(host: "127.0.0.1", port: port, deadline: deadline)
        _ = try SnapcastClient.status(of: "k", session, deadline)
    }
}

@Suite("Snapcast over loopback")
struct SnapcastLoopbackTests {
    @Test("a client's volume keeps its mute and its mute keeps its volume, over one connection")
    func clientRoundTrips() async throws {
        let server = try FakeSnapserver(clients: [("kitchen", 30)])
        let client = server.client("kitchen")
        try await client.setMuted(true)
        try await client.setVolume(64)
        #expect(try await client.isMuted())
        #expect(try await client.volume() == 64)
        try await client.setMuted(false)
        #expect(server.state.current.clients["kitchen"]! == (64, false))
        #expect(server.peer.accepted.current == 1)
        let connected = try await SnapcastClient.connect(
            host: "127.0.0.1", port: server.port, clientID: "kitchen", requestTimeout: 1)
        #expect(connected.displayName == "room-kitchen")
    }

    @Test("a client reports its own changes made elsewhere and ignores other clients'")
    func clientChanges() async throws {
        let server = try FakeSnapserver(clients: [("kitchen", 30), ("hall", 10)])
        let changes = try #require(try await server.client("kitchen").changes())
        #expect(await first(of: changes, within: 5) { _ in true } == RemoteVolumeChange(volume: 30, muted: false))
        try await server.client("hall").setVolume(77)
        try await server.client("kitchen").setMuted(true)
        #expect(await first(of: changes, within: 3) { _ in true } == RemoteVolumeChange(volume: 30, muted: true))
    }

    @Test("a change another controller made in a batch reaches the watcher, which keeps its connection")
    func clientChangesFromBatch() async throws {
        let server = try FakeSnapserver(clients: [("kitchen", 30)])
        let changes = try #require(try await server.client("kitchen").changes())
        #expect(await first(of: changes, within: 5) { _ in true } == RemoteVolumeChange(volume: 30, muted: false))
        // Counted from here: on a loaded machine the watcher's first connect may have timed out and been
        // replaced before it read the state (a CI run saw 3 connections where 2 were expected).
        let acceptedBefore = server.peer.accepted.current
        // `remote set snapcast://…` sends a batch; snapserver tells the other controllers in one array.
        let status = try await server.client("kitchen").status(settingVolume: 55)
        #expect(status == SnapcastClientStatus(name: "room-kitchen", volume: 55, muted: false))
        #expect(await first(of: changes, within: 3) { _ in true } == RemoteVolumeChange(volume: 55, muted: false))
        // Give a watcher that took the array for garbage the time to reconnect (its backoff starts at 0.1 s).
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(
            server.peer.accepted.current == acceptedBefore + 1,
            "only the batch's own connection: the watcher did not take the array for garbage and reconnect")
    }

    @Test(
        "a group sends the loudest client first when raising and last when lowering, so its level never passes a third value"
    )
    func groupOrder() async throws {
        let server = try FakeSnapserver(clients: [("a", 20), ("b", 40), ("c", 10)])
        let group = server.group()
        let changes = try #require(try await group.changes())
        #expect(await first(of: changes, within: 5) { _ in true }?.volume == 40)
        try await group.setVolume(80)
        #expect(server.levels() == [40, 80, 20])
        #expect(server.state.current.setVolumeLog.first?.id == "b")
        server.state.withLock { $0.setVolumeLog.removeAll() }
        try await group.setVolume(10)
        #expect(server.levels() == [5, 10, 3])
        #expect(server.state.current.setVolumeLog.last?.id == "b")
        try await group.setMuted(true)
        #expect(server.state.current.groupMuted)
        // One collecting pass up to the mute, the last event (a `first(of:)` that times out ends the stream).
        let collected = Locked([RemoteVolumeChange]())
        _ = await first(of: changes, within: 5) { change in
            collected.withLock { $0.append(change) }; return change.muted == true
        }
        let reported = collected.current
        // Changes within 0.1 s of each other are coalesced (the newest wins), so 80 may not be seen; no
        // third value ever is.
        let volumes = reported.compactMap(\.volume).removingAdjacentDuplicates()
        #expect(Set(volumes).isSubset(of: [80, 10]) && volumes.last == 10, "reported: \(reported)")
        #expect(reported.last?.muted == true)
    }

    @Test("a client the restarted server has not seen again yet is retried until it is back, not given up on")
    func clientNotFoundIsRetried() async throws {
        let server = try FakeSnapserver(clients: [("kitchen", 30)])
        let controller = RemoteVolumeController(
            device: server.client("kitchen"), configuration: .init(step: 5, maxAttempts: 10, maxBackoff: 0.2))
        try await controller.start()
        let updates = await controller.updates()
        server.state.withLock { $0.forgotten = ["kitchen"] }
        await controller.press(.up)
        await controller.press(.up)
        try await Task.sleep(nanoseconds: 400_000_000)
        #expect(server.state.current.clients["kitchen"]!.percent == 30, "nothing lands while the client is unknown")
        server.state.withLock { $0.forgotten = [] }
        #expect(await waitUntilIdle(controller, seconds: 5))
        await controller.stop()
        var failures: [RemoteVolumeError] = []
        for await update in updates { if case .failed(let error) = update { failures.append(error) } }
        #expect(failures.isEmpty)
        #expect(server.state.current.clients["kitchen"]!.percent == 40)
    }

    @Test("a group set cut off half-way keeps the proportions when it is retried")
    func partialSetRetried() async throws {
        // A fresh connection lost mid-set: the request fails, the controller's retry finishes it.
        let server = try FakeSnapserver(clients: [("a", 20), ("b", 40)])
        server.state.withLock { $0.dropAfterSetVolume = 0 }
        let group = server.group()
        await #expect(throws: RemoteVolumeError.self) { try await group.setVolume(80) }
        #expect(server.levels() == [20, 80], "the loudest went first, then the connection was lost")
        try await group.setVolume(80)
        #expect(server.levels() == [40, 80])
        // A kept connection lost mid-set: replaced and finished within the same request.
        let second = try FakeSnapserver(clients: [("a", 20), ("b", 40)])
        second.state.withLock { $0.dropAfterSetVolume = 0 }
        let kept = second.group()
        #expect(try await kept.volume() == 40)
        try await kept.setVolume(80)
        #expect(second.levels() == [40, 80])
    }

    @Test("scaling keeps proportions, lands the loudest exactly and survives 0")
    func scaling() {
        #expect(SnapcastGroup.scaled(["a": 80, "b": 40, "c": 0], to: 50) == ["a": 50, "b": 25, "c": 0])
        #expect(SnapcastGroup.scaled(["a": 3, "b": 1], to: 100) == ["a": 100, "b": 33])
        #expect(SnapcastGroup.scaled(["a": 0, "b": 0], to: 7) == ["a": 7, "b": 7])
        for level in 0...100 {
            #expect(SnapcastGroup.scaled(["a": 97, "b": 13, "c": 55], to: level).values.max() == level)
        }
    }

    @Test("garbage, deep nesting, wrong types and absurd percents are clear errors")
    func garbage() async throws {
        let cases: [(@Sendable (Int) -> String, Result<Int, RemoteVolumeError>)] = [
            ({ _ in "this is not json\n" }, .failure(.invalidReply("unexpected JSON: this is not json"))),
            (
                { _ in String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "\n" },
                .failure(.invalidReply("JSON nested deeper than 32 levels"))
            ),
            (
                { id in
                    #"{"id":\#(id),"jsonrpc":"2.0","result":{"client":{"id":"k","config":{"volume":{"percent":65531,"muted":false}}}}}"#
                        + "\n"
                }, .failure(.invalidReply("Snapcast answered percent 65531 for client \"k\", outside 0…100"))
            ),
            (
                { id in
                    #"{"id":\#(id),"jsonrpc":"2.0","result":{"client":{"id":"k","config":{"volume":{"percent":-5,"muted":false}}}}}"#
                        + "\n"
                }, .failure(.invalidReply("Snapcast answered percent -5 for client \"k\", outside 0…100"))
            ),
            (
                { id in
                    #"{"id":\#(id),"jsonrpc":"2.0","result":{"client":{"id":"k","config":{"volume":{"percent":5,"muted":1}}}}}"#
                        + "\n"
                },
                .failure(
                    .invalidReply(
                        #"unexpected JSON: {"id":1,"jsonrpc":"2.0","result":{"client":{"id":"k","config":{"volume":{"percen…"#
                    ))
            ),
            (
                { id in
                    #"{"id":\#(id),"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":"\u001b[31mred"}}"#
                        + "\n"
                },
                .failure(
                    .unsupported(
                        #"Snapcast refused Client.GetStatus: Internal error: \u{1B}[31mred (JSON-RPC error -32603)"#))
            ),
            // A reply to someone else's id, then ours: the other is skipped.
            (
                { id in
                    #"{"id":999,"result":{}}"# + "\n"
                        + #"{"id":\#(id),"result":{"client":{"id":"k","config":{"volume":{"percent":42,"muted":false}}}}}"#
                        + "\n"
                }, .success(42)
            ),
        ]
        for (reply, expected) in cases {
            let peer = try hostileSnapserver { id, connection in connection.send(reply(id)) }
            let client = SnapcastClient(host: "127.0.0.1", port: peer.port, clientID: "k", requestTimeout: 1)
            switch expected {
            case .success(let level): #expect(try await client.volume() == level)
            case .failure(let error):
                let got = await remoteError { _ = try await client.volume() }
                #expect(got == error, "\(String(describing: got))")
            }
        }
    }

    @Test("a notification flood without the reply, and an over-long line, are cut off")
    func floods() async throws {
        let notifications = try hostileSnapserver { _, connection in
            let line =
                #"{"jsonrpc":"2.0","method":"Client.OnVolumeChanged","params":{"id":"x","volume":{"percent":1,"muted":false}}}"#
                + "\n"
            for _ in 0..<2_000 where connection.send(line) {}
        }
        let flooded = SnapcastClient(host: "127.0.0.1", port: notifications.port, clientID: "k", requestTimeout: 2)
        #expect(
            await remoteError { _ = try await flooded.volume() }
                == .invalidReply("more than 512 Snapcast messages without the reply to Client.GetStatus"))

        let long = try hostileSnapserver { _, connection in
            let chunk = Data(repeating: UInt8(ascii: " "), count: 65_536)
            for _ in 0..<64 where connection.send(chunk) {}  // 4 MiB of whitespace, no newline.
        }
        let client = SnapcastClient(host: "127.0.0.1", port: long.port, clientID: "k", requestTimeout: 5)
        #expect(
            await remoteError { _ = try await client.volume() } == .replyTooLarge(limit: SnapcastSession.maxLineBytes))
        // Without the cap: 4 MiB read, then the 5 s deadline.
        let timed = await timedSnapcastRead(port: long.port, timeout: 5)
        #expect(timed.error == .replyTooLarge(limit: SnapcastSession.maxLineBytes))
        #expect(timed.seconds < 1.5, "took \(timed.seconds) s")
    }

    @Test("a silent server ends at the request's deadline")
    func silent() async throws {
        let peer = try hostileSnapserver { _, _ in }
        let client = SnapcastClient(host: "127.0.0.1", port: peer.port, clientID: "k", requestTimeout: 0.5)
        #expect(await remoteError { try await client.setVolume(3) } == .timedOut)
        let timed = await timedSnapcastRead(port: peer.port, timeout: 0.5)  // The peer stays silent for 10 s.
        #expect(timed.error == .timedOut)
        #expect(timed.seconds >= 0.45 && timed.seconds < 0.8, "took \(timed.seconds) s")
    }
}

extension Array where Element: Equatable {
    /// The elements without runs of equal neighbours.
    func removingAdjacentDuplicates() -> [Element] {
        reduce(into: []) { result, element in if result.last != element { result.append(element) } }
    }
}
