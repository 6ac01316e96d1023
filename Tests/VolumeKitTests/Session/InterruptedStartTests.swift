import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Capture that becomes ready while the session is interrupted (issue 11, item 5; found by the envelope sweep,
/// sample 131): reads are stale then (seed 001), so VolumeKit sets nothing until the session is live again.
@Suite("Correct across the envelope: a start during an interruption")
struct InterruptedStartTests {
    @Test("A Control Center change during an interruption, before the volume view is ready, is the user's")
    func controlCenterDuringInterruptedStart() throws {
        var behaviour = DeviceBehaviour()
        try behaviour.set("volumeViewReadyDelay=1")
        let device = SimulatedDevice(.init(volume: 0.0625, behaviour: behaviour))
        let engine = VolumeButtonsEngine(configuration: .fixedHeadroom, clients: device.clients, onEvent: { _ in })
        try engine.start()
        device.advance(by: 0.4)
        device.interruption(began: true)
        device.advance(by: 0.2)
        // The view becomes ready (at 1 s) while the user drags Control Center's slider.
        device.controlCenterSlider(0.87)
        device.advance(by: 0.7)
        #expect(device.volume == 0.87, "VolumeKit set the volume from a stale read")
        device.interruption(began: false)
        device.advance(by: 1)
        #expect(engine.isCapturing)
        #expect(engine.userVolume == 0.87)
        engine.stop()
        device.advance(by: 1)
        #expect(device.volume == 0.87)
    }
}

/// Capture started while the launch's recovery is still giving a volume back (issue 11, found by the envelope
/// sweep, sample 108).
@Suite("Correct across the envelope: a start during recovery")
struct StartDuringRecoveryTests {
    @Test("Presses before the volume view is ready, after the recovery landed, are the user's")
    func pressesAfterRecoveryBeforeReady() throws {
        var behaviour = DeviceBehaviour()
        try behaviour.set("volumeViewReadyDelay=1")
        let device = SimulatedDevice(.init(volume: 0.125, behaviour: behaviour))
        // The last run crashed holding 0.125 for a user at 0.
        PendingRestores([.speaker: PendingRestore(userVolume: 0, heldVolume: 0.125, savedAtUptime: 0)]).save(
            to: device.clients.keyValueStore)
        device.advance(by: 0.1)
        // The recovery's volume view is ready at 1.1 s; capture starts before that, its view ready at 1.6 s. The
        // host tells each view ready after VolumeViewReadiness.hostDelay: the recovery's sets are lost until 1.1 s,
        // and the one it makes again at 1.25 s gives the user's 0 back.
        VolumeRecovery.recoverIfNeeded(device.clients) { _ in }
        device.advance(by: 0.5)
        let engine = VolumeButtonsEngine(configuration: .fixedHeadroom, clients: device.clients, onEvent: { _ in })
        try engine.start()
        device.advance(by: 0.8)
        #expect(device.volume == 0, "the recovery gave the user's 0 back")
        // Before capture is ready the presses are the system's: the user moves to 0.125 themselves.
        device.press(.up)
        device.advance(by: 0.15)
        device.press(.up)
        device.advance(by: 1)
        #expect(engine.isCapturing)
        #expect(engine.userVolume == 0.125)
        engine.stop()
        device.advance(by: 1)
        #expect(device.volume == 0.125)
    }
}
