#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension VolumeButtonsError: CustomStringConvertible, LocalizedError {
    /// A sentence a person can act on: what went wrong and what to do.
    public var description: String {
        switch self {
        case .privateAPINotAllowed:
            "The system-notification strategy uses private API: set allowsPrivateAPI to opt in (App Review may reject it), or use the outputVolume strategy."
        case .strategyUnavailable(let strategy):
            "The \(strategy.rawValue) strategy does not work on this device or iOS version\(strategy == .captureEvents ? " (capture events need iOS 17.2 and a running camera)" : ""); use the outputVolume strategy."
        case .audioSession(let reason):
            "The audio session could not be activated (\(reason)); try again when no call or other app holds the audio."
        case .recoveryIncomplete(let reason):
            "The user's saved volume was not given back yet (\(reason)); it stays saved and is given back on its route the next time VolumeKit can."
        }
    }

    /// The same sentence, for `localizedDescription`.
    public var errorDescription: String? { description }
}

extension VolumeButtonsDiagnostic: CustomStringConvertible {
    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .unreadableNotification(let error):
            "A volume notification was not understood and was ignored (\(error))."
        case .volumeSetFailed(let value):
            "The phone's volume could not be confirmed at \(VolumeHUDDisplay.number(Double(value))) after repeated tries; the route may have no volume control (AirPlay, HDMI)."
        case .sessionActivationFailed(let reason):
            "The audio session could not be re-activated (\(reason)); it is tried again with backoff and on the next return to the foreground."
        case .sessionTakenOver(let category):
            "Another part of the app moved the audio session to \(category.rawValue); VolumeKit re-activated it and kept that category."
        case .captureEventsNotDelivered:
            "A press reached the system volume instead of the capture interaction: capture events need the app's camera running with its preview on screen."
        case .headroomExhausted:
            "Presses came faster than the volume could be reset and it reached 0 or 1; raise headroomSteps to absorb longer bursts."
        case .routeChangeNotNotified:
            "The audio route changed without a route-change notification, so a press made just after it may have been taken for the new route's own volume."
        case .routeVolumeUncertain:
            "The audio route changed while a volume set of VolumeKit's was on its way and may have landed on the new route, so the new route's volume may have been taken from that set; check it there."
        case .railPressesUnseen(let rail):
            "VolumeKit moved the volume off \(VolumeHUDDisplay.number(Double(rail))) to the user's volume; a press toward \(VolumeHUDDisplay.number(Double(rail))) while it was there is not reported by iOS and may have been undone."
        case .ambiguousStep:
            "A volume step came where either a hold's first auto-repeat or a second tap may come (0.3–0.7 s after the press, or on this phone's own rhythm once holds have shown it) and was reported as ambiguousStep says (a repeat by default); the two look the same."
        case .volumeControlUnavailable:
            "The audio route has no volume control (AirPlay or HDMI), so VolumeKit cannot hold the volume there: presses are reported as they change the volume, and the system volume HUD shows."
        case .outsideEnvelope(let rule, let value):
            "This phone's \(rule.rawValue) measured \(VolumeHUDDisplay.number(value)) s, outside the \(VolumeHUDDisplay.number(rule.range.lowerBound))–\(VolumeHUDDisplay.number(rule.range.upperBound)) s VolumeKit knows of iPhones; it is not used. A trace of this phone (the field check) would tell VolumeKit's authors how it behaves."
        case .recoveredAtUnconfirmedSet:
            "The user's volume was given back after a crash from a value VolumeKit's last set, never seen to land, may or may not have left; a press the user made since, had it ended on that same value, was undone."
        }
    }
}
