import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
        connect(route, device: route == .bluetooth ? headset : nil)
    }

    /// Audio moves to `route`, as ``connect(_:)``; on a route whose devices keep their own volumes
    /// (``/VolumeKitCore/AudioRoute/keepsVolumePerDevice``: Bluetooth, and AirPlay and the other external
    /// outputs), `device` names the device — its port UID, given to the app as it is (`nil`: the last one). Each
    /// keeps its own volume (a new one starts at ``Configuration/headphonesVolume``), and moving from one device
    /// to another of the same route is a route change too. `device` is ignored on other routes.
    public func connect(_ route: AudioRoute, device: String?) {
        locked {
            // A device of the route other than its current one, if `device` names one.
            let other = route.keepsVolumePerDevice ? device.flatMap { $0 == port(of: route) ? nil : $0 } : nil
            guard route != currentRoute || other != nil else { return }
            if let held = heldButton { buttonUp(held.button) }
            disturb()
            recordRoute(route)
            let old = volumes[currentRoute]!
            let reason = route.rank >= currentRoute.rank ? "newDeviceAvailable" : "oldDeviceUnavailable"
            if let other { switchDevice(on: route, to: other) }
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

    /// The current external device's port UID (the last one connected; ``defaultExternalPort`` at first).
    public var externalDevice: String { locked { externalPort } }

    /// The volume `device` (a port UID) keeps on `route`, whether it is connected now or not: `nil` for a device
    /// never connected, and on a route whose devices do not keep their own volumes.
    public func volume(on route: AudioRoute, device: String) -> Float? {
        locked {
            guard route.keepsVolumePerDevice else { return nil }
            if device == port(of: route) { return volumes[route]! }
            return route == .bluetooth ? otherHeadsetVolumes[device] : otherExternalVolumes[device]
        }
    }

    /// The port UID of `route`'s current device (its last one), for a route whose devices keep their own volumes.
    private func port(of route: AudioRoute) -> String? {
        switch route {
        case .bluetooth: bluetoothPort
        case .external: externalPort
        default: nil
        }
    }

    /// `route`'s device becomes `port`: the one it leaves keeps its volume, and `port` brings its own back.
    private func switchDevice(on route: AudioRoute, to port: String) {
        let (current, others) =
            route == .bluetooth
            ? (\SimulatedDevice.bluetoothPort, \SimulatedDevice.otherHeadsetVolumes)
            : (\SimulatedDevice.externalPort, \SimulatedDevice.otherExternalVolumes)
        self[keyPath: others][self[keyPath: current]] = volumes[route]!
        volumes[route] = self[keyPath: others].removeValue(forKey: port) ?? Self.clamp(configuration.headphonesVolume)
        self[keyPath: current] = port
    }

    /// The output ports of `route` as iOS describes them (`portType` raw values, UIDs).
    func outputs(of route: AudioRoute) -> [AudioPort] {
        switch route {
        case .speaker: [AudioPort(type: "Speaker", uid: "Speaker")]
        case .receiver: [AudioPort(type: "Receiver", uid: "Built-In Receiver")]
        case .headphones: [AudioPort(type: "Headphones", uid: "Wired Headphones")]
        case .bluetooth: [AudioPort(type: "BluetoothA2DPOutput", uid: bluetoothPort)]
        case .external: [AudioPort(type: "AirPlay", uid: externalPort)]
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
    /// The first external device's port UID (an AirPlay speaker's, until a script names another).
    public static let defaultExternalPort = "AirPlay"
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
