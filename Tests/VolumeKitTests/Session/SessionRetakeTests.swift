import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Taking the session back, and saying so, where the randomized sessions of the wider world found VolumeKit
/// silent: a take-over before the volume view is ready, and a route without volume control left and found again
/// while a call held the session.
@Suite("The session re-taken, and a route without volume control said again")
struct SessionRetakeTests {
    private static func systemHUDs(_ device: SimulatedDevice, after time: Instant) -> Int {
        device.log.filter { entry in
            if case .systemHUD(let at, _) = entry { at > time } else { false }
        }.count
    }

    @Test(
        "A camera taking the session again before the volume view is ready: the session is re-taken, presses hide the HUD"
    )
    func takeoverBeforeReady() throws {
        let behaviour = try DeviceBehaviour(rules: ["volumeViewReadyDelay=1", "sessionTakeover=deactivates"])
        let device = SimulatedDevice(.init(volume: 0.5, behaviour: behaviour))
        let events = Locked([VolumeButtonEvent]())
        let engine = VolumeButtonsEngine(
            configuration: .init(), clients: device.clients, onEvent: { event in events.withLock { $0.append(event) } })
        try engine.start()
        device.advance(by: 0.4)
        device.startCamera()
        device.advance(by: 0.5)
        // The same component again, the category already the one VolumeKit keeps, before the view is ready (1 s).
        device.takeOverSession(by: .camera)
        device.advance(by: 1.6)
        let before = device.now
        for _ in 0..<3 {
            device.press(.down)
            device.advance(by: 0.9)
        }
        #expect(Self.systemHUDs(device, after: before) == 0)
        #expect(events.current.filter { $0.button == .down && $0.phase == .pressed }.count == 3)
        engine.stop()
    }

    @Test(
        "Back on an AirPlay route without volume control after a call moved the audio away: volumeControlUnavailable again"
    )
    func noVolumeControlAfterCall() throws {
        let behaviour = try DeviceBehaviour(rules: ["externalVolume=noSlider"])
        let device = SimulatedDevice(.init(volume: 0.5, behaviour: behaviour))
        let diagnostics = Locked([VolumeButtonsDiagnostic]())
        let engine = VolumeButtonsEngine(
            configuration: .init(), clients: device.clients, onEvent: { _ in },
            onDiagnostic: { diagnostic in diagnostics.withLock { $0.append(diagnostic) } })
        try engine.start()
        device.advance(by: 1.5)
        device.connect(.external)
        device.advance(by: 0.5)
        let unavailable = { diagnostics.current.filter { $0 == .volumeControlUnavailable }.count }
        #expect(unavailable() == 1)
        device.phoneCall(began: true)
        device.advance(by: 0.5)
        device.connect(.speaker)
        device.advance(by: 0.5)
        device.connect(.external)
        device.advance(by: 0.5)
        device.phoneCall(began: false)
        device.advance(by: 1)
        #expect(unavailable() == 2)
        engine.stop()
    }
}
