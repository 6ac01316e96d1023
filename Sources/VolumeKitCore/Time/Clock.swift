#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A point on a monotonic clock, in seconds.
///
/// State machines never read a clock: every input carries the instant it happened at, so the same
/// machine runs in real time on a device and in virtual time in tests.
public typealias Instant = TimeInterval

/// A handle that stops an observation or a scheduled action when cancelled.
///
/// Cancelling twice is harmless. Dropping the handle does **not** cancel: keep it and call `cancel()`.
public final class CancellationHandle: Sendable {
    private let action: Locked<(@Sendable () -> Void)?>

    /// Creates a handle that runs `onCancel` the first time it is cancelled.
    public init(_ onCancel: @escaping @Sendable () -> Void) {
        action = Locked(onCancel)
    }

    /// A handle with nothing to cancel.
    public static var none: CancellationHandle { CancellationHandle {} }

    /// Stops what this handle stands for. Only the first call does anything.
    public func cancel() {
        let run = action.withLock { value -> (@Sendable () -> Void)? in
            defer { value = nil }
            return value
        }
        run?()
    }
}

/// Time as the system gives it: a monotonic "now" and a way to run something later.
///
/// The live value uses the system's uptime clock and the main queue; `SimulatedDevice` provides a virtual
/// clock so that timing-dependent logic is tested without real sleeps.
public struct ClockClient: Sendable {
    /// The current monotonic time in seconds.
    public var now: @Sendable () -> Instant
    /// Runs `action` once, `delay` seconds from now, unless the returned handle is cancelled first.
    public var schedule:
        @Sendable (_ delay: TimeInterval, _ action: @escaping @Sendable () -> Void) -> CancellationHandle

    /// Creates a clock client from its two operations.
    public init(
        now: @escaping @Sendable () -> Instant,
        schedule:
            @escaping @Sendable (_ delay: TimeInterval, _ action: @escaping @Sendable () -> Void) -> CancellationHandle
    ) {
        self.now = now
        self.schedule = schedule
    }
}

extension ClockClient {
    /// Runs `action` every `interval` seconds from now (the first time after one interval) until the returned
    /// handle is cancelled: each run schedules the next, so a clock that holds its timers (a suspended app's)
    /// holds the repetition too, and no run is made up afterwards.
    public func repeating(every interval: TimeInterval, _ action: @escaping @Sendable () -> Void) -> CancellationHandle
    {
        // The pending run's handle (a placeholder until the first is scheduled); `nil` once cancelled, and a run
        // then schedules nothing more.
        let pending = Locked<CancellationHandle?>(CancellationHandle {})
        let schedule = self.schedule
        @Sendable func next() {
            let handle = schedule(interval) {
                guard pending.withLock({ $0 != nil }) else { return }
                action()
                next()
            }
            let cancelled = pending.withLock { current -> Bool in
                guard current != nil else { return true }
                current = handle
                return false
            }
            if cancelled { handle.cancel() }
        }
        next()
        return CancellationHandle {
            pending.withLock { current -> CancellationHandle? in
                defer { current = nil }
                return current
            }?.cancel()
        }
    }
}
