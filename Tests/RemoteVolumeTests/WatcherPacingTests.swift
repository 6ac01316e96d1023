import Foundation
import Testing

@testable import RemoteVolume

/// The watchers' pacing in virtual time (issue 23 items 4 and 5): the figures docs/security.md states.
@Suite("Watcher pacing")
struct WatcherPacingTests {
    @Test("connections that die at once are retried after 0.1, 0.2, 0.4, 0.8 s, then once a second")
    func backoffGrows() {
        var backoff = ReconnectBackoff()
        let delays = (0..<7).map { _ in backoff.delay(afterConnectionLasting: 0.01) }
        #expect(delays == [0.1, 0.2, 0.4, 0.8, 1, 1, 1])
        // Over 8 s of a server that greets and then misbehaves: at most 12 connections (it used to be 77).
        var clock = 0.0
        var connections = 0
        var fresh = ReconnectBackoff()
        while clock < 8 {
            connections += 1
            clock += 0.01 + fresh.delay(afterConnectionLasting: 0.01)
        }
        #expect(connections <= 12, "\(connections) connections in 8 s")
    }

    @Test("a connection that stayed up 10 s counts as healthy: the next loss is retried after 0.1 s again")
    func backoffResets() {
        var backoff = ReconnectBackoff()
        for _ in 0..<5 { _ = backoff.delay(afterConnectionLasting: 0) }
        #expect(backoff.delay(afterConnectionLasting: 9.9) == 1)
        #expect(backoff.delay(afterConnectionLasting: ReconnectBackoff.healthyAfter) == 0.1)
    }

    @Test("a flood is passed on at most once per 0.1 s, newest first, and the last value is delivered when due")
    func coalescer() {
        var pacing = Coalescer<Int>()
        var passed: [(Int, Double)] = []
        // 1,000 values over 0.5 s of virtual time, with the loop looking for due values between them.
        for index in 0..<1_000 {
            let now = Double(index) * 0.0005
            if let due = pacing.due(at: now) { passed.append((due, now)) }
            if let value = pacing.offer(index, at: now) { passed.append((value, now)) }
        }
        let next = pacing.nextDue
        #expect(next != nil)
        if let next, let last = pacing.due(at: next) { passed.append((last, next)) }
        #expect(passed.first?.0 == 0)
        #expect(passed.last?.0 == 999, "the newest value is never lost")
        #expect(passed.count <= 7, "\(passed.count) passed on in 0.5 s")
        for (earlier, later) in zip(passed, passed.dropFirst()) {
            #expect(later.1 - earlier.1 >= 0.1 - 1e-9)
        }
        #expect(pacing.nextDue == nil, "nothing is held after the last delivery")
    }
}
