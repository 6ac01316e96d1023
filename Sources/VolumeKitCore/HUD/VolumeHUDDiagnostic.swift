#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A problem that did not stop the HUD.
public enum VolumeHUDDiagnostic: Sendable, Equatable, CustomStringConvertible {
    /// The audio session could not be activated (a call holds the audio): levels may stay stale until the
    /// next foreground.
    case sessionActivationFailed(String)
    /// The volume view did not become ready within this many seconds (no window yet: launched into the
    /// background, an alert or Face ID up). The system HUD may show until it does; the HUD keeps waiting.
    case volumeViewNotReady(after: TimeInterval)
    /// The volume view is ready but VolumeKit does not know the app's audio session to be live, so iOS may
    /// show its own volume HUD on a press (``VolumeHUDEngine/isSystemHUDSuppressed`` is `false`), for the
    /// reason given.
    case sessionNotLive(VolumeHUDSessionIssue)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .sessionActivationFailed(let reason):
            "The audio session could not be activated (\(reason)); the HUD follows the volume again once the app can play audio."
        case .volumeViewNotReady(let seconds):
            "The volume view was not in a window after \(VolumeHUDDisplay.number(seconds)) s, so the system volume HUD may still show; it is hidden as soon as a window of the app's active scene exists."
        case .sessionNotLive(let issue):
            "The system volume HUD may show over VolumeKit's: \(issue)."
        }
    }
}

/// Why a ``VolumeHUDEngine`` cannot count on a live audio session.
public enum VolumeHUDSessionIssue: Sendable, Equatable, CustomStringConvertible {
    /// The app set a category of its own (given), which ``VolumeHUDSessionActivation/automatic`` leaves to the
    /// app, and no other VolumeKit feature holds the session.
    case appOwnsSession(AudioCategory)
    /// ``VolumeHUDSessionActivation/never``, and no other VolumeKit feature holds the session.
    case activationOff
    /// VolumeKit left the session inactive on returning, so as not to stop other audio.
    case reactivationHeld(SessionReactivationHold)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .appOwnsSession(let category):
            "the app set its own audio category (\(category.rawValue)), which VolumeKit leaves alone, so iOS hides its HUD only while the app's session is active; activate it, or pass sessionActivation: .always"
        case .activationOff:
            "sessionActivation is .never and no audio session of VolumeKit's is active; activate the app's session, or use the default .automatic"
        case .reactivationHeld(let hold):
            "the audio session was not activated again: \(hold)"
        }
    }
}
