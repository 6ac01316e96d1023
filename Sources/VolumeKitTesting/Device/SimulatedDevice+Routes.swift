import Foundation
import VolumeKitCore

/// Routes: each keeps its own volume; a change posts `routeChangeNotification` and the new route's KVO in
/// an order nothing guarantees (``DeviceBehaviour/routeNotification``, ``DeviceBehaviour/routeNotificationGap``).
extension SimulatedDevice {
    /// Audio moves to `route` (headphones plugged in, the speaker after unplugging, AirPlay, the receiver,
    /// Bluetooth). Each route keeps its own volume; the change posts `RouteChange`
    /// (`shared/facts/volume-buttons.md` §2: twilio-voice-ios #75). The route the app reads changes at once.
    public func connect(_ route: AudioRoute) {
        locked {
            guard route != currentRoute else { return }
            if let held = heldButton { buttonUp(held.button) }
            let old = volumes[currentRoute]!
            currentRoute = route
            let new = volumes[route]!
            volumeDidChange(to: new)
            let gap = behaviour.routeNotificationGap
            switch behaviour.routeNotification {
            case .beforeKVO:
                notifyVolume(new, old: old, reason: "RouteChange", extraDelay: gap)
                deliver(.routeChanged(route))
            case .afterKVO:
                notifyVolume(new, old: old, reason: "RouteChange")
                // After the KVO, whatever the gap (scheduled later at an equal time runs later).
                inApp(after: behaviour.kvoLatency + gap) { [unowned self] in
                    self.deliver(.routeChanged(self.currentRoute))
                }
            case .missing:
                notifyVolume(new, old: old, reason: "RouteChange")
            }
        }
    }
}
