#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Whether the app and its audio session let the engine read and hold the volume.
struct CaptureLiveness {
    /// The app is active: presses are input (seed 000's lifecycle).
    var isAppActive = true
    /// An interruption began and did not end.
    var isInterrupted = false
    /// `outputVolume` reads are live: the session is active (seed 001: stale otherwise).
    var isSessionLive = false
}
