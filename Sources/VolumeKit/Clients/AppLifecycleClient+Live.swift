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
                    guard let raw = note.userInfo?[AVAudioSessionInterruptionTypeKey] as? UInt,
                        let type = AVAudioSession.InterruptionType(rawValue: raw)
                    else { return }
                    switch type {
                    case .began:
                        // iOS delivers a late "began" for the time the app was suspended when it comes back
                        // (reason `.appWasSuspended`, iOS 14.5+): the session was not taken, nothing to pause.
                        if #available(iOS 14.5, *),
                            let reason = note.userInfo?[AVAudioSessionInterruptionReasonKey] as? UInt,
                            AVAudioSession.InterruptionReason(rawValue: reason) == .appWasSuspended
                        {
                            return
                        }
                        handler(.interruptionBegan)
                    case .ended:
                        let options =
                            (note.userInfo?[AVAudioSessionInterruptionOptionKey] as? UInt).map(
                                AVAudioSession.InterruptionOptions.init(rawValue:)) ?? []
                        handler(.interruptionEnded(shouldResume: options.contains(.shouldResume)))
                    @unknown default:
                        break
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
        lastRouteChange: { LastRouteChange.shared.current }
    )
}

/// The reason and ports of the last route-change notification, written just before it is delivered.
private enum LastRouteChange {
    static let shared = Locked<RouteChange?>(nil)
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
