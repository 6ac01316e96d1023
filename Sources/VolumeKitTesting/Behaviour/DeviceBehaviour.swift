#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every rule of the simulated device that is an assumption about iOS rather than a known fact, as data:
/// its default (today's best guess), the plausible range or variants, and the sources.
///
/// VolumeKit must be right across the whole envelope, not at one point of it: the sweep runs the scenario
/// corpus and randomized sessions under many seeded samples (``sample(_:)``). The audit behind each range is
/// `shared/facts/envelope.md`. ``rules`` lists the same rules for the command line (`volumekit profiles`).
///
/// A default changes only when a source says iOS behaves differently — never to make the library pass.
public struct DeviceBehaviour: Sendable, Equatable {
    // MARK: Buttons and volume

    /// When the first auto-repeat step arrives after a button goes down and stays down.
    /// Default 0.65 s, plausible 0.3…0.7 s. SLVolumeButtonListener.m's 650 ms is a *release timeout* chosen
    /// longer than the real gap ("to detect when the volume no-longer changes"); the real rhythm is unmeasured
    /// (`shared/facts/envelope.md`, `shared/facts/volume-buttons.md` §1.2).
    public var firstRepeatDelay: TimeInterval = 0.65
    /// The interval between later auto-repeat steps. Default 0.2 s, plausible 0.06…0.2 s
    /// (SLVolumeButtonListener.m: "the repeat rate is faster on the second and subsequent"; envelope.md).
    public var repeatInterval: TimeInterval = 0.2
    /// How long a button stays down for a single press. Default 0.08 s, plausible 0.04…0.15 s (no source:
    /// a human tap; it matters because iOS 11+ refuses some sets while a down press lasts, seed 000).
    public var tapLength: TimeInterval = 0.08
    /// How a press moves the volume. Default ``StepQuantization/exact`` (1/16 from any value: seed 002,
    /// koze.hatenablog.jp on iOS 8.3: 0.1 → 0.1625); variants: ``StepQuantization/grid`` (snap to the 1/16
    /// grid) and ``StepQuantization/rounded`` (reads rounded to 1e-4: Apple forums thread 756484, 2024).
    public var stepQuantization: StepQuantization = .exact
    /// How iOS treats an app's set during a volume-down press. Default ``DownPressRefusal/seedShape``
    /// (seed 000: iOS 11+ refuses a set ≥ the pre-press value, other than 0); ``DownPressRefusal/cachedEqualSetDrop``
    /// (decompiled iOS 18.2 `MPVolumeControllerSystemDataSource -setVolume:` skips a set equal to its
    /// asynchronously updated cache — explains the seed too); ``DownPressRefusal/none`` (no evidence past
    /// iOS 13, JPSVolumeButtonHandler #58).
    public var downPressRefusal: DownPressRefusal = .seedShape
    /// With ``DownPressRefusal/cachedEqualSetDrop``: how long after a change the slider's cached volume
    /// catches up. Default 0.03 s, plausible 0.005…0.1 s (decompiled MediaPlayer: updated asynchronously).
    public var volumeCacheDelay: TimeInterval = 0.03
    /// How long after a change KVO on `outputVolume` (and the private notification) reaches the app.
    /// Default 0.005 s, plausible 0…0.03 s (no source; envelope.md).
    public var kvoLatency: TimeInterval = 0.005
    /// How long after the app's `setVolume` the slider's value reaches the system. Default 0.01 s, plausible
    /// 0.005…0.15 s (no source; decompiled MediaPlayer iOS 18.2: two async hops and a cross-process call).
    public var sliderLatency: TimeInterval = 0.01
    /// What the buttons change while the app has no active session and nothing plays. Default
    /// ``IdleButtons/media`` (today's guess); variant ``IdleButtons/ringer`` (cloudfour 2011, mbni 2016:
    /// with "Change with Buttons" on, the buttons move the ringer).
    public var idleButtons: IdleButtons = .media
    /// How a Control Center drag arrives. Default ``ControlCenterDrag/oneJump``; variant
    /// ``ControlCenterDrag/series`` (a real drag sends many intermediate values over ≈ 0.3 s; JPS PR #12
    /// confirms only that the app is inactive meanwhile).
    public var controlCenterDrag: ControlCenterDrag = .oneJump

    // MARK: HUD suppression

    /// How long after creation an `MPVolumeView` is ready (its slider usable, its HUD suppression in force).
    /// Default 0.1 s, plausible 0.05…1.0 s (no source; JPSVolumeButtonHandler waits 1 s: "There is a delay
    /// between setting the volume view before the system actually disables the HUD").
    public var volumeViewReadyDelay: TimeInterval = 0.1
    /// Whether the app's own sets show the system HUD when no ready, visible volume view is on screen
    /// (the app inactive, say). Default ``OwnSetHUD/hidden``; variant ``OwnSetHUD/shownWithoutVisibleView``
    /// (Signal-iOS: "displaying the system UI when doing so"; JPSVolumeButtonHandler #59).
    public var ownSetHUD: OwnSetHUD = .hidden

    // MARK: Routes

    /// The order of a route change's notification and the new route's KVO. Default
    /// ``RouteNotification/beforeKVO``; variants ``RouteNotification/afterKVO`` and ``RouteNotification/missing``
    /// (nothing guarantees the order: RBVolumeButtons #18; openradar 35432156: an `MPVolumeView` suppressed
    /// `routeChangeNotification` on iOS 11.2).
    public var routeNotification: RouteNotification = .beforeKVO
    /// The gap between the two of ``routeNotification``. Default 0 s, plausible 0…0.02 s (envelope.md).
    public var routeNotificationGap: TimeInterval = 0
    /// Whether AirPlay/HDMI (``/VolumeKitCore/AudioRoute/external``) has a volume slider. Default ``ExternalVolume/noSlider``
    /// (openradar 42881405: the slider disappears and sets fail); variant ``ExternalVolume/slider``.
    public var externalVolume: ExternalVolume = .noSlider

    // MARK: Session and interruptions

    /// What Siri's panel does to an app in front. Default ``SiriShape/interruptsWithoutEnd`` (openradar
    /// 44895456: the app goes inactive, its session is interrupted, then it is active again with no end);
    /// variants ``SiriShape/interruptsWithEnd`` and ``SiriShape/inactiveOnly``.
    public var siriShape: SiriShape = .interruptsWithoutEnd
    /// What happens when another component (an `AVCaptureSession` configuring the session, `AVPlayer`,
    /// `WKWebView`) takes over the app's session. Default ``SessionTakeover/deactivates`` (KVO stops and the
    /// HUD comes back until the app activates again: seed 002 "问题一", hirbod/react-native-volume-manager
    /// #40/#41, SubtleVolume #25); variant ``SessionTakeover/reconfiguresOnly`` (only the category changes).
    public var sessionTakeover: SessionTakeover = .deactivates

    // MARK: Lifecycle

    /// How long after entering the background the app is suspended (until then its code, timers and KVO
    /// still run). Default 0 s (today's guess), plausible 0…10 s (envelope.md: real suspension comes seconds
    /// later).
    public var suspensionDelay: TimeInterval = 0
    /// Which apps receive `AVCaptureEventInteraction` events. Default ``CaptureEventsGate/cameraRunning``
    /// (AVKit header and Signal-iOS: only apps actively using the camera); variant ``CaptureEventsGate/anyApp``
    /// (the simulator's earlier guess).
    public var captureEventsGate: CaptureEventsGate = .cameraRunning

    // MARK: Sounds

    /// Whether an iPad's Silent mode (Control Center) silences system sounds, so a probe can see it.
    /// Default ``IPadSilent/controlCenterToggle`` (MAME4iOS #62 is an iPad muted via Control Center;
    /// envelope.md); variant ``IPadSilent/none``.
    public var iPadSilent: IPadSilent = .controlCenterToggle

    // MARK: The wider world

    /// How a Bluetooth headset's own volume buttons move the volume. Default
    /// ``HeadsetButtons/sideButton`` (the press reaches iOS as a volume key and moves one step, as a side
    /// button does — a wired remote always does: JPSVolumeButtonHandler #23, its presses arrive without
    /// auto-repeat); variant ``HeadsetButtons/absoluteVolume`` (the headset steps its own absolute volume,
    /// Bluetooth AVRCP's 0…127 scale, and iOS takes its level: off the 1/16 grid — unverified,
    /// `shared/facts/envelope.md`; JPSVolumeButtonHandler #56: a Bluetooth headset's buttons did not work).
    public var headsetButtons: HeadsetButtons = .sideButton
    /// How long after a Bluetooth headset connects iOS takes the volume the headset stored itself (absolute
    /// volume sync), when it differs. Default 0.5 s, plausible 0.05…2 s (no measurement; envelope.md: "iOS
    /// synchronises Bluetooth absolute volume when a headset connects").
    public var bluetoothSyncDelay: TimeInterval = 0.5
    /// The EU headphone volume limit. Default ``HeadphoneLimit/none`` (today's guess); variant
    /// ``HeadphoneLimit/euWarning``: on headphones and Bluetooth, the first up press that would take the volume
    /// above ``headphoneLimitLevel`` shows a warning and moves nothing; the next ones go through (SO 29193657:
    /// "two clicks of the hardware volume up button are required").
    public var headphoneLimit: HeadphoneLimit = .none
    /// Where the EU warning sits, and the volume Headphone Notifications lower a louder one to
    /// (``SimulatedDevice/headphoneSafetyLowering()``). Default 0.75, plausible 0.5…0.9375 (no source for
    /// the slider's position: the EU asks for an 85 dB default limit, The Telegraph 2020; Apple: "a
    /// notification is sent and the volume is turned down").
    public var headphoneLimitLevel: Double = 0.75
    /// Whether the app is suspended in the background. Default ``BackgroundAudio/suspends``
    /// (``suspensionDelay`` after entering it); variant ``BackgroundAudio/neverSuspended``: an app with the
    /// audio background mode that keeps playing is never suspended and keeps its session (envelope.md).
    public var backgroundAudio: BackgroundAudio = .suspends
    /// The late interruption "began" iOS sends an app whose session it deactivated while suspended, when the
    /// app runs again (iOS 10.3–16: `AVAudioSessionInterruptionWasSuspendedKey`, then reason
    /// `.appWasSuspended` from 14.5; CSDN shengpeng3344 83617979: on every background → foreground trip).
    /// Default ``LateInterruptionBegan/none``; variants ``LateInterruptionBegan/onResume`` (delivered as the
    /// process resumes, before `didBecomeActive`) and ``LateInterruptionBegan/afterActive`` (just after it).
    public var lateInterruptionBegan: LateInterruptionBegan = .none
    /// How long a Control Center drag delivered as a ``ControlCenterDrag/series`` lasts, from its first value to
    /// its last (values 0.06 s apart). Default 0.24 s (five values: today's series, "≈ 0.3 s"), plausible
    /// 0.1…1.5 s (no source: a human drag; envelope.md).
    public var controlCenterDragLength: TimeInterval = 0.24

    /// The default behaviour: today's best guess for every rule.
    public init() {}

    /// The default behaviour (``sample(_:)`` with 0).
    public static let `default` = DeviceBehaviour()

    // MARK: - Variants

    /// How a press moves the volume (see ``stepQuantization``).
    public enum StepQuantization: String, Sendable, Equatable, CaseIterable {
        /// Exactly 1/16 from wherever the volume is.
        case exact
        /// To the next 1/16 grid point in the press's direction.
        case grid
        /// 1/16 from the value, and every value the app reads rounded to 1e-4.
        case rounded
    }

    /// How iOS treats a set during a volume-down press (see ``downPressRefusal``).
    public enum DownPressRefusal: String, Sendable, Equatable, CaseIterable {
        /// iOS 11+: during a down press a set ≥ the pre-press value (other than 0) is refused.
        case seedShape
        /// Any time: a set equal to the slider's cached volume is dropped; the cache follows changes late.
        case cachedEqualSetDrop
        /// Every set is applied.
        case none
    }

    /// What the buttons change while the app is idle (see ``idleButtons``).
    public enum IdleButtons: String, Sendable, Equatable, CaseIterable {
        /// The media volume, as while the app plays.
        case media
        /// The ringer: the media volume stays and the app sees nothing.
        case ringer
    }

    /// How a Control Center drag arrives (see ``controlCenterDrag``).
    public enum ControlCenterDrag: String, Sendable, Equatable, CaseIterable {
        /// One change to the final value.
        case oneJump
        /// Several intermediate values over ≈ 0.3 s, ending at the final value.
        case series
    }

    /// Whether the app's own sets show the HUD (see ``ownSetHUD``).
    public enum OwnSetHUD: String, Sendable, Equatable, CaseIterable {
        /// Never.
        case hidden
        /// When no ready, visible volume view is on screen.
        case shownWithoutVisibleView
    }

    /// Route notification order (see ``routeNotification``).
    public enum RouteNotification: String, Sendable, Equatable, CaseIterable {
        /// The notification, then the new route's KVO.
        case beforeKVO
        /// The new route's KVO, then the notification.
        case afterKVO
        /// Only the KVO; no notification.
        case missing
    }

    /// Whether external routes have a volume slider (see ``externalVolume``).
    public enum ExternalVolume: String, Sendable, Equatable, CaseIterable {
        /// No slider: the app's sets are lost on that route.
        case noSlider
        /// A slider, as on the speaker.
        case slider
    }

    /// What Siri does to an app in front (see ``siriShape``).
    public enum SiriShape: String, Sendable, Equatable, CaseIterable {
        /// Inactive, interruption began, active again; no end.
        case interruptsWithoutEnd
        /// Inactive, interruption began, ended, active again.
        case interruptsWithEnd
        /// Inactive, then active; the session is not touched.
        case inactiveOnly
    }

    /// What another component taking over the session does (see ``sessionTakeover``).
    public enum SessionTakeover: String, Sendable, Equatable, CaseIterable {
        /// The category changes, KVO stops and the HUD comes back until the app activates its session again.
        case deactivates
        /// Only the category changes.
        case reconfiguresOnly
    }

    /// Which apps receive capture events (see ``captureEventsGate``).
    public enum CaptureEventsGate: String, Sendable, Equatable, CaseIterable {
        /// Only while the app's camera session runs.
        case cameraRunning
        /// Any app.
        case anyApp
    }

    /// How a Bluetooth headset's buttons move the volume (see ``headsetButtons``).
    public enum HeadsetButtons: String, Sendable, Equatable, CaseIterable {
        /// As a side button: one step (``stepQuantization``).
        case sideButton
        /// To the next level of the headset's own 16 steps on AVRCP's 0…127 scale (8/127), off the 1/16 grid.
        case absoluteVolume
    }

    /// The EU headphone volume limit (see ``headphoneLimit``).
    public enum HeadphoneLimit: String, Sendable, Equatable, CaseIterable {
        /// No limit.
        case none
        /// The first up press past ``headphoneLimitLevel`` on a route shows a warning and moves nothing.
        case euWarning
    }

    /// Whether the app is suspended in the background (see ``backgroundAudio``).
    public enum BackgroundAudio: String, Sendable, Equatable, CaseIterable {
        /// Suspended ``suspensionDelay`` after entering the background.
        case suspends
        /// Never suspended: the audio background mode, playing.
        case neverSuspended
    }

    /// The late interruption "began" on return (see ``lateInterruptionBegan``).
    public enum LateInterruptionBegan: String, Sendable, Equatable, CaseIterable {
        /// None.
        case none
        /// As the process resumes, before `didBecomeActive`.
        case onResume
        /// Just after `didBecomeActive`.
        case afterActive
    }

    /// The iPad's Silent mode (see ``iPadSilent``).
    public enum IPadSilent: String, Sendable, Equatable, CaseIterable {
        /// Silent mode in Control Center silences system sounds.
        case controlCenterToggle
        /// No Silent mode: system sounds always play.
        case none
    }
}
