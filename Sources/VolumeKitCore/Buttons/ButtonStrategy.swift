#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How VolumeKit learns about volume-button presses.
public enum ButtonStrategy: String, Sendable, Equatable, CaseIterable {
    /// Public API only (the default): key-value observation of `AVAudioSession.outputVolume`, with the
    /// volume held inside a headroom away from the rails so presses at 0 and 1 still register (seed 000).
    case outputVolume
    /// The private system-volume notification (`SystemVolumeDidChange`, before iOS 15
    /// `AVSystemController_SystemVolumeDidChangeNotification`). It reports presses at the rails without
    /// headroom, but it is **private API**: App Review may reject an app that uses it (guideline 2.5.1, and
    /// 2.5.9 on altering the volume switches). Requires ``VolumeButtonsConfiguration/allowsPrivateAPI``.
    case systemNotification
    /// `AVCaptureEventInteraction` (iOS 17.2+): official, with real press and release, but only for apps
    /// that are actively using the camera (`shared/facts/volume-buttons.md` §3).
    case captureEvents
}

/// Everything that shapes how ``VolumeButtonsEngine`` captures presses.
public struct VolumeButtonsConfiguration: Sendable, Equatable {
    /// Where presses come from.
    public var strategy: ButtonStrategy
    /// Hold the volume still (``ButtonCaptureMode/capture``) or let it change (``ButtonCaptureMode/passive``).
    /// ``ButtonStrategy/captureEvents`` always holds it: the interaction overrides the buttons.
    public var mode: ButtonCaptureMode
    /// The audio session used while capturing. `.playback` + `.mixWithOthers` by default, so other apps'
    /// audio keeps playing (JPSVolumeButtonHandler #22/#39/#46; `shared/facts/volume-buttons.md` §1.1).
    /// A category the app set that already plays or records is kept, with its mode and options
    /// (``AudioSessionLease``); ``ButtonStrategy/captureEvents`` takes no session at all and ignores this.
    public var session: AudioSessionConfiguration
    /// Repeat and release timing.
    public var timing: ButtonTiming
    /// How many 1/16 steps ``ButtonStrategy/outputVolume`` keeps the volume from 0 and 1, at the least.
    public var headroomSteps: Int
    /// How the headroom grows beyond ``headroomSteps`` on a phone whose sets take long to land (the measured
    /// round trip, ``CalibrationRule/roundTrip``), so a burst at a rail keeps every press. Set its
    /// ``HeadroomPolicy/maximumSteps`` to ``headroomSteps`` for a fixed headroom.
    public var headroomPolicy = HeadroomPolicy()
    /// What a step that may be a hold's first repeat or a second tap is reported as — any step 0.3–0.7 s after a
    /// press until a hold has shown the phone's own rhythm, then only one on that rhythm: ``AmbiguousStepPolicy/repeated`` by
    /// default — a hold stays one press, and a speaker nudged on every step misses nothing either way; a shutter
    /// that must never miss a quick second tap chooses ``AmbiguousStepPolicy/pressed`` and counts a hold's start
    /// twice.
    public var ambiguousStep = AmbiguousStepPolicy.repeated
    /// The explicit opt-in to private Apple API, needed by ``ButtonStrategy/systemNotification``.
    public var allowsPrivateAPI: Bool

    /// Creates a configuration.
    public init(
        strategy: ButtonStrategy = .outputVolume,
        mode: ButtonCaptureMode = .capture,
        session: AudioSessionConfiguration = .playbackMixing,
        timing: ButtonTiming = .standard,
        headroomSteps: Int = 2,
        allowsPrivateAPI: Bool = false
    ) {
        self.strategy = strategy
        self.mode = mode
        self.session = session
        self.timing = timing
        self.headroomSteps = headroomSteps
        self.allowsPrivateAPI = allowsPrivateAPI
    }
}

/// Why capture could not start.
public enum VolumeButtonsError: Error, Sendable, Equatable {
    /// ``ButtonStrategy/systemNotification`` needs ``VolumeButtonsConfiguration/allowsPrivateAPI``.
    case privateAPINotAllowed
    /// The strategy does not work on this device or OS (e.g. capture events before iOS 17.2).
    case strategyUnavailable(ButtonStrategy)
    /// The audio session could not be configured or activated (e.g. during a phone call).
    case audioSession(String)
    /// A recovery (``VolumeRecovery``) could not give the saved volume back yet, for the reason given (the route
    /// changed before it could, the restore was not confirmed in time); the record is kept for its route.
    case recoveryIncomplete(String)
}

/// Something worth knowing that did not stop capture.
public enum VolumeButtonsDiagnostic: Sendable, Equatable {
    /// A notification's payload was not understood; it was ignored.
    case unreadableNotification(VolumeNotificationError)
    /// A volume set could not be confirmed after repeated tries.
    case volumeSetFailed(Float)
    /// The audio session could not be re-activated (it is tried again with backoff while the app is active,
    /// and on the next foreground).
    case sessionActivationFailed(String)
    /// Another component of the app (an `AVCaptureSession`, `AVPlayer`, `WKWebView`) changed the session's
    /// category: VolumeKit re-activated the session and kept the component's category, which it needs
    /// (seed 002 "问题一", hirbod/react-native-volume-manager #40/#41, SubtleVolume #25).
    case sessionTakenOver(AudioCategory)
    /// With ``ButtonStrategy/captureEvents``, a press reached the system volume instead of the capture
    /// interaction: iOS delivers capture events only to an app whose camera is running with a preview on
    /// screen (AVKit header; Signal-iOS). Presses are not captured until the camera runs. Capture events take
    /// no audio session, so the press is seen only while the app's own session is active and has played audio
    /// (`outputVolume` is stale otherwise, seed 001).
    case captureEventsNotDelivered
    /// With ``ButtonStrategy/outputVolume``, presses came faster than VolumeKit's resets could land (a slow
    /// slider, or resets refused during held down presses) and the volume reached 0 or 1 while capturing:
    /// further presses there are not observed until a reset lands. A larger
    /// ``VolumeButtonsConfiguration/headroomSteps`` absorbs longer bursts. Raised each time the volume arrives at
    /// a rail while capturing, or is found there when VolumeKit sets its anchor again (a held down press refuses
    /// it), not again while it stays there.
    case headroomExhausted
    /// The output route changed without `AVAudioSession.routeChangeNotification` (seen only with a later volume
    /// change or read — VolumeKit reads the route every 50 ms while started: RBVolumeButtons #18, openradar
    /// 35432156; `shared/facts/envelope.md`). Until such a change is seen, a press made on the new route cannot be
    /// told from the new route's own volume, so it may be taken for it (not reported, and the user's volume there
    /// moved by it). Raised for each such change, once
    /// its notification has not come within a quarter of a second of the change being read — or at `stop()`, when
    /// it has not come within a tenth of a second (the stop does not wait out the rest).
    case routeChangeNotNotified
    /// With ``ButtonStrategy/outputVolume``, the output route changed while a set of VolumeKit's made on the old
    /// route could still land (iOS applies a set to whichever route is current when it arrives), and the new
    /// route read exactly that set's value, with no volume change of its own showing the change (both routes
    /// had the same volume). The new route's own volume is then either that value or the old route's: iOS
    /// reports nothing that tells them apart (`shared/facts/envelope.md`: slider and KVO latencies, route
    /// notification order). VolumeKit takes the value read for the new route's own, which may leave that route
    /// a step or more off the user's volume. Raised for each such route change.
    case routeVolumeUncertain
    /// With ``ButtonStrategy/outputVolume``, VolumeKit moved the volume off 0 or 1 (the given rail), where it had
    /// been left by VolumeKit (a restore of its own landing after the user's press, a crashed run's walked
    /// volume, or its resets lost, read there once reads were live again), to the user's volume. A press toward
    /// that rail while the volume sat there changes nothing iOS reports (no `outputVolume` change at a rail), so
    /// such a press cannot be seen and is undone by the set.
    /// ``ButtonStrategy/systemNotification`` reports presses at the rails.
    case railPressesUnseen(Float)
    /// A recovery gave the user's volume back from a value a crashed run's last set, never seen to land, may or
    /// may not have left: the value it was setting again after its nudge below it
    /// (``PendingRestore/heldSetUnconfirmed``) — iOS 11+ refuses sets during a held down press (seed 000), and on a
    /// device whose presses snap to the 1/16 grid (`shared/facts/envelope.md`: `stepQuantization`) a press the
    /// user made since from the nudge ends on that value too — or the value it was setting the volume away from
    /// (``PendingRestore/leftVolume``), where presses the user made from the value it was setting may have ended.
    /// Nothing tells the two apart: such presses are undone.
    case recoveredAtUnconfirmedSet
    /// With a KVO strategy (``ButtonStrategy/outputVolume``, ``ButtonStrategy/systemNotification``), a step was
    /// read as a hold's first auto-repeat from its timing alone: iOS's first repeat may come anywhere from 0.3 to
    /// 0.7 s after the press (`shared/facts/envelope.md`, `firstRepeatDelay`), so a second tap of the same button
    /// at that pace looks the same; it is reported as ``VolumeButtonsConfiguration/ambiguousStep`` says (`repeated`
    /// by default). Once a hold has shown the phone's own rhythm, only a step on it is ambiguous. Raised at each
    /// such step; an app that acts on every step (a speaker's volume) can ignore it.
    case ambiguousStep
    /// The current route has no volume control (an AirPlay or HDMI output: the volume view shows no slider,
    /// openradar 42881405): VolumeKit cannot hold the volume there, so each press is reported as it changes the
    /// volume — which stays the user's, as in passive mode — and the system HUD shows (the volume view hides it
    /// only with its slider; `shared/facts/volume-hud.md`). Presses at 0 or 1 change nothing and are not seen
    /// with ``ButtonStrategy/outputVolume``. Raised for each route without volume control VolumeKit meets;
    /// capture resumes on the next route that has it.
    case volumeControlUnavailable
    /// VolumeKit measured one of this phone's rules (``CalibrationMachine``) outside the range it knows of
    /// iPhones (``CalibrationRule/range``, `shared/facts/envelope.md`): the measurement, in seconds, is kept apart
    /// and never used (``CalibrationEstimate/outsideSamples``) — VolumeKit keeps to the envelope's values, which
    /// such a phone may not suit. Raised once a rule a run; a trace recorded then is what VolumeKit's authors
    /// most want to see (the field check).
    case outsideEnvelope(CalibrationRule, Double)
}
