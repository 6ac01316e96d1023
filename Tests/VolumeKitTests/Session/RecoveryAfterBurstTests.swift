import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// A crash during or after a burst of presses whose resets were dropped or refused, so that the presses walked the
/// volume away from VolumeKit's anchor (issue 11's sweep): the launch recovery gives the user's volume back.
@Suite("A crash during a burst: the launch recovery gives the user's volume back")
struct RecoveryAfterBurstTests {
    @Test(
        "A crash during fast presses up, the slider dropping sets equal to its stale cache: the user's volume comes back",
        arguments: [0.01, 0.03, 0.06, 0.09, 0.12])
    func crashDuringBurstWithDroppedSets(after seconds: Double) throws {
        // sessions systemNotification-1387-10983654, -3671-29070650, -4978-39420783: each reset during the
        // burst set the anchor alone, which the slider dropped (its cache still held the anchor): the crash
        // before the retry left the volume a step up, taken for the user's
        let device = SimulatedDevice(.init(volume: 0.39, behaviour: .sample(1387)))
        let engine = VolumeButtonsEngine(
            configuration: VolumeButtonsConfiguration(strategy: .systemNotification, allowsPrivateAPI: true),
            clients: device.clients, onEvent: { _ in })
        try engine.start()
        device.advance(by: 1.5)
        for _ in 0..<3 {
            device.press(.up)
            device.advance(by: 0.118)
        }
        device.press(.up)
        device.advance(by: seconds)
        device.crash()
        device.advance(by: 1)
        device.launch()
        VolumeRecovery.recoverIfNeeded(device.clients) { _ in }
        device.advance(by: 1.5)
        #expect(device.volume == 0.39)
    }

    @Test(
        "A crash while every reset of a fast down burst is refused: the recovery gives the user's volume back",
        arguments: [Float(0.5), 0.78])
    func crashDuringRefusedBurst(user: Float) throws {
        // Each reset lands while the down button is still held (the presses overlap), so iOS refuses it (seed 000).
        let device = try simulatedDevice(
            ["tapLength=0.15", "volumeCacheDelay=0.06", "sliderLatency=0.1", "downPressRefusal=seedShape"],
            volume: user)
        let engine = quietEngine(on: device)
        try engine.start()
        device.advance(by: 1.2)
        for _ in 0..<4 {
            device.press(.down)
            device.advance(by: 0.08)
        }
        #expect(device.volume < user - 0.1, "the presses took the volume down: the resets were refused")
        device.crash()
        device.advance(by: 0.3)
        recover(device, launching: true, settle: 2)
        #expect(abs(device.volume - user) < 1e-4, "VolumeKit held \(user); the presses were its captured input")
    }

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
