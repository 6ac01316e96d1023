import Foundation
import VolumeKitCore
import VolumeKitTesting

/// What an app on the simulated device observes through its clients: KVO values and notifications.
final class AppProbe: Sendable {
    let kvo = Locked([Float]())
    let notifications = Locked([SystemVolumeNotification]())
    let lifecycle = Locked([AppLifecycleEvent]())
    private let subscriptions: Locked<[CancellationHandle]>

    init(_ device: SimulatedDevice) {
        let clients = device.clients
        let kvo = self.kvo
        let notifications = self.notifications
        let lifecycle = self.lifecycle
        subscriptions = Locked([
            clients.systemVolume.observeOutputVolume { value in kvo.withLock { $0.append(value) } },
            clients.systemVolume.observeSystemNotifications { note in notifications.withLock { $0.append(note) } },
            clients.lifecycle.observe { event in lifecycle.withLock { $0.append(event) } },
        ])
    }

    /// Activates the session and plays a sound so `outputVolume` is live (seed 001).
    static func listening(on device: SimulatedDevice) throws -> AppProbe {
        let probe = AppProbe(device)
        try device.clients.audioSession.setActive(true, false)
        device.clients.audioSession.primeOutput()
        return probe
    }
}
