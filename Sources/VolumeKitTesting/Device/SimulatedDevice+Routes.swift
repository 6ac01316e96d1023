import Foundation
import VolumeKitCore

/// Routes: each keeps its own volume; a change posts `routeChangeNotification` and the new route's KVO in
/// an order nothing guarantees (``DeviceBehaviour/routeNotification``, ``DeviceBehaviour/routeNotificationGap``).
extension SimulatedDevice {
    /// Audio moves to `route` (headphones plugged in, the speaker after unplugging, AirPlay, the receiver,
    /// Bluetooth). Each route keeps its own volume; the change posts `RouteChange`
    /// (`shared/facts/volume-buttons.md` §2: twilio-voice-ios #75). The route the app reads changes at once.
    public func connect(_ route: AudioRoute) {
        connect(route, headset: nil)
    }

    /// Audio moves to `route`, as ``connect(_:)``; for ``/VolumeKitCore/AudioRoute/bluetooth``, `headset` names the
    /// Bluetooth device (its port UID; `nil`: the last one): each headset keeps its own volume (absolute
    /// volume), and moving from one headset to another is a route change too.
    public func connect(_ route: AudioRoute, headset: String?) {
        locked {
            let port = route == .bluetooth ? (headset ?? bluetoothPort) : bluetoothPort
            guard route != currentRoute || (route == .bluetooth && port != bluetoothPort) else { return }
            if let held = heldButton { buttonUp(held.button) }
            disturb()
            recordRoute(route)
            let old = volumes[currentRoute]!
            let reason = route.rank >= currentRoute.rank ? "newDeviceAvailable" : "oldDeviceUnavailable"
            if port != bluetoothPort {
                otherHeadsetVolumes[bluetoothPort] = volumes[.bluetooth]!
                volumes[.bluetooth] =
                    otherHeadsetVolumes.removeValue(forKey: port) ?? Self.clamp(configuration.headphonesVolume)
                bluetoothPort = port
            }
            currentRoute = route
            let new = volumes[route]!
            volumeDidChange(to: new)
            let gap = behaviour.routeNotificationGap
            let change = RouteChange(reason: reason, outputs: outputs(of: route))
            switch behaviour.routeNotification {
            case .beforeKVO:
                notifyVolume(new, old: old, reason: "RouteChange", extraDelay: gap)
                deliverRouteChange(change)
            case .afterKVO:
                notifyVolume(new, old: old, reason: "RouteChange")
                // After the KVO, whatever the gap (scheduled later at an equal time runs later).
                inApp(after: behaviour.kvoLatency + gap) { [unowned self] in
                    self.deliverRouteChange(RouteChange(reason: reason, outputs: self.outputs(of: self.currentRoute)))
                }
            case .missing:
                notifyVolume(new, old: old, reason: "RouteChange")
            }
        }
    }

    /// The current Bluetooth headset's port UID (the last one connected).
    public var bluetoothHeadset: String { locked { bluetoothPort } }

    /// The output ports of `route` as iOS describes them (`portType` raw values, UIDs).
    func outputs(of route: AudioRoute) -> [AudioPort] {
        switch route {
        case .speaker: [AudioPort(type: "Speaker", uid: "Speaker")]
        case .receiver: [AudioPort(type: "Receiver", uid: "Built-In Receiver")]
        case .headphones: [AudioPort(type: "Headphones", uid: "Wired Headphones")]
        case .bluetooth: [AudioPort(type: "BluetoothA2DPOutput", uid: bluetoothPort)]
        case .external: [AudioPort(type: "AirPlay", uid: "AirPlay")]
        }
    }

    /// Posts `routeChangeNotification`: the details first (the app reads them while handling it).
    func deliverRouteChange(_ change: RouteChange) {
        lastRouteChange = change
        deliver(.routeChanged(currentRoute))
    }
}

extension SimulatedDevice {
    /// The first Bluetooth headset's port UID (an address, as iOS gives it).
    public static let defaultBluetoothPort = "00:11:22:33:44:55-tacl"
}

extension AudioRoute {
    /// Built-in outputs rank below attached ones: moving up (or across) is a new device, moving down the old
    /// one gone.
    fileprivate var rank: Int {
        switch self {
        case .speaker, .receiver: 0
        case .headphones, .bluetooth, .external: 1
        }
    }
}
