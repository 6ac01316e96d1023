import Foundation
import TestSupport
import VolumeKitCore

@testable import RemoteVolume

/// A ``WatcherClock`` that stands still until the test advances it: a watcher thread that sleeps on it stays
/// asleep, so what it did before sleeping can be counted exactly, whatever the machine's load.
final class ManualWatcherClock: @unchecked Sendable {
    /// One sleep the watcher began: the virtual instant it began at and the instant it waits for.
    struct Sleep: Equatable {
        var from: TimeInterval
        var until: TimeInterval
        /// The virtual seconds it waits.
        var length: TimeInterval { until - from }
    }

    private let condition = NSCondition()
    private var time: TimeInterval = 0
    private var begun: [Sleep] = []

    /// The clock to give a watcher.
    var clock: WatcherClock {
        WatcherClock(
            now: { [self] in condition.withLock { time } },
            sleep: { [self] instant, stop in
                condition.lock()
                defer { condition.unlock() }
                begun.append(Sleep(from: time, until: instant))
                condition.broadcast()
                while time < instant, !stop() {
                    _ = condition.wait(until: Date().addingTimeInterval(0.05))
                }
            })
    }

    /// The sleeps begun so far, in order.
    var sleeps: [Sleep] { condition.withLock { begun } }

    /// Moves the clock to `instant`, waking a watcher whose sleep has come to an end.
    func advance(to instant: TimeInterval) {
        condition.withLock {
            time = max(time, instant)
            condition.broadcast()
        }
    }

    /// Waits (on a thread of its own, at most `seconds` of wall time: only a stuck watcher takes long) until
    /// `count` sleeps have begun; the sleeps begun by then.
    func waitForSleeps(_ count: Int, within seconds: TimeInterval = 30) async throws -> [Sleep] {
        try await onOwnThread { [self] in
            let end = Date().addingTimeInterval(seconds)
            condition.lock()
            defer { condition.unlock() }
            while begun.count < count, Date() < end { _ = condition.wait(until: end) }
            return begun
        }
    }
}
