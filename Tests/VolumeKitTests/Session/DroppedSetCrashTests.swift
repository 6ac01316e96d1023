import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// A crash during a burst of up presses on a slider that drops sets equal to its stale cache (issue 11's sweep).
@Suite("Crash during a burst, sets dropped by the slider's cache")
struct DroppedSetCrashTests {
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
}
