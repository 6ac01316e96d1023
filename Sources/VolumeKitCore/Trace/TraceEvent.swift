#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One line of a trace after the header: something that crossed a client, at a monotonic time.
public struct TraceRecord: Sendable, Equatable {
    /// Seconds since the trace began (the header's ``TraceHeader/clockOrigin``). Never decreases.
    public var time: Double
    /// What happened.
    public var event: TraceEvent
    /// The VolumeKit feature whose clients it crossed (`buttons`, `mute`, …), when the recording was tagged.
    public var feature: String?

    /// Creates a record.
    public init(time: Double, event: TraceEvent, feature: String? = nil) {
        self.time = time
        self.event = event
        self.feature = feature
    }
}

/// An observation channel of the clients: each subscription gets its own observer number, so a replay
/// delivers each recorded value to the same subscriber.
public enum TraceChannel: String, Sendable, Equatable, CaseIterable {
    /// `SystemVolumeClient.observeOutputVolume` (KVO of `outputVolume`).
    case outputVolume
    /// `SystemVolumeClient.observeSystemNotifications` (the private notification).
    case systemNotifications
    /// `AppLifecycleClient.observe`.
    case lifecycle
    /// `CaptureEventClient.observe`.
    case captureEvents
}

/// A value the app read from a client, as the client answered.
public enum TraceReading: Sendable, Equatable {
    /// `outputVolume` (possibly stale: seed 001).
    case outputVolume(Float)
    /// The current route.
    case route(AudioRoute)
    /// The app's state.
    case appState(AppState)
    /// The session's category and options.
    case configuration(AudioSessionConfiguration)
    /// `isOtherAudioPlaying`.
    case otherAudioPlaying(Bool)
    /// `secondaryAudioShouldBeSilencedHint`: another app's non-mixable audio is playing (trace format 3).
    case secondaryAudioShouldBeSilencedHint(Bool)
    /// Whether capture events are available.
    case captureAvailable(Bool)
    /// A key-value store read.
    case stored(key: String, data: Data?)
}

/// What a person (or the simulator's script) did, written as it starts — so that the fitter can tell a
/// hold from a train of taps. On a device its time is when the protocol asked for it, not the exact press.
public enum TraceGesture: Sendable, Equatable {
    /// A single press and release.
    case press(VolumeButton)
    /// A press held for about `seconds`.
    case hold(VolumeButton, seconds: Double)
    /// Anything else, described ("headphones in", "Control Center slider to 0.3").
    case other(String)
}

/// An output port of a route as a trace records it: the client's ``AudioPort``, its `uid` named as the
/// recorder's ``TracePortNaming`` says (an alias by default, or the system's UID).
public typealias TracePort = AudioPort

/// Everything a trace records. Cases are grouped by direction: what the system delivered to the app, what
/// the app asked of the system, what it read, and annotations (marks, gestures, the app's own calls and
/// events). The JSON of each is in `docs/trace.md`.
public enum TraceEvent: Sendable, Equatable {
    // What the system delivered.
    /// A KVO delivery of `outputVolume` to `observer`, at full `Float` precision.
    case outputVolume(Float, observer: Int)
    /// A private system-volume notification with its whole `userInfo`.
    case systemNotification(SystemVolumeNotification, observer: Int)
    /// A lifecycle, interruption or route-change event.
    case lifecycle(AppLifecycleEvent, observer: Int)
    /// An `AVCaptureEvent`.
    case captureEvent(CaptureEvent, observer: Int)
    /// An installed volume view became ready (its `onReady` ran).
    case volumeViewReady(view: Int)
    /// A system sound's completion ran, for the `play`-th play.
    case soundCompleted(play: Int)

    // What the app asked.
    /// The app subscribed to a channel; later deliveries name `observer`.
    case subscribed(TraceChannel, observer: Int)
    /// The app cancelled that subscription.
    case unsubscribed(TraceChannel, observer: Int)
    /// The app set the volume through the slider of volume view `view` (the newest one installed), or with
    /// no view installed (`nil`).
    case setVolume(Float, view: Int?)
    /// The app installed volume view number `view`.
    case volumeViewInstalled(view: Int)
    /// The app removed volume view `view`.
    case volumeViewRemoved(view: Int)
    /// The app set the session's category and options; `error` is what the system threw, if it did.
    case setCategory(AudioSessionConfiguration, error: String?)
    /// The app activated or deactivated its session.
    case setActive(Bool, notifyOthers: Bool, error: String?)
    /// The app primed output (played its silent sound).
    case primeOutput
    /// The app created a system sound from `file` (its last path component): the ID, or the `OSStatus`.
    case soundCreated(file: String, sound: SystemSoundID?, status: Int32?)
    /// The app started playing sound `sound` (the sound probe); `play` numbers the plays.
    case soundStarted(sound: SystemSoundID, alert: Bool, play: Int)
    /// The app marked a sound as a UI sound or not.
    case soundMarkedUISound(sound: SystemSoundID, isUISound: Bool)
    /// The app disposed of a sound.
    case soundDisposed(sound: SystemSoundID)
    /// The app wrote (or removed, `nil`) a persistent value.
    case storeWrite(key: String, data: Data?)

    // What the app read.
    /// A read and its answer.
    case read(TraceReading)

    // Annotations.
    /// A free-form note, optionally a person's yes/no answer ("did the system HUD appear?": no).
    case mark(String, answer: Bool?)
    /// What the person or script did.
    case gesture(TraceGesture)
    /// The app called `start` or `stop` on a VolumeKit feature.
    case app(feature: String, call: String)
    /// A button event VolumeKit delivered to the app when the trace was recorded.
    case buttonEvent(VolumeButton, ButtonPhase)
    /// The details of the last route change that the live layer knows and the client does not carry:
    /// `AVAudioSession.RouteChangeReason` and the new route's output ports.
    case routeDetails(reason: String, ports: [TracePort])
    /// The details of an interruption notification: after the ``lifecycle(_:observer:)`` record of a
    /// delivered one (``AppLifecycleClient/lastInterruption``), or alone for one the client withheld
    /// (``AppLifecycleClient/observeWithheldInterruptions``, ``InterruptionDetails/delivered`` `false`), for
    /// the lifecycle subscription `observer` (trace format 3).
    case interruptionDetails(InterruptionDetails, observer: Int)
    /// A diagnostic a ``VolumeButtonsEngine`` raised, as it reached the app (through
    /// ``VolumeKitClients/diagnosticObserver``; trace format 2).
    case diagnostic(VolumeButtonsDiagnostic)
}
