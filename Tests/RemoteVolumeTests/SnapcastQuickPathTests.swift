import Foundation
import Testing
import VolumeKitCore

@testable import RemoteVolume

/// A Snapcast set on a connection that answers quickly runs on the caller's thread, as MPD's requests do
/// (issue 23: per request within 1.2× of a raw JSON-RPC loop), and a burst of notifications from another
/// controller costs neither the connection nor a set.
@Suite("Snapcast sets on the caller's thread")
struct SnapcastQuickPathTests {
    @Test("on a connection that answers within the patience, sets are not handed to another thread")
    func quickSetsStayOnTheCaller() async throws {
        let server = try FakeSnapserver(clients: [("kitchen", 30)])
        let client = server.client("kitchen")
        // Far above a loopback round trip: which thread reads a reply must not depend on the machine's load.
        client.link.callerPatience = 0.5
        try await client.setVolume(10)  // Connects: on the link's queue.
        for level in 11...40 {
            try await client.setVolume(level)
            #expect(server.state.current.clients["kitchen"]!.percent == level)
        }
        try await client.setMuted(true)
        #expect(server.state.current.clients["kitchen"]! == (40, true))
        // Before, each of the 32 sets went to the link's queue and back.
        #expect(client.link.handOffs < 8, "\(client.link.handOffs) of 32 sets handed off")
        #expect(server.peer.accepted.current == 1)
    }

    @Test("another controller's changes between quick sets are read and kept, and every set lands")
    func notificationsBetweenSets() async throws {
        let server = try FakeSnapserver(clients: [("kitchen", 30), ("hall", 10)])
        let client = server.client("kitchen")
        let other = server.client("hall")
        client.link.callerPatience = 0.5
        try await client.setVolume(20)
        for level in 21...30 {
            // Another controller's change: snapserver tells this connection with a notification.
            try await other.setVolume(level)
            try await client.setVolume(level + 40)
            #expect(server.state.current.clients["kitchen"]!.percent == level + 40)
        }
        #expect(try await client.volume() == 70)
        #expect(server.levels() == [70, 30])
    }

    @Test("a burst of notifications read before a quick set does not cost the connection")
    func notificationBurstKeepsTheConnection() async throws {
        let server = try FakeSnapserver(clients: [("kitchen", 30), ("hall", 10)])
        let client = server.client("kitchen")
        let other = server.client("hall")
        // A patience a burst of notifications takes longer than to read: they are read before it starts.
        client.link.callerPatience = 0.01
        for level in 31...36 { try await client.setVolume(level) }
        for level in 0..<400 { try await other.setVolume(level % 100) }
        try await client.setVolume(50)
        #expect(server.state.current.clients["kitchen"]!.percent == 50)
        // Kitchen's connection and hall's: before, the set's send ran out of the patience while the 400
        // notifications were read, and the connection was dropped and opened again.
        #expect(server.peer.accepted.current == 2)
    }
}
