import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// A crash after presses faster than VolumeKit's resets walked the volume away from its anchor (issue 11's sweep).
@Suite("Crash after presses outran the resets")
struct WalkedVolumeCrashTests {
    @Test(
        "A crash after fast presses walked the held volume to 0 (resets refused): the user's volume comes back",
        arguments: [2, 3, 4], [0.05, 0.2])
    func crashAfterWalkToRail(presses: Int, crashAfter seconds: Double) throws {
        // sessions outputVolume-4447-35215794, -2003-15861757, -3358-26592003 (and systemNotification-2003,
        // -2405, -2477): each reset landed while the next press was down and was refused (iOS 11: a set ≥ the
        // value before the press), the presses VolumeKit held walked the volume to 0, and after the crash the
        // record (held at the anchor) was discarded, the volume being far from it
        let device = SimulatedDevice(.init(volume: 0.1, behaviour: .sample(4447)))
        let engine = VolumeButtonsEngine(
            configuration: VolumeButtonsConfiguration(strategy: .outputVolume), clients: device.clients,
            onEvent: { _ in })
        try engine.start()
        device.advance(by: 1.5)
        for _ in 0..<presses {
            device.press(.down)
            device.advance(by: 0.0987)
        }
        device.advance(by: seconds)
        device.crash()
        device.advance(by: 0.5)
        device.launch()
        VolumeRecovery.recoverIfNeeded(device.clients) { _ in }
        device.advance(by: 1.5)
        #expect(device.volume == 0.1)
    }
}

/// Presses between the launch and the recovery's restore (the volume view not ready yet).
@Suite("Presses before the launch recovery is ready")
struct PressBeforeRecoveryReadyTests {
    @Test("A press up after a crash, then down again before the launch recovery is ready: the user's value stays")
    func pressUpThenDownBeforeReady() throws {
        // session outputVolume-2275-18015725: the crash left a nudge (0.1248 held at 0.125, user's 0); the user
        // pressed up while the app was dead (0.1873), then down again just after launch (0.1248): the recovery
        // judged only its read when the view was ready — back where VolumeKit left it — and set 0 over it
        let device = SimulatedDevice(.init(volume: 0, behaviour: .sample(2275)))
        let engine = VolumeButtonsEngine(
            configuration: VolumeButtonsConfiguration(strategy: .outputVolume), clients: device.clients,
            onEvent: { _ in })
        try engine.start()
        device.advance(by: 1.5)
        device.press(.down)
        device.advance(by: 0.15)
        device.crash()
        device.advance(by: 0.3)
        let left = device.volume
        device.press(.up)
        device.advance(by: 0.3)
        device.launch()
        VolumeRecovery.recoverIfNeeded(device.clients) { _ in }
        device.advance(by: 0.2)
        device.press(.down)
        device.advance(by: 1.5)
        #expect(left > 0.1 && left < 0.125)
        #expect(abs(device.volume - left) < 1e-4)
    }
}
