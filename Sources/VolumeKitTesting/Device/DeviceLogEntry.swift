import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Errors the simulated system returns where iOS would.
public enum SimulatedDeviceError: Error, Sendable, Equatable {
    /// `AVAudioSession.ErrorCode.insufficientPriority`: a call or an alarm holds the audio hardware.
    case insufficientPriority
    /// The app's process is not running.
    case appNotRunning
    /// `AVAudioSession.ErrorCode.isBusy`: the session was asked to deactivate while audio I/O ran (the
    /// primer's silent sound); it stays active ("Deactivating an audio session that has running I/O. All I/O
    /// should be stopped or paused prior to deactivating the audio session", AVAudioSession.mm).
    case sessionBusy
    /// `AVAudioSession.ErrorCode.incompatibleCategory` (`!cat`): the category does not go with the
    /// session's mode — `.videoRecording` "is valid only with the record and playAndRecord categories"
    /// (AVAudioSession docs; `shared/facts/envelope.md`).
    case incompatibleCategory
}

/// Something notable the simulated device did.
public enum DeviceLogEntry: Sendable, Equatable {
    /// What moved the volume.
    public enum Cause: Sendable, Equatable {
        /// A hardware button press or auto-repeat.
        case button(VolumeButton)
        /// The Control Center slider.
        case controlCenter
        /// The app, through the `MPVolumeView` slider.
        case app
        /// Another source set the user's volume, named as ``TruthRecord/Action/volume(_:by:)`` names it: a
        /// Bluetooth headset's own stored volume after it connects (`bluetoothSync`), or Headphone
        /// Notifications turning it down (`headphoneSafety`). A headset's buttons are a `.button` cause.
        case otherSource(String)
    }
    /// The system volume HUD appeared for a press, showing `volume`.
    case systemHUD(Instant, Float)
    /// The system volume HUD appeared for one of the app's own sets (``DeviceBehaviour/ownSetHUD``).
    case systemHUDForSet(Instant, Float)
    /// The volume of `route` became `volume`.
    case volume(Instant, AudioRoute, Float, Cause)
    /// The phone-call volume became this.
    case callVolume(Instant, Float)
    /// The ringer volume became this (``DeviceBehaviour/IdleButtons/ringer``).
    case ringerVolume(Instant, Float)
    /// The app's programmatic set took effect.
    case programmaticSet(Instant, Float)
    /// The app's programmatic set was refused around a volume-down press (``DeviceBehaviour/downPressRefusal``).
    case setRefused(Instant, Float)
    /// The app's programmatic set was lost (no ready volume view, or a route without volume control).
    case setIgnored(Instant, Float, reason: String)
    /// The app activated its session.
    case sessionActivated(Instant)
    /// The session was deactivated, by the system (background, interruption) or by the app.
    case sessionDeactivated(Instant, bySystem: Bool, notifiedOthers: Bool = false)
    /// Another component of the app (camera, player, web view) took its session over.
    case sessionTakenOver(Instant, by: String)
    /// Another app's audio was interrupted by the app's session.
    case otherAudioInterrupted(Instant)
    /// The app's state became this.
    case appState(Instant, AppState)
    /// The app's process started.
    case appLaunched(Instant)
    /// The app's process ended (crash or kill).
    case appEnded(Instant)
    /// iOS sent the late interruption "began" for the time the app was suspended
    /// (``DeviceBehaviour/lateInterruptionBegan``); `delivered` is false where VolumeKit's live client drops it
    /// (reason `.appWasSuspended`, iOS 14.5–15).
    case lateInterruptionBegan(Instant, delivered: Bool)
    /// The EU headphone warning took a step up past ``DeviceBehaviour/headphoneLimitLevel`` on `route`: the
    /// volume stayed (``DeviceBehaviour/HeadphoneLimit/euWarning``).
    case volumeLimitWarning(Instant, AudioRoute)
    /// A system sound played (or was skipped) — see `SimulatedDevice+Sounds.swift`.
    case systemSound(Instant, SystemSoundID, played: Bool)
}
