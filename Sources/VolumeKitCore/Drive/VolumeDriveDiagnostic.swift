import Foundation

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
            "The volume buttons could not be captured: \(VolumeDriveDiagnostic.sentence(for: error))"
        case .capture(let diagnostic):
            "Button capture: \(VolumeDriveDiagnostic.sentence(for: diagnostic))"
        case .captureNotReady(let seconds):
            "Button capture was not ready after \(VolumeHUDDisplay.number(seconds)) s because no window of the app's active scene could host the volume view yet; it starts as soon as one exists."
        case .lastLevelUnconfirmed(let seconds):
            "The device had not confirmed the last volume after \(VolumeHUDDisplay.number(seconds)) s when the view went away; it may keep an older level."
        }
    }

    private static func sentence(for error: VolumeButtonsError) -> String {
        switch error {
        case .privateAPINotAllowed:
            "the system-notification strategy is private API; set allowsPrivateAPI to opt in, or use the outputVolume strategy."
        case .strategyUnavailable(let strategy):
            "the \(strategy.rawValue) strategy does not work on this device or iOS version; use the outputVolume strategy."
        case .audioSession(let reason):
            "the audio session could not be activated (\(reason)); try again when no call holds the audio."
        }
    }

    private static func sentence(for diagnostic: VolumeButtonsDiagnostic) -> String {
        switch diagnostic {
        case .unreadableNotification(let error):
            "a volume notification was not understood and was ignored (\(error))."
        case .volumeSetFailed(let value):
            "the phone's volume could not be confirmed at \(VolumeHUDDisplay.number(Double(value))) after repeated tries."
        case .sessionActivationFailed(let reason):
            "the audio session could not be re-activated (\(reason)); it is tried again on the next return to the foreground."
        case .sessionTakenOver(let category):
            "another part of the app changed the audio session's category to \(category); VolumeKit kept it and re-activated the session."
        case .captureEventsNotDelivered:
            "a press reached the system volume instead of the app: capture events need the camera running with a preview on screen."
        case .headroomExhausted:
            "presses came faster than VolumeKit could reset the volume; some presses at the rail were not seen (a larger headroomSteps helps)."
        }
    }
}
