#if os(iOS)
import AVFoundation
import Foundation

extension SystemVolumeClient {
    /// `AVAudioSession.outputVolume`, its KVO, the private volume notification (delivered only to the opt-in
    /// strategy) and `MPVolumeView`'s slider. Observations are delivered on the main queue.
    @available(
        iOSApplicationExtension, unavailable, message: "needs the app (UIApplication): see the App extensions article"
    )
    public static let live = SystemVolumeClient(
        outputVolume: { AVAudioSession.sharedInstance().outputVolume },
        observeOutputVolume: { handler in
            // After a media-services reset the old observation goes silent for good: observe anew
            // (`shared/facts/envelope.md`, Apple "Responding to audio session interruptions").
            let observation = Locked<NSKeyValueObservation?>(nil)
            let observe: @Sendable () -> Void = {
                let made = AVAudioSession.sharedInstance().observe(\.outputVolume, options: [.new]) { _, change in
                    guard let value = change.newValue else { return }
                    onMain { handler(value) }
                }
                observation.withLock { old in
                    old?.invalidate()
                    old = made
                }
            }
            observe()
            let center = NotificationCenter.default
            let reset = center.addObserver(
                forName: AVAudioSession.mediaServicesWereResetNotification, object: nil, queue: .main
            ) { _ in observe() }
            nonisolated(unsafe) let token = reset
            return CancellationHandle {
                center.removeObserver(token)
                observation.withLock {
                    $0?.invalidate(); $0 = nil
                }
            }
        },
        observeSystemNotifications: { handler in
            let center = NotificationCenter.default
            let names = [VolumeChangeNotification.modernName]  // iOS 15+ only: the pre-15 name is never sent here
            let tokens = names.map { name in
                center.addObserver(forName: Notification.Name(name), object: nil, queue: .main) { note in
                    handler(SystemVolumeNotification(name: name, userInfo: PayloadValue.dictionary(note.userInfo)))
                }
            }
            nonisolated(unsafe) let observers = tokens
            return CancellationHandle { observers.forEach(center.removeObserver) }
        },
        setVolume: { value in onMain { VolumeViewHost.shared.setVolume(value) } },
        installVolumeView: { onReady in
            let id = Locked<Int?>(nil)
            let removed = Locked(false)
            onMain {
                guard !removed.current else { return }
                let installed = VolumeViewHost.shared.install(onReady: onReady)
                id.withLock { $0 = installed }
            }
            return CancellationHandle {
                removed.withLock { $0 = true }
                onMain { if let installed = id.current { VolumeViewHost.shared.remove(installed) } }
            }
        },
        hasVolumeControl: {
            // The engine asks on the main thread, where the clients deliver; elsewhere nothing can be told.
            guard Thread.isMainThread else { return true }
            return MainActor.assumeIsolated { VolumeViewHost.shared.hasVolumeControl }
        }
    )
}

extension PayloadValue {
    /// A `Sendable` copy of a notification's `userInfo`: strings and numbers kept, other values described.
    static func dictionary(_ userInfo: [AnyHashable: Any]?) -> [String: PayloadValue] {
        var result = [String: PayloadValue]()
        for (key, value) in userInfo ?? [:] {
            guard let key = key as? String else { continue }
            switch value {
            case let text as String: result[key] = .string(text)
            case let number as NSNumber: result[key] = .number(number.doubleValue)
            default: result[key] = .other(String(describing: type(of: value)))
            }
        }
        return result
    }
}
#endif
