#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The system's output volume: read it, observe it, and set it the way `MPVolumeView`'s slider does.
///
/// iOS has no public setter for the output volume. The only sanctioned way is the slider inside an
/// `MPVolumeView`, which also suppresses the system volume HUD while it sits in a visible window
/// (see `shared/facts/volume-hud.md` §4, `MPVolumeSlider._isOffScreen`).
public struct SystemVolumeClient: Sendable {
    /// `AVAudioSession.outputVolume`: 0…1 for the current route.
    ///
    /// Stale until the app's session is active and has played audio once (seed 001).
    public var outputVolume: @Sendable () -> Float
    /// Key-value observation of `outputVolume`: the handler receives each new value.
    ///
    /// iOS only reports *changes*: a press at 0 or 1 that cannot move the volume is not reported (seed 000).
    public var observeOutputVolume: @Sendable (_ handler: @escaping @Sendable (Float) -> Void) -> CancellationHandle
    /// The private system-volume change notification, as raw name and payload.
    ///
    /// Only used by the opt-in ``ButtonStrategy/systemNotification`` strategy; see ``SystemVolumeNotification``.
    public var observeSystemNotifications:
        @Sendable (_ handler: @escaping @Sendable (SystemVolumeNotification) -> Void) -> CancellationHandle
    /// Sets the volume through the `MPVolumeView` slider. Takes effect asynchronously, and only once the
    /// volume view is ready; iOS may refuse it during a volume-down press (seed 000).
    public var setVolume: @Sendable (Float) -> Void
    /// Puts an `MPVolumeView` in a window of the active scene (never hidden, tiny alpha), which hides the
    /// system volume HUD and is needed for ``setVolume``. `onReady` runs once the view is usable.
    /// Cancelling the returned handle removes the view.
    public var installVolumeView: @Sendable (_ onReady: @escaping @Sendable () -> Void) -> CancellationHandle
    /// Whether the current route has volume control: an AirPlay or HDMI output may have none, and then the volume
    /// view takes its slider out (it shows "No volume available"), so ``setVolume`` does nothing and the system
    /// HUD is no longer hidden (openradar 42881405; decompiled `MPVolumeView` `layoutSubviews`,
    /// `shared/facts/volume-hud.md`). `true` when the client cannot tell.
    public var hasVolumeControl: @Sendable () -> Bool

    /// Creates a client from its operations.
    public init(
        outputVolume: @escaping @Sendable () -> Float,
        observeOutputVolume: @escaping @Sendable (_ handler: @escaping @Sendable (Float) -> Void) -> CancellationHandle,
        observeSystemNotifications:
            @escaping @Sendable (_ handler: @escaping @Sendable (SystemVolumeNotification) -> Void) ->
            CancellationHandle,
        setVolume: @escaping @Sendable (Float) -> Void,
        installVolumeView: @escaping @Sendable (_ onReady: @escaping @Sendable () -> Void) -> CancellationHandle,
        hasVolumeControl: @escaping @Sendable () -> Bool = { true }
    ) {
        self.outputVolume = outputVolume
        self.observeOutputVolume = observeOutputVolume
        self.observeSystemNotifications = observeSystemNotifications
        self.setVolume = setVolume
        self.installVolumeView = installVolumeView
        self.hasVolumeControl = hasVolumeControl
    }
}

/// One private system-volume notification as iOS delivered it: its name and a `Sendable` copy of its payload.
///
/// Parsing into meaning (reason, volume, category) is Core's job, so that an odd payload gives a typed error
/// instead of a crash (see `SystemVolumeNotification.parse()`).
public struct SystemVolumeNotification: Sendable, Equatable {
    /// The notification's name, e.g. `SystemVolumeDidChange`.
    public var name: String
    /// The notification's `userInfo`, with each value reduced to a ``PayloadValue``.
    public var userInfo: [String: PayloadValue]

    /// Creates a notification from its name and payload.
    public init(name: String, userInfo: [String: PayloadValue]) {
        self.name = name
        self.userInfo = userInfo
    }
}

/// A value in a notification payload, reduced to what VolumeKit reads.
public enum PayloadValue: Sendable, Equatable, Hashable {
    /// A string (`NSString`).
    case string(String)
    /// A number (`NSNumber`), as a `Double`.
    case number(Double)
    /// A value of another type, described.
    case other(String)
}
