import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// After a crash, a Control Center value a little below the value VolumeKit held — but below anything VolumeKit
/// ever set there — is the user's, not VolumeKit's leftover (issue 11: sessions outputVolume-3192-25277449,
/// -7874-62354206, -8942-70811699, where the record's old user volume was set over it).
@Suite("Recovery band: no lower than the lowest value VolumeKit set")
struct RecoveryBandTests {
    /// VolumeKit holding the user's 1.0 at 0.875, `downPresses` down presses 0.25 s apart (each reset a nudge
    /// below the anchor), then crashed.
    private static func crashed(downPresses: Int, _ quantization: DeviceBehaviour.StepQuantization) throws
        -> SimulatedDevice
    {
        var behaviour = DeviceBehaviour()
        behaviour.stepQuantization = quantization
        behaviour.volumeViewReadyDelay = 1.0  // the envelope's slowest: the recovery judges the volume 1 s in
        let device = SimulatedDevice(.init(volume: 1.0, behaviour: behaviour))
        let engine = VolumeButtonsEngine(
            configuration: .fixedHeadroom, clients: device.clients,
            onEvent: { _ in })
        try engine.start()
        device.advance(by: 2.5)
        for _ in 0..<downPresses {
            device.press(.down)
            device.advance(by: 0.25)
        }
        device.advance(by: 0.1)
        device.crash()
        device.advance(by: 0.3)
        return device
    }

    private static func relaunch(_ device: SimulatedDevice, controlCenter value: Float?) {
        device.launch()
        VolumeRecovery.recoverIfNeeded(device.clients) { _ in }
        if let value {
            device.advance(by: 0.05)  // lands 0.3 s later, before the recovery's view is ready
            device.controlCenterSlider(value)
        }
        device.advance(by: 2.5)
    }

    @Test(
        "Control Center 0.005 below the held value after a crash, nothing of VolumeKit's set there: the user's wins",
        arguments: DeviceBehaviour.StepQuantization.allCases)
    func controlCenterJustBelowAnchor(_ quantization: DeviceBehaviour.StepQuantization) throws {
        // session outputVolume-7874-62354206: held 0.875 (the user's 1.0), crash, then Control Center 0.87 — inside
        // RecoveryRule.tolerance (0.02) below the held value, so the recovery set 1.0 over the user's choice
        let device = try Self.crashed(downPresses: 0, quantization)
        #expect(abs(device.volume - 0.875) < 1e-4)
        Self.relaunch(device, controlCenter: 0.87)
        #expect(abs(device.volume - 0.87) < 1e-4)
    }

    @Test(
        "Control Center below VolumeKit's nudges after a crash mid-burst: the user's wins",
        arguments: DeviceBehaviour.StepQuantization.allCases)
    func controlCenterBelowNudges(_ quantization: DeviceBehaviour.StepQuantization) throws {
        // session outputVolume-8942-70811699: two nudges below the held 0.125 set (0.12476, 0.12451), later
        // Control Center 0.12 — taken for VolumeKit's leftover, the record's old user volume set over it
        let device = try Self.crashed(downPresses: 3, quantization)
        #expect(device.volume < 0.875 && device.volume > 0.87)
        Self.relaunch(device, controlCenter: 0.865)
        #expect(abs(device.volume - 0.865) < 1e-4)
    }

    @Test(
        "A crash mid-burst with VolumeKit's nudge left and nothing since: the user's volume still comes back",
        arguments: DeviceBehaviour.StepQuantization.allCases, [1, 3, 12])
    func nudgeLeftStillRestores(_ quantization: DeviceBehaviour.StepQuantization, presses: Int) throws {
        let device = try Self.crashed(downPresses: presses, quantization)
        Self.relaunch(device, controlCenter: nil)
        #expect(device.volume == 1.0)
    }

    @Test("A record written before the lowest value was saved decodes and keeps the 0.02 band")
    func oldRecordKeepsToday() throws {
        let old = Data(#"{"speaker":{"userVolume":1,"heldVolume":0.875,"savedAtUptime":1}}"#.utf8)
        let store = KeyValueStoreClient.inMemory()
        store.setData(old, PendingRestores.key)
        let record = try #require(PendingRestores.load(from: store).byRoute[.speaker])
        #expect(record.lowestVolume == nil)
        #expect(RecoveryRule.decide(record, currentVolume: 0.87, uptime: 2) == .restore(1))
        var newer = record
        newer.lowestVolume = 0.875 - 8 * VolumeStepMachine.nudge
        #expect(RecoveryRule.decide(newer, currentVolume: 0.87, uptime: 2) == .discard(.userChangedVolume))
        #expect(RecoveryRule.decide(newer, currentVolume: 0.8731, uptime: 2) == .restore(1))
        // Never wider than the 0.02 band, whatever the record says.
        newer.lowestVolume = 0.5
        #expect(RecoveryRule.decide(newer, currentVolume: 0.85, uptime: 2) == .discard(.userChangedVolume))
    }

    @Test(
        "The rule: VolumeKit's nudges go below the held value and one nudge above; a grid point it did not hold is a press"
    )
    func recoveryBand() {
        let record = PendingRestore(userVolume: 0, heldVolume: 0.125, savedAtUptime: 0)
        let nudge = VolumeStepMachine.nudge
        for left in [0.125, 0.125 - 5 * nudge, 0.125 + nudge] {
            #expect(RecoveryRule.decide(record, currentVolume: left, uptime: 1) == .restore(0), "\(left)")
        }
        for users in [0.13, 0.1875] as [Float] {
            #expect(RecoveryRule.decide(record, currentVolume: users, uptime: 1) == .discard(.userChangedVolume))
        }
        let offGrid = PendingRestore(userVolume: 0.49, heldVolume: 0.49, savedAtUptime: 0)
        #expect(RecoveryRule.decide(offGrid, currentVolume: 0.5, uptime: 1) == .discard(.userChangedVolume))
        #expect(RecoveryRule.decide(offGrid, currentVolume: 0.49 - 3 * nudge, uptime: 1) == .restore(0.49))
    }

    @Test("The rule: a grid point VolumeKit did not hold is a press; its own nudges off a held value are not")
    func gridRule() {
        let record = PendingRestore(userVolume: 0.33, heldVolume: 0.33, savedAtUptime: 10)
        #expect(RecoveryRule.decide(record, currentVolume: 0.3125, uptime: 11) == .discard(.userChangedVolume))
        #expect(RecoveryRule.decide(record, currentVolume: 0.3125 + 5e-5, uptime: 11) == .discard(.userChangedVolume))
        #expect(RecoveryRule.decide(record, currentVolume: 0.33 - 3.0 / 4096, uptime: 11) == .restore(0.33))
        // On the grid, VolumeKit's anchor itself and its nudges around it are its own.
        let grid = PendingRestore(userVolume: 0.95, heldVolume: 0.875, savedAtUptime: 10)
        #expect(RecoveryRule.decide(grid, currentVolume: 0.875, uptime: 11) == .restore(0.95))
        #expect(RecoveryRule.decide(grid, currentVolume: 0.875 - 2.0 / 4096, uptime: 11) == .restore(0.95))
    }
}
