import Foundation

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

/// The engine's volume view (`MPVolumeView` on iOS): sets through it are lost until it is ready.
enum VolumeViewState {
    /// None installed (or torn down).
    case absent
    /// Installed, not ready yet.
    case installing(CancellationHandle)
    /// Ready; `nil` when the strategy needs no view (it is ready at once).
    case ready(CancellationHandle?)

    /// Whether sets can be made (the view is ready, or none is needed).
    var isReady: Bool {
        if case .ready = self { true } else { false }
    }

    /// The installed view, to remove on teardown.
    var handle: CancellationHandle? {
        switch self {
        case .absent: nil
        case .installing(let handle): handle
        case .ready(let handle): handle
        }
    }
}

/// Whether the app and its audio session let the engine read and hold the volume.
struct CaptureLiveness {
    /// The app is active: presses are input (seed 000's lifecycle).
    var isAppActive = true
    /// An interruption began and did not end.
    var isInterrupted = false
    /// `outputVolume` reads are live: the session is active (seed 001: stale otherwise).
    var isSessionLive = false
}
