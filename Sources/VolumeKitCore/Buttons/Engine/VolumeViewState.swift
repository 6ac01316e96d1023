import Foundation

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
