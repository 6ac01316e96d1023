#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The single timer an engine keeps for its machines' next deadline.
///
/// Engines compute the deadline under their lock and schedule outside it; this keeps that bookkeeping in
/// one place: ``retarget(_:now:)`` under the lock, then ``ClockClient/apply(_:fire:adopt:)`` outside it.
public struct DeadlineTimer: Sendable {
    /// What changed: the old timer to cancel, and the delay after which a new one must fire.
    public struct Change: Sendable {
        /// The timer to cancel, if one was running.
        public var cancel: CancellationHandle?
        /// The delay for the new timer, `nil` when nothing is due any more.
        public var delay: TimeInterval?
    }

    private var timer: CancellationHandle?
    private var deadline: Instant?

    /// No timer.
    public init() {}

    /// Under the owner's lock: aims the timer at `next`. Returns what to do outside the lock, or `nil` when the
    /// deadline did not change.
    public mutating func retarget(_ next: Instant?, now: Instant) -> Change? {
        guard next != deadline else { return nil }
        let change = Change(cancel: timer, delay: next.map { max(0, $0 - now) })
        timer = nil
        deadline = next
        return change
    }

    /// Under the owner's lock: keeps `newTimer` unless a newer change came first (then the caller cancels it).
    public mutating func adopt(_ newTimer: CancellationHandle) -> Bool {
        guard timer == nil else { return false }
        timer = newTimer
        return true
    }

    /// The timer fired: nothing is scheduled any more.
    public mutating func fired() {
        timer = nil
        deadline = nil
    }

    /// Forgets everything and returns the timer to cancel (on teardown).
    public mutating func reset() -> CancellationHandle? {
        defer { fired() }
        return timer
    }
}

extension ClockClient {
    /// Outside the owner's lock: cancels the old timer and schedules `fire` after the new delay; `adopt`
    /// hands the new timer back to the owner under its lock (see ``DeadlineTimer/adopt(_:)``).
    public func apply(
        _ change: DeadlineTimer.Change?, fire: @escaping @Sendable () -> Void, adopt: (CancellationHandle) -> Bool
    ) {
        guard let change else { return }
        change.cancel?.cancel()
        guard let delay = change.delay else { return }
        let timer = schedule(delay, fire)
        if !adopt(timer) { timer.cancel() }
    }
}
