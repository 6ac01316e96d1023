#if os(iOS)
import Foundation

extension ClockClient {
    /// The system's monotonic uptime clock; scheduled actions run on the main queue.
    ///
    /// Uptime (not `Date`) so that a wall-clock change never shortens or stretches a timeout
    /// (`shared/facts/mute-switch.md` §4: "The system time may decrease due to synchronization").
    public static let live = ClockClient(
        now: { ProcessInfo.processInfo.systemUptime },
        schedule: { delay, action in
            let cancelled = Locked(false)
            DispatchQueue.main.asyncAfter(deadline: .now() + max(0, delay)) {
                if !cancelled.current { action() }
            }
            return CancellationHandle { cancelled.withLock { $0 = true } }
        }
    )
}
#endif
