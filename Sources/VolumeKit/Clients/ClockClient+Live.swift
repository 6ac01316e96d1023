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
            let item = DispatchWorkItem(block: action)
            DispatchQueue.main.asyncAfter(deadline: .now() + max(0, delay), execute: item)
            return Cancellable { item.cancel() }
        }
    )
}
#endif
