#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A problem while the buttons drive a target; each is a sentence a person can act on (``description``).
public enum VolumeDriveDiagnostic: Sendable, Equatable, CustomStringConvertible {
    /// The target could not start (`reason` is its error's description): capture and the HUD were stopped,
    /// so the buttons change the phone's volume again.
    case targetUnavailable(String)
    /// Button capture could not start (reported by the shells, whose `start` cannot throw to the app).
    case captureUnavailable(VolumeButtonsError)
    /// Button capture reported a problem that did not stop it.
    case capture(VolumeButtonsDiagnostic)
    /// Capture was still not ready this many seconds after start (no window for the volume view yet:
    /// launched into the background, an alert or Face ID up); it begins by itself once one exists.
    case captureNotReady(after: TimeInterval)
    /// On stop, the last level asked for was still not confirmed after this many seconds; the target was
    /// stopped anyway (the device may keep an older level).
    case lastLevelUnconfirmed(after: TimeInterval)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .targetUnavailable(let reason):
            "The device could not be reached (\(reason)), so the volume buttons control the phone again; connect to it and show the view again."
        case .captureUnavailable(let error):
            "The volume buttons could not be captured. \(error.description)"
        case .capture(let diagnostic):
            "Button capture: \(diagnostic.description)"
        case .captureNotReady(let seconds):
            "Button capture was not ready after \(VolumeHUDDisplay.number(seconds)) s because no window of the app's active scene could host the volume view yet; it starts as soon as one exists."
        case .lastLevelUnconfirmed(let seconds):
            "The device had not confirmed the last volume after \(VolumeHUDDisplay.number(seconds)) s when the view went away; it may keep an older level."
        }
    }
}
