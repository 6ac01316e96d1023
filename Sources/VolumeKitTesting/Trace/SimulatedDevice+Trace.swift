import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension TraceHeader {
    /// The header of a trace recorded on `device`: marked ``/VolumeKitCore/TraceSource/simulator`` (synthetic), with the
    /// device's OS and kind and the button engine's configuration.
    public static func simulator(
        _ device: SimulatedDevice,
        buttons configuration: VolumeButtonsConfiguration = VolumeButtonsConfiguration(),
        volumeKitVersion: String = TraceHeader.simulatorVolumeKitVersion,
        note: String? = nil
    ) -> TraceHeader {
        TraceHeader(
            source: .simulator, deviceModel: SimulatedDevice.modelIdentifier,
            device: DeviceInfo(osVersion: device.configuration.osVersion, kind: device.configuration.kind),
            volumeKitVersion: volumeKitVersion, buttons: configuration, note: note
        )
    }

    /// The header of a simulated run of `strategy` (``SimulatedStrategy/baseline`` is written as `baseline`,
    /// which replay refuses: it is not one of VolumeKit's engines).
    public static func simulator(_ device: SimulatedDevice, strategy: SimulatedStrategy, note: String? = nil)
        -> TraceHeader
    {
        guard let configuration = strategy.configuration else {
            var header = simulator(device, note: note)
            header.strategy = strategy.rawValue
            return header
        }
        return simulator(device, buttons: configuration, note: note)
    }

    /// The VolumeKit version written by simulator traces: the source tree, not a release.
    public static let simulatorVolumeKitVersion = "source"
}

extension Scenario.Command {
    /// What the person does in this script line, as a trace gesture (`nil` for setup and app lines).
    public var traceGesture: TraceGesture? {
        switch self {
        case .ios, .device, .volume, .headphones, .start, .startFeature, .stop, .wait, .crash, .launch: nil
        case .press(let button, let count, let every):
            count == 1 ? .press(button) : .other("press \(button.rawValue) x\(count) every \(every)")
        case .hold(let button, let seconds, _): .hold(button, seconds: seconds)
        case .slider(let value): .other("Control Center slider to \(value)")
        case .drag(let value): .other("Control Center drag to \(value)")
        case .siri(let seconds): .other("Siri for \(seconds) s")
        case .alarm(let seconds, let sendsEnd): .other("alarm for \(seconds) s\(sendsEnd ? "" : ", no end")")
        case .takeover(let component): .other("\(component.rawValue) takes the session over")
        case .camera(let running): .other("camera \(running ? "starts" : "stops")")
        case .silent(let on): .other("Silent mode \(on ? "on" : "off")")
        case .background: .other("background")
        case .foreground: .other("foreground")
        case .interrupt(let began): .other("interruption \(began ? "begins" : "ends")")
        case .call(let began): .other("call \(began ? "begins" : "ends")")
        case .route(let route): .other("route \(route.rawValue)")
        // Without the name: a trace names ports only by alias (`TracePortNaming`).
        case .routeDevice(let route, _): .other("route \(route.rawValue), another device")
        case .mute(let on): .other("Ring/Silent switch \(on ? "silent" : "ring")")
        case .mediaReset: .other("media services reset")
        // Not `.press`: a trace fit reads the side buttons' rhythm from press gestures.
        case .headset(let button, let count, let every): .other("headset \(button.rawValue) x\(count) every \(every)")
        case .bluetoothConnect(let value): .other("Bluetooth headset connects, keeping \(value)")
        case .bluetoothSync(let value): .other("Bluetooth headset syncs its volume \(value)")
        case .safetyLowering: .other("Headphone Safety turns the volume down")
        }
    }
}
