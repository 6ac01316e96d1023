#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The engine's volume view (`MPVolumeView` on iOS): sets through it are lost until it is ready, and iOS never
/// says when that is (``VolumeViewReadiness``).
enum VolumeViewState {
    /// None installed (or torn down).
    case absent
    /// Installed at `since`, not told ready yet.
    case installing(CancellationHandle, since: Instant)
    /// Told ready by the host's timer (installed at `since`): sets are made through it, and may still be lost.
    /// `setMade`: a set has been made through it since, not seen back yet.
    case told(CancellationHandle, since: Instant, setMade: Bool)
    /// Proven ready — a set through it confirmed, or long enough since it was installed (``provenAt``) — or, `nil`,
    /// none is needed (ready at once).
    case ready(CancellationHandle?)

    /// Whether sets can be made (the view is told ready or proven, or none is needed).
    var isReady: Bool {
        switch self {
        case .absent, .installing: false
        case .told, .ready: true
        }
    }

    /// Whether capture may be claimed: the view proven ready, or none needed.
    var isProven: Bool {
        if case .ready = self { true } else { false }
    }

    /// When the view counts as ready without a confirmed set (`nil` unless it is told ready and not proven yet):
    /// ``VolumeViewReadiness/slowest`` after it was installed when no set was needed, by when every phone of the
    /// envelope has it ready; twice that once a set was made and not seen back — a set made before the view was
    /// ready is lost, and is not to be taken as landed because time passed; the one made again comes back (a set of
    /// the value the volume already has comes back from no view: hence a limit).
    var provenAt: Instant? {
        guard case .told(_, let since, let setMade) = self else { return nil }
        return since + VolumeViewReadiness.slowest * (setMade ? 2 : 1)
    }

    /// The host's timer told the view ready at `now`: an installed view waits for a set through it to come back
    /// (`proving`), counted from its arrival in a window (``VolumeViewReadiness/hostDelay`` before `now`), not from
    /// the request — with no foreground window yet (a launch into the background) the host places it later; else, or
    /// with none installed, it is ready at once.
    mutating func told(at now: Instant, proving: Bool) {
        if proving, case .installing(let handle, let since) = self {
            self = .told(handle, since: max(since, now - VolumeViewReadiness.hostDelay), setMade: false)
        } else {
            self = .ready(handle)
        }
    }

    /// A set was made through the view.
    mutating func setMade() {
        if case .told(let handle, let since, false) = self { self = .told(handle, since: since, setMade: true) }
    }

    /// When the view was installed, while no set through it is confirmed yet (installing, or told ready).
    var unprovenSince: Instant? {
        switch self {
        case .installing(_, let since), .told(_, let since, _): since
        case .absent, .ready: nil
        }
    }

    /// Whether a set made through the view at `time` may have been lost, not only late: the view not proven yet, and
    /// the set made before ``VolumeViewReadiness/slowest`` after it was installed — by then every phone of the
    /// envelope has it ready (0.05–1 s, `shared/facts/envelope.md`), so a set made later lands.
    func mayHaveLost(setAt time: Instant?) -> Bool {
        guard let since = unprovenSince, let time else { return false }
        return time < since + VolumeViewReadiness.slowest
    }

    /// The installed view, to remove on teardown.
    var handle: CancellationHandle? {
        switch self {
        case .absent: nil
        case .installing(let handle, _): handle
        case .told(let handle, _, _): handle
        case .ready(let handle): handle
        }
    }

    /// A set made through the view came back (its echo observed): the view takes sets, so it is ready.
    mutating func confirm() {
        if case .told(let handle, _, _) = self { self = .ready(handle) }
    }
}
