import Foundation

/// The app's state as UIKit reports it.
public enum AppState: String, Sendable, Equatable {
    /// In the foreground and receiving events.
    case active
    /// In the foreground but not receiving events (Control Center, a call banner, the app switcher).
    case inactive
    /// In the background.
    case background
}

/// What happens to the app and its audio session, in the order iOS reports it.
public enum AppLifecycleEvent: Sendable, Equatable {
    /// `didBecomeActiveNotification`.
    case didBecomeActive
    /// `willResignActiveNotification`.
    case willResignActive
    /// `didEnterBackgroundNotification`.
    case didEnterBackground
    /// `willEnterForegroundNotification`.
    case willEnterForeground
    /// `AVAudioSession.interruptionNotification`, type `.began`.
    case interruptionBegan
    /// `AVAudioSession.interruptionNotification`, type `.ended`, with its `.shouldResume` option.
    case interruptionEnded(shouldResume: Bool)
    /// `AVAudioSession.routeChangeNotification`, with the new route.
    case routeChanged(AudioRoute)
}

/// App lifecycle, interruptions and route changes.
public struct AppLifecycleClient: Sendable {
    /// The app's state now.
    public var state: @Sendable () -> AppState
    /// Delivers every lifecycle event until the handle is cancelled.
    public var observe: @Sendable (_ handler: @escaping @Sendable (AppLifecycleEvent) -> Void) -> CancellationHandle

    /// Creates a client from its operations.
    public init(
        state: @escaping @Sendable () -> AppState,
        observe: @escaping @Sendable (_ handler: @escaping @Sendable (AppLifecycleEvent) -> Void) -> CancellationHandle
    ) {
        self.state = state
        self.observe = observe
    }
}
