#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Whether a ``VolumeHUDEngine`` makes the app's audio session live. iOS hides its own volume HUD only while
/// the app's session is active (`shared/facts/volume-hud.md`; seed 002 §1), and `outputVolume` only follows the
/// user's presses then (seed 001): a HUD in an app whose session is inactive sees nothing and the system HUD
/// shows over it.
public enum VolumeHUDSessionActivation: String, Sendable, Equatable, CaseIterable {
    /// The default: when the app has no session of its own (its category is still iOS's default) VolumeKit
    /// activates one that mixes with others (`.playback` + `.mixWithOthers`, ``AudioSessionConfiguration/playbackMixing``),
    /// so other apps' audio keeps playing, and gives the app's default back when the HUD stops. When another
    /// VolumeKit feature already holds the session (button capture), the HUD joins it. An app that set a
    /// category of its own keeps it, untouched: it activates its session itself, and the HUD reports
    /// ``VolumeHUDDiagnostic/sessionNotLive(_:)`` until VolumeKit knows the session is live.
    case automatic
    /// Join VolumeKit's hold on the session whatever the app's category (it is kept; an app with none gets
    /// VolumeKit's mixing one), and re-activate on foreground and after interruptions — except when that would
    /// stop other apps' audio (``SessionReactivation``).
    case always
    /// Never touch the session: the system HUD stays hidden only while the app's own session, or another VolumeKit
    /// feature's, is active.
    case never
}

/// How a ``VolumeHUDEngine`` runs.
public struct VolumeHUDOptions: Sendable, Equatable {
    /// Where the level comes from (``VolumeHUDLevelSource/systemVolume`` by default).
    public var levelSource: VolumeHUDLevelSource
    /// Hide the system volume HUD while running, through the shared volume view (on by default).
    public var suppressesSystemHUD: Bool
    /// Whether the HUD makes the app's audio session live (``VolumeHUDSessionActivation/automatic`` by
    /// default: a mixing session when the app has none, never stopping other apps' audio).
    public var sessionActivation: VolumeHUDSessionActivation
    /// Seconds the HUD stays after the last change.
    public var hideDelay: TimeInterval
    /// How long after start the volume view may take to become ready before
    /// ``VolumeHUDDiagnostic/volumeViewNotReady(after:)`` is reported (the HUD keeps waiting).
    public var readinessTimeout: TimeInterval
    /// The language of VoiceOver announcements; `nil` follows the app's language (``strings``).
    public var language: VolumeKitStrings.Language?

    /// Whether the HUD joins VolumeKit's hold on the session whatever the app's category
    /// (``VolumeHUDSessionActivation/always``). Setting `false` gives ``VolumeHUDSessionActivation/automatic``,
    /// which still activates a mixing session in an app that has none; ``VolumeHUDSessionActivation/never``
    /// touches nothing.
    public var activatesAudioSession: Bool {
        get { sessionActivation == .always }
        set { sessionActivation = newValue ? .always : .automatic }
    }

    /// Creates options. `activatesAudioSession: true` is ``VolumeHUDSessionActivation/always``; `false`, the
    /// default, is ``VolumeHUDSessionActivation/automatic``.
    public init(
        levelSource: VolumeHUDLevelSource = .systemVolume,
        suppressesSystemHUD: Bool = true,
        activatesAudioSession: Bool = false,
        hideDelay: TimeInterval = VolumeHUDStyle.classic.autoHideDelay,
        readinessTimeout: TimeInterval = 5,
        language: VolumeKitStrings.Language? = nil
    ) {
        self.init(
            levelSource: levelSource, suppressesSystemHUD: suppressesSystemHUD,
            sessionActivation: activatesAudioSession ? .always : .automatic, hideDelay: hideDelay,
            readinessTimeout: readinessTimeout, language: language)
    }

    /// Creates options with the session activation spelled out (e.g. ``VolumeHUDSessionActivation/never``).
    public init(
        levelSource: VolumeHUDLevelSource = .systemVolume,
        suppressesSystemHUD: Bool = true,
        sessionActivation: VolumeHUDSessionActivation,
        hideDelay: TimeInterval = VolumeHUDStyle.classic.autoHideDelay,
        readinessTimeout: TimeInterval = 5,
        language: VolumeKitStrings.Language? = nil
    ) {
        self.levelSource = levelSource
        self.suppressesSystemHUD = suppressesSystemHUD
        self.sessionActivation = sessionActivation
        self.hideDelay = hideDelay
        self.readinessTimeout = readinessTimeout
        self.language = language
    }

    /// Whether the HUD needs a live session: to hide the system HUD, or to follow `outputVolume`.
    var needsLiveSession: Bool { suppressesSystemHUD || levelSource == .systemVolume }
}
