import Foundation
import VolumeKitCore
import VolumeKitTesting

/// A capture run on a device with behaviour `rules` ("name=value"), the app capturing with VolumeKit: started,
/// and 1.2 s of virtual time passed so that its view is ready and its anchor has landed. Keeps what the app
/// received.
final class CaptureRun: @unchecked Sendable {
    let device: SimulatedDevice
    let engine: VolumeButtonsEngine
    let events = Locked([VolumeButtonEvent]())
    let diagnostics = Locked([VolumeButtonsDiagnostic]())

    init(
        _ rules: [String], volume: Float = 0.5, headphones: Float = 0.5, kind: DeviceKind = .iphone,
        configuration: VolumeButtonsConfiguration = .fixedHeadroom, camera: Bool = false
    ) throws {
        let behaviour = try DeviceBehaviour(rules: rules)
        device = SimulatedDevice(
            .init(kind: kind, volume: volume, headphonesVolume: headphones, behaviour: behaviour))
        if camera { device.startCamera() }
        let events = self.events
        let diagnostics = self.diagnostics
        engine = VolumeButtonsEngine(
            configuration: configuration, clients: device.clients,
            onEvent: { event in events.withLock { $0.append(event) } },
            onDiagnostic: { diagnostic in diagnostics.withLock { $0.append(diagnostic) } })
        try engine.start()
        device.advance(by: 1.2)
    }

    var pressed: [VolumeButton] { events.current.filter { $0.phase == .pressed }.map(\.button) }
    var repeats: Int { events.current.filter { $0.phase == .repeated }.count }
    var pressHUDs: Int { device.log.filter { if case .systemHUD = $0 { true } else { false } }.count }

    /// Stops capture and lets 2 s pass: the restore has landed.
    func stop() {
        engine.stop()
        device.advance(by: 2)
    }
}
