import Foundation
import RemoteVolume
import VolumeKitCore

/// A clock that only moves when the test says so.
final class ManualClock: Sendable {
    private struct Entry { let due: Instant; let action: @Sendable () -> Void; let cancelled: Locked<Bool> }
    private let state = Locked((now: Instant(0), entries: [Entry]()))

    var client: ClockClient {
        ClockClient(
            now: { [state] in state.current.now },
            schedule: { [state] delay, action in
                let cancelled = Locked(false)
                state.withLock { $0.entries.append(Entry(due: $0.now + delay, action: action, cancelled: cancelled)) }
                return CancellationHandle { cancelled.withLock { $0 = true } }
            }
        )
    }

    /// Moves time to `instant`, running every action due by then.
    func advance(to instant: Instant) {
        let due = state.withLock { value -> [Entry] in
            value.now = instant
            let due = value.entries.filter { $0.due <= instant }
            value.entries.removeAll { $0.due <= instant }
            return due
        }
        for entry in due where !entry.cancelled.current { entry.action() }
    }
}
