import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the MPD and Snapcast watchers share: a thread of their own that keeps one connection to the server —
/// replaced when it is lost, refused or misbehaves, paced by ``ReconnectBackoff`` on the watcher's clock —
/// until cancelled.
final class WatcherLoop: Sendable {
    /// The clock the watcher paces itself by.
    let clock: WatcherClock
    private let cancelled = Locked(false)

    init(clock: WatcherClock) {
        self.clock = clock
    }

    /// Whether ``cancel()`` was called.
    var isCancelled: Bool { cancelled.current }

    /// Ends the loop: the connection in use sees it at its next look, and no other is opened.
    func cancel() { cancelled.withLock { $0 = true } }

    /// Sleeps until `instant` of the watcher's clock, or cancellation.
    func pause(until instant: TimeInterval) {
        clock.sleep(instant) { isCancelled }
    }

    /// Starts the thread, named `name`. `connection` opens a connection and follows it: it returns once
    /// cancelled, and throws when the connection is lost, refused or misbehaves; then `rest` is called with the
    /// instant the next connection may open (it returns by then, or at cancellation).
    func start(
        named name: String, rest: (@Sendable (TimeInterval) -> Void)? = nil,
        connection: @escaping @Sendable () throws -> Void
    ) {
        DetachedThread.run(named: name) { [self] in
            var backoff = ReconnectBackoff()
            while !isCancelled {
                let attempt = clock.now()
                do {
                    try connection()
                    return
                } catch {
                    let now = clock.now()
                    let until = now + backoff.delay(afterConnectionLasting: now - attempt)
                    if let rest { rest(until) } else { pause(until: until) }
                }
            }
        }
    }
}
