import Foundation
import TestSupport
import Testing
import VolumeKitCore

@testable import RemoteVolume

/// An MPD request on a connection that answers quickly runs on the caller's thread (issue 23: per request at or
/// below python-mpd2), and everything a slow or silent server does still ends as before.
@Suite("MPD requests on the caller's thread")
struct MPDQuickPathTests {
    @Test("on a connection that answers within the patience, requests are not handed to another thread")
    func quickRequestsStayOnTheCaller() async throws {
        let server = try FakeMPD()
        let mpd = try server.device()
        // A patience far above a loopback round trip: which thread reads a reply must not depend on how loaded the
        // machine running the tests is (with the real 1 ms, a full parallel run once made 20 of 41 late).
        mpd.link.callerPatience = 0.5
        try await mpd.setVolume(10)  // Connects: on the link's queue.
        for level in 11...30 {
            try await mpd.setVolume(level)
            #expect(try await mpd.volume() == level)
        }
        // Before, each of the 41 requests was handed to the queue and back; now the first, which connects, and on
        // a loaded machine now and then one made before the queue's thread had let the connection go.
        #expect(mpd.link.handOffs < 10, "\(mpd.link.handOffs) of 41 requests handed off")
        #expect(server.peer.accepted.current == 1)
    }

    @Test("a reply later than the patience is read on another thread, on the same connection")
    func lateReply() async throws {
        let peer = try LinePeer { connection in
            connection.send("OK MPD 0.23.5\n")
            guard connection.readLine(timeout: honestPeerTimeout) == "getvol" else { return }
            connection.send("volume: 21\nOK\n")
            guard connection.readLine(timeout: honestPeerTimeout) == "getvol" else { return }
            Thread.sleep(forTimeInterval: 0.05)  // 50 times the patience.
            connection.send("volume: 33\nOK\n")
            guard connection.readLine(timeout: honestPeerTimeout) == "getvol" else { return }
            connection.send("volume: 34\nOK\n")
        }
        let mpd = try MPDDevice(host: "127.0.0.1", port: peer.port, requestTimeout: honestPeerTimeout)
        #expect(try await mpd.volume() == 21)
        // Sent on the caller's thread, its reply 50 ms late: finished on another thread, the caller's freed.
        #expect(try await mpd.volume() == 33)
        // After a late reply the next request goes to the queue.
        #expect(try await mpd.volume() == 34)
        #expect(peer.accepted.current == 1)
    }

    @Test("a reply that never comes, after a quick one, ends the request at its deadline")
    func missingReply() async throws {
        let peer = try LinePeer { connection in
            connection.send("OK MPD 0.23.5\n")
            guard connection.readLine(timeout: honestPeerTimeout) == "getvol" else { return }
            connection.send("volume: 21\nOK\n")
            guard connection.readLine(timeout: honestPeerTimeout) == "setvol 40" else { return }
            _ = connection.readLine(timeout: 10)  // Never answers: only the deadline ends the request.
        }
        let mpd = try MPDDevice(host: "127.0.0.1", port: peer.port, requestTimeout: 0.5)
        #expect(try await mpd.volume() == 21)
        let start = Date()
        #expect(await remoteError { try await mpd.setVolume(40) } == .timedOut)
        let seconds = Date().timeIntervalSince(start)
        // Not before the deadline, and ended by it: the server stays silent for 10 s, so a request that waited for
        // it takes 10 s, and one with a deadline three times too long 1.5 s. The slack above 0.5 s is the loaded
        // test pool's (a 2-core machine running the whole suite once took 0.8 s).
        #expect(seconds >= 0.45 && seconds < 1.5, "took \(seconds) s")
    }

    @Test("a kept connection the server closes after the patience is replaced within the request, as before")
    func closedAfterThePatience() async throws {
        let connections = Locked(0)
        let peer = try LinePeer { connection in
            let number = connections.withLock { value -> Int in
                value += 1
                return value
            }
            connection.send("OK MPD 0.23.5\n")
            guard connection.readLine(timeout: honestPeerTimeout) == "getvol" else { return }
            connection.send("volume: \(20 + number)\nOK\n")
            guard number == 1, connection.readLine(timeout: honestPeerTimeout) == "getvol" else { return }
            Thread.sleep(forTimeInterval: 0.02)  // Then closes unanswered: seen only once the reply was handed off.
        }
        let mpd = try MPDDevice(host: "127.0.0.1", port: peer.port, requestTimeout: 2)
        #expect(try await mpd.volume() == 21)
        #expect(try await mpd.volume() == 22)
        #expect(peer.accepted.current == 2)
    }

    @Test("requests from many tasks at once each get their own reply")
    func concurrentRequests() async throws {
        let server = try FakeMPD()
        let mpd = try server.device()
        let levels = try await withThrowingTaskGroup(of: Int?.self) { group in
            for index in 0..<64 {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        try await mpd.setVolume(index)
                        return nil
                    }
                    return try await mpd.volume()
                }
            }
            return try await group.reduce(into: [Int]()) { if let level = $1 { $0.append(level) } }
        }
        #expect(levels.count == 32)
        #expect(levels.allSatisfy { $0 == 50 || ($0.isMultiple(of: 2) && $0 < 64) }, "\(levels)")
        #expect(try await mpd.volume() == server.state.current.volume)
        #expect(server.peer.accepted.current == 1)
    }
    @Test(
        "remote get|set mpd://… talk to MPD from the process's one thread: no Dispatch or concurrency threads",
        .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/task"), "counts threads in Linux's /proc"))
    func cliOneShotOnOneThread() async throws {
        // Before, four worker threads were running by the time the first command went out: with the async
        // runtime's start they cost a whole `remote set` process about 0.6 ms (issue 23: within 2× of `mpc`).
        let port = Locked<UInt16>(0)
        let threads = Locked<[String: Int]>([:])
        let lists = Locked<[[String]]>([])
        let peer = try LinePeer { connection in
            _ = connection.send("OK MPD 0.23.5\n")
            var list: [String] = []
            while let line = connection.readLine(timeout: honestPeerTimeout) {
                list.append(line)
                guard line == "command_list_end" else { continue }
                // Counted while the command-line process waits for this reply.
                let count = cliThreadCount(url: "mpd://vk@127.0.0.1:\(port.current)") ?? -1
                let command = list.contains("setvol 40") ? "setvol 40" : "getvol"
                threads.withLock { $0[command] = max($0[command] ?? 0, count) }
                lists.withLock { [list] in $0.append(list) }
                list.removeAll()
                _ = connection.send("volume: 40\nOK\n")
            }
        }
        port.withLock { $0 = peer.port }
        let url = "mpd://vk@127.0.0.1:\(peer.port)"
        let set = try await CLI.run(["remote", "set", url, "40"])
        #expect(set.status == 0 && set.output == "MPD at 127.0.0.1:\(peer.port): volume 40\n", "\(set.error)")
        let get = try await CLI.run(["remote", "get", url])
        #expect(get.status == 0 && get.output == "MPD at 127.0.0.1:\(peer.port): volume 40 of 0…100\n")
        #expect(threads.current == ["setvol 40": 1, "getvol": 1], "threads per command (-1: process not found)")
        // After the greeting, each is one command list: one write and one reply (MPD waited on three).
        #expect(
            lists.current == [
                ["command_list_begin", "password \"vk\"", "setvol 40", "getvol", "command_list_end"],
                ["command_list_begin", "password \"vk\"", "getvol", "command_list_end"],
            ])
    }

    @Test(
        "on Linux the volumekit binary does not link swift-corelibs-foundation (FoundationEssentials only)",
        .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/task"), "Linux's corelibs"))
    func cliLinksNoCorelibs() throws {
        // Any one use of a corelibs-only type (a CGRect, a FileHandle, Bundle) links all of corelibs,
        // CoreFoundation and ICU: ~140 page faults and half a millisecond of every start (docs/decisions/cli.md).
        let binary = try Data(contentsOf: volumekitExecutable)
        #expect(binary.firstRange(of: Data("\0libFoundation.so\0".utf8)) == nil, "a shared-library dependency")
        #expect(binary.firstRange(of: Data("$s10Foundation".utf8)) == nil, "a symbol of corelibs, linked in")
        // The search itself works: the C library is a dependency of every build.
        #expect(binary.firstRange(of: Data("\0libc.so.6\0".utf8)) != nil)
    }

    @Test("remote set mpd://… with a wrong password sets nothing and says what to do")
    func cliWrongPasswordSetsNothing() async throws {
        let server = try FakeMPD(password: "right")
        defer { server.peer.stop() }
        let run = try await CLI.run(["remote", "set", "mpd://wrong@127.0.0.1:\(server.port)", "40"])
        #expect(run.status == 1 && run.error.contains("MPD refused the password"), "\(run.error)")
        #expect(!run.error.contains("wrong"), "the password is never printed: \(run.error)")
        // MPD runs none of a command list after its first refusal: the setvol never ran.
        #expect(server.state.current.volume == 50)
        #expect(server.state.current.commands == ["password"])
    }
}

/// How many threads the running `volumekit` process whose arguments include `url` has (Linux's /proc), or
/// `nil` when there is none (or no /proc).
private func cliThreadCount(url: String) -> Int? {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
    for pid in entries where pid.allSatisfy(\.isNumber) {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { continue }
        let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        guard arguments.first?.hasSuffix("/volumekit") == true, arguments.contains(url) else { continue }
        return (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task"))?.count
    }
    return nil
}
