#if os(iOS)
import AVFoundation
import UIKit

extension AppLifecycleClient {
    /// `UIApplication`'s lifecycle notifications and `AVAudioSession`'s interruption and route-change
    /// notifications, delivered on the main queue.
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
            // (`shared/facts/envelope.md`). Until `AppLifecycleEvent` has a case of its own it is delivered as an
            // interruption that ended: every engine then re-activates and re-primes; the category VolumeKit set
            // is applied again first (the volume observation and the volume views renew themselves).
            tokens.append(
                center.addObserver(
                    forName: AVAudioSession.mediaServicesWereResetNotification, object: nil, queue: .main
                ) { _ in
                    LiveSessionMemory.shared.reapplyAfterReset()
                    handler(.interruptionBegan)
                    handler(.interruptionEnded(shouldResume: true))
                })
            tokens.append(
                center.addObserver(forName: AVAudioSession.routeChangeNotification, object: nil, queue: .main) { _ in
                    handler(.routeChanged(AudioRoute(AVAudioSession.sharedInstance().currentRoute)))
                })
            nonisolated(unsafe) let observers = tokens
            return CancellationHandle { observers.forEach(center.removeObserver) }
        }
    )
}
#endif
