#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reports once when something asked for (a volume view's readiness) has not come within a deadline, and
/// stays quiet when it comes in time. Whatever waits keeps waiting: this only tells the app why nothing
/// happens yet (a launch into the background, a permission alert or Face ID leave no window to host the
/// volume view).
///
/// Used by ``VolumeHUDEngine`` and by the iOS `VolumeButtons` shell, on the clients' clock.
public final class ReadinessWatch: Sendable {
    private struct State {
        var timer: CancellationHandle?
        var isReady = false
        var isWatching = false
    }

    private let clock: ClockClient
    private let state = Locked(State())

    /// A watch on `clock`.
    public init(clock: ClockClient) {
        self.clock = clock
    }

    /// Whether ``ready()`` was called since the last ``start(timeout:onLate:)``.
    public var isReady: Bool { state.withLock { $0.isReady } }

    /// Starts watching: `onLate` runs once, `timeout` seconds from now, unless ``ready()`` or ``cancel()``
    /// come first. A second start replaces the first.
    public func start(timeout: TimeInterval, onLate: @escaping @Sendable () -> Void) {
        let timer = clock.schedule(max(0, timeout)) { [weak self] in
            guard let self else { return }
            let late = self.state.withLock { state -> Bool in
                defer { state.isWatching = false; state.timer = nil }
                return state.isWatching && !state.isReady
            }
            if late { onLate() }
        }
        let old = state.withLock { state -> CancellationHandle? in
            defer {
                state.timer = timer
                state.isReady = false
                state.isWatching = true
            }
            return state.timer
        }
        old?.cancel()
    }

    /// What was waited for came: nothing is reported.
    public func ready() {
        let timer = state.withLock { state -> CancellationHandle? in
            state.isReady = true
            state.isWatching = false
            defer { state.timer = nil }
            return state.timer
        }
        timer?.cancel()
    }

    /// Stops watching without reporting.
    public func cancel() {
        let timer = state.withLock { state -> CancellationHandle? in
            state.isWatching = false
            defer { state.timer = nil }
            return state.timer
        }
        timer?.cancel()
    }
}
