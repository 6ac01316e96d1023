#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// When VolumeKit's volume view is *told* ready, and when VolumeKit believes it.
///
/// iOS gives no signal that an `MPVolumeView` has wired its slider and hides the HUD: a set through a view that is
/// not ready yet is lost (decompiled MediaPlayer `setVolume:withNotificationDelay:` does nothing until volume control
/// is available; JPSVolumeButtonHandler #13/#20), and how long it takes is 0.05–1 s across the envelope
/// (`volumeViewReadyDelay`; JPSVolumeButtonHandler waits 1 s: "There is a delay between setting the volume view
/// before the system actually disables the HUD"). So the iOS host tells a view ready on a fixed timer, ``hostDelay``
/// after it reaches a window, and the simulated device does the same — it never knows the true readiness either —
/// while its sets still need the view truly ready.
///
/// The engine makes its sets from then on (a lost one is made again, ``VolumeStepMachine/Configuration/retryDelay``)
/// but claims capture (`onReady`, ``VolumeButtonsEngine/isCapturing``) only once the view has proven itself: a set
/// made through it confirmed by an observation, or — when the volume already sat at the anchor and no set was
/// needed — ``slowest`` after the view was installed, when every phone of the envelope has it ready. Before that,
/// a press may still show the system HUD, and VolumeKit does not say it captures.
public enum VolumeViewReadiness {
    /// How long after a view reaches a window the host calls its `onReady`: the HUD controller's update is
    /// coalesced through the main queue, a run loop turn or two; most phones are ready by then, the slowest in
    /// the envelope are not (1 s), and their first sets are made again until one lands.
    public static let hostDelay: TimeInterval = 0.15
    /// The envelope's slowest readiness (`volumeViewReadyDelay` 0.05–1 s; JPSVolumeButtonHandler's 1 s wait): by
    /// then a view installed is ready on every phone VolumeKit knows, with no set needed to show it.
    public static let slowest: TimeInterval = 1
}
