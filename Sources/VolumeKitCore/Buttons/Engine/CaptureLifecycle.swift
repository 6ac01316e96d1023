#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where one run of ``VolumeButtonsEngine`` is in its life, each phase with what it needs.
///
/// `start` → ``started(onReady:)``; `stop` → ``stopping(_:)`` while the user's volume goes back (or
/// ``restoringWhenReady(_:)`` when capture stopped before its volume view was ready, owing an earlier run's
/// record: sets need the view), → ``idle`` once everything is torn down.
enum CaptureLifecycle {
    /// What a stopped run keeps until it is torn down.
    struct Stopped {
        /// Called once everything is back; several stops chain their callbacks.
        var onStopped: (@Sendable () -> Void)?
        /// The engine keeps itself alive until its teardown, even if the app lets go of it.
        var keepAlive: VolumeButtonsEngine
    }

    /// Never started, or stopped and torn down.
    case idle
    /// Capturing (or waiting for its volume view); `onReady` runs once the view is ready, then is `nil`.
    case started(onReady: (@Sendable () -> Void)?)
    /// Stopped: putting the user's volume back, then tearing down.
    case stopping(Stopped)
    /// Stopped before the volume view was ready, on a route an earlier run left away from the user's volume:
    /// the view is kept until it is ready, then only that record is restored.
    case restoringWhenReady(Stopped)

    /// Whether capture is running (from `start` until `stop`).
    var isStarted: Bool {
        if case .started = self { true } else { false }
    }

    /// Whether nothing is left of a run (the audio session lease too is given back then).
    var isIdle: Bool {
        if case .idle = self { true } else { false }
    }

    /// A second stop while the first is still putting things back: `onStopped` runs after the first's own.
    mutating func chain(_ onStopped: @escaping @Sendable () -> Void) {
        func chained(_ stopped: Stopped) -> Stopped {
            var stopped = stopped
            let earlier = stopped.onStopped
            stopped.onStopped = {
                earlier?()
                onStopped()
            }
            return stopped
        }
        switch self {
        case .stopping(let stopped): self = .stopping(chained(stopped))
        case .restoringWhenReady(let stopped): self = .restoringWhenReady(chained(stopped))
        case .idle, .started: break
        }
    }

    /// The stopped run's keep-alive and callback, while it is being put back.
    var stopped: Stopped? {
        switch self {
        case .stopping(let stopped), .restoringWhenReady(let stopped): stopped
        case .idle, .started: nil
        }
    }
}
