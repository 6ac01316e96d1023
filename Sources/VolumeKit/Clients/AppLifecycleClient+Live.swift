#if os(iOS)
import AVFoundation
import UIKit

extension AppLifecycleClient {
    /// `UIApplication`'s lifecycle notifications and `AVAudioSession`'s interruption and route-change
    /// notifications, delivered on the main queue.
    @available(
        iOSApplicationExtension, unavailable, message: "needs the app (UIApplication): see the App extensions article"
    )
    public static let live = AppLifecycleClient(
        state: {
            // Read on the main thread, where UIKit state belongs.
            let read: @MainActor () -> AppState = {
                switch UIApplication.shared.applicationState {
                case .active: .active
                case .inactive: .inactive
                case .background: .background
                @unknown default: .inactive
                }
            }
            return Thread.isMainThread
                ? MainActor.assumeIsolated(read) : DispatchQueue.main.sync { MainActor.assumeIsolated(read) }
        },
        observe: { handler in
            let center = NotificationCenter.default
            let simple: [(Notification.Name, AppLifecycleEvent)] = [
                (UIApplication.didBecomeActiveNotification, .didBecomeActive),
                (UIApplication.willResignActiveNotification, .willResignActive),
                (UIApplication.didEnterBackgroundNotification, .didEnterBackground),
                (UIApplication.willEnterForegroundNotification, .willEnterForeground),
            ]
            var tokens = simple.map { name, event in
                center.addObserver(forName: name, object: nil, queue: .main) { _ in handler(event) }
            }
            tokens.append(
                center.addObserver(forName: AVAudioSession.interruptionNotification, object: nil, queue: .main) {
                    note in
                    // iOS delivers a late "began" for the time the app was suspended when it comes back (reason
                    // `.appWasSuspended`, iOS 14.5 to 15): the session was not taken, nothing to pause. It is
                    // withheld here, and only its details reach a trace (`observeWithheldInterruptions`).
                    guard let details = InterruptionDetails(note), details.delivered else { return }
                    LastInterruption.shared.withLock { $0 = details }
                    switch details.kind {
                    case .began: handler(.interruptionBegan)
                    case .ended:
                        handler(
                            .interruptionEnded(shouldResume: details.options.contains(InterruptionDetails.shouldResume))
                        )
                    }
                })
            // A media-services reset loses the session's category and activation and silences KVO
            // (`shared/facts/envelope.md`): the engines set the category again, re-activate and re-prime. The
            // volume observation (SystemVolumeClient) and the volume views (VolumeViewHost) renew themselves
            // from their own observers of this notification, which may be registered after this one: the
            // event goes out on the next main-queue turn, after all of them, so the engines' sets go through
            // the new views and their reads reach the new observation.
            tokens.append(
                center.addObserver(
                    forName: AVAudioSession.mediaServicesWereResetNotification, object: nil, queue: .main
                ) { _ in DispatchQueue.main.async { handler(.mediaServicesWereReset) } })
            tokens.append(
                center.addObserver(forName: AVAudioSession.routeChangeNotification, object: nil, queue: .main) {
                    note in
                    let route = AVAudioSession.sharedInstance().currentRoute
                    let reason = (note.userInfo?[AVAudioSessionRouteChangeReasonKey] as? UInt).flatMap(
                        AVAudioSession.RouteChangeReason.init(rawValue:))
                    LastRouteChange.shared.withLock {
                        $0 = RouteChange(reason: reason?.name ?? "unknown", outputs: route.outputs.map(AudioPort.init))
                    }
                    handler(.routeChanged(AudioRoute(route)))
                })
            nonisolated(unsafe) let observers = tokens
            return CancellationHandle { observers.forEach(center.removeObserver) }
        },
        lastRouteChange: { LastRouteChange.shared.current },
        lastInterruption: { LastInterruption.shared.current },
        observeWithheldInterruptions: { handler in
            let center = NotificationCenter.default
            let token = center.addObserver(
                forName: AVAudioSession.interruptionNotification, object: nil, queue: .main
            ) { note in
                if let details = InterruptionDetails(note), !details.delivered { handler(details) }
            }
            nonisolated(unsafe) let observer = token
            return CancellationHandle { center.removeObserver(observer) }
        }
    )
}

/// The reason and ports of the last route-change notification, written just before it is delivered.
private enum LastRouteChange {
    static let shared = Locked<RouteChange?>(nil)
}

/// The details of the last interruption notification delivered, written just before it is delivered.
private enum LastInterruption {
    static let shared = Locked<InterruptionDetails?>(nil)
}

extension InterruptionDetails {
    /// The details of an `AVAudioSession.interruptionNotification`, `nil` when its type is missing or unknown.
    /// A "began" with reason `.appWasSuspended` is not delivered (``delivered`` `false`). The
    /// `AVAudioSessionInterruptionWasSuspendedKey` of iOS 10.3 to 14.4 is not read: VolumeKit needs iOS 15.
    fileprivate init?(_ note: Notification) {
        guard let raw = note.userInfo?[AVAudioSessionInterruptionTypeKey] as? UInt,
            let type = AVAudioSession.InterruptionType(rawValue: raw)
        else { return nil }
        switch type {
        case .began:
            let reason = (note.userInfo?[AVAudioSessionInterruptionReasonKey] as? UInt).flatMap(
                AVAudioSession.InterruptionReason.init(rawValue:))
            let suspended = reason == .appWasSuspended
            self.init(kind: .began, reason: reason?.name, wasSuspended: suspended, delivered: !suspended)
        case .ended:
            let options =
                (note.userInfo?[AVAudioSessionInterruptionOptionKey] as? UInt).map(
                    AVAudioSession.InterruptionOptions.init(rawValue:)) ?? []
            self.init(kind: .ended, options: options.names)
        @unknown default:
            return nil
        }
    }
}

extension AVAudioSession.InterruptionReason {
    /// The reason's name as the SDK spells the case.
    fileprivate var name: String {
        switch self {
        case .default: "default"
        case .appWasSuspended: "appWasSuspended"
        case .builtInMicMuted: "builtInMicMuted"
        case .routeDisconnected: "routeDisconnected"
        @unknown default: "unknown(\(rawValue))"
        }
    }
}

extension AVAudioSession.InterruptionOptions {
    /// The options by name: `shouldResume`, and `unknown(N)` for the bits the SDK does not name.
    fileprivate var names: [String] {
        let rest = rawValue & ~AVAudioSession.InterruptionOptions.shouldResume.rawValue
        return (contains(.shouldResume) ? [InterruptionDetails.shouldResume] : [])
            + (rest != 0 ? ["unknown(\(rest))"] : [])
    }
}

extension AVAudioSession.RouteChangeReason {
    /// The reason's name as the SDK spells the case.
    fileprivate var name: String {
        switch self {
        case .unknown: "unknown"
        case .newDeviceAvailable: "newDeviceAvailable"
        case .oldDeviceUnavailable: "oldDeviceUnavailable"
        case .categoryChange: "categoryChange"
        case .override: "override"
        case .wakeFromSleep: "wakeFromSleep"
        case .noSuitableRouteForCategory: "noSuitableRouteForCategory"
        case .routeConfigurationChange: "routeConfigurationChange"
        @unknown default: "unknown(\(rawValue))"
        }
    }
}
#endif
