#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    /// `AVAudioSession.routeChangeNotification`, with the new route. Its reason and output ports, when the
    /// platform knows them, are ``AppLifecycleClient/lastRouteChange``.
    case routeChanged(AudioRoute)
    /// `AVAudioSession.mediaServicesWereResetNotification`: the media server restarted, and the session's
    /// category, mode, options and activation are lost, as are `outputVolume`'s observation and the volume
    /// views' link to the system. Everything must be set up again — category, activation, the primer
    /// (`shared/facts/envelope.md`, "iOS-layer facts"; Apple, "Responding to audio session interruptions").
    case mediaServicesWereReset
}

/// Why the route changed (`AVAudioSession.RouteChangeReason`), and what it changed to: its output ports.
public struct RouteChange: Sendable, Equatable {
    /// The reason's name as iOS spells it: `newDeviceAvailable`, `oldDeviceUnavailable`, `categoryChange`,
    /// `override`, `wakeFromSleep`, `noSuitableRouteForCategory`, `routeConfigurationChange` or `unknown`.
    public var reason: String
    /// The new route's output ports.
    public var outputs: [AudioPort]

    /// Creates a route change.
    public init(reason: String, outputs: [AudioPort]) {
        self.reason = reason
        self.outputs = outputs
    }
}

/// App lifecycle, interruptions and route changes.
public struct AppLifecycleClient: Sendable {
    /// The app's state now.
    public var state: @Sendable () -> AppState
    /// Delivers every lifecycle event until the handle is cancelled.
    public var observe: @Sendable (_ handler: @escaping @Sendable (AppLifecycleEvent) -> Void) -> CancellationHandle
    /// The reason and output ports of the last ``AppLifecycleEvent/routeChanged(_:)`` delivered, when the
    /// platform knows them (`nil` before the first one, or when it does not). Read it while handling the
    /// event; a trace records it beside the event (`docs/trace.md`, `routeDetails`).
    public var lastRouteChange: @Sendable () -> RouteChange?
    /// The reason, options and suspension flag of the last ``AppLifecycleEvent/interruptionBegan`` or
    /// ``AppLifecycleEvent/interruptionEnded(shouldResume:)`` delivered, when the platform knows them (`nil`
    /// before the first one, or when it does not). Read it while handling the event; a trace records it
    /// beside the event (`docs/trace.md`, `interruptionDetails`).
    public var lastInterruption: @Sendable () -> InterruptionDetails? = { nil }
    /// Delivers, until the handle is cancelled, the details of each interruption notification that
    /// ``observe`` does not deliver as an event: the live client withholds a late "began" for the time the app
    /// was suspended (reason `.appWasSuspended`, iOS 14.5 to 15), since nothing took the session then. Only
    /// a trace needs them (`docs/trace.md`, `interruptionDetails` with `"delivered":false`); the default
    /// delivers nothing.
    public var observeWithheldInterruptions:
        @Sendable (_ handler: @escaping @Sendable (InterruptionDetails) -> Void) -> CancellationHandle = { _ in .none }

    /// Creates a client from its operations, with no route-change details.
    public init(
        state: @escaping @Sendable () -> AppState,
        observe: @escaping @Sendable (_ handler: @escaping @Sendable (AppLifecycleEvent) -> Void) -> CancellationHandle
    ) {
        self.init(state: state, observe: observe, lastRouteChange: { nil })
    }

    /// Creates a client from its operations, with the details of each route change.
    public init(
        state: @escaping @Sendable () -> AppState,
        observe: @escaping @Sendable (_ handler: @escaping @Sendable (AppLifecycleEvent) -> Void) -> CancellationHandle,
        lastRouteChange: @escaping @Sendable () -> RouteChange?
    ) {
        self.state = state
        self.observe = observe
        self.lastRouteChange = lastRouteChange
    }

    /// Creates a client from its operations, with the details of each route change and of each interruption,
    /// and the interruptions it withholds from ``observe``.
    public init(
        state: @escaping @Sendable () -> AppState,
        observe: @escaping @Sendable (_ handler: @escaping @Sendable (AppLifecycleEvent) -> Void) -> CancellationHandle,
        lastRouteChange: @escaping @Sendable () -> RouteChange?,
        lastInterruption: @escaping @Sendable () -> InterruptionDetails?,
        observeWithheldInterruptions:
            @escaping @Sendable (_ handler: @escaping @Sendable (InterruptionDetails) -> Void) -> CancellationHandle
    ) {
        self.init(state: state, observe: observe, lastRouteChange: lastRouteChange)
        self.lastInterruption = lastInterruption
        self.observeWithheldInterruptions = observeWithheldInterruptions
    }
}
