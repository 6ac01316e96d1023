import Dispatch

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The time a watcher thread (``MPDMixerWatcher``, ``SnapcastWatcher``) paces itself by: its idle rounds,
/// its reconnect backoff and its notification coalescing. Monotonic seconds in use; a clock advanced by
/// hand in tests, so the bounds of docs/security.md are checked in the order they act, not against a busy
/// machine's wall time.
///
/// Socket deadlines are not on this clock: they bound waits for the peer, not the watcher's own pace.
struct WatcherClock: Sendable {
    /// Seconds, monotonic.
    var now: @Sendable () -> TimeInterval
    /// Blocks the calling thread until `instant` (of ``now``), or until `stop` returns `true`; returns at
    /// once when `instant` has come.
    var sleep: @Sendable (_ instant: TimeInterval, _ stop: () -> Bool) -> Void

    /// How often a sleeping watcher looks at `stop`, in wall seconds.
    static let slice: TimeInterval = 0.2

    /// `DispatchTime`'s uptime, sleeping in slices of ``slice`` to notice `stop`.
    static let system = WatcherClock(
        now: { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 },
        sleep: { instant, stop in
            while !stop() {
                let left = instant - Double(DispatchTime.now().uptimeNanoseconds) / 1e9
                guard left > 0 else { return }
                usleep(UInt32(min(slice, left) * 1_000_000))
            }
        }
    )
}
