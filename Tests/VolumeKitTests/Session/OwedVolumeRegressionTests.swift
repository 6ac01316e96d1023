import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Random sessions that lost the user's volume under samples of the envelope (issue 11), each reduced to the
/// few steps that show it: a record erased or misread, or a change of the user's taken for VolumeKit's own.
@Suite("The user's volume is never lost: records and reads after a pause")
struct OwedVolumeRegressionTests {
    /// A device with `rules`, the app capturing with VolumeKit from `volume` on the speaker.
    private static func capturing(_ rules: [String], volume: Float) throws -> (SimulatedDevice, VolumeButtonsEngine) {
        let behaviour = try DeviceBehaviour(rules: rules)
        let device = SimulatedDevice(.init(volume: volume, behaviour: behaviour))
        let engine = VolumeButtonsEngine(clients: device.clients, onEvent: { _ in })
        try engine.start()
        device.advance(by: 1.2)
        return (device, engine)
    }

    /// The app crashes while capturing; `meanwhile` runs while it is not running; it launches and recovers.
    private static func crashAndRecover(
        _ device: SimulatedDevice, meanwhile: (SimulatedDevice) -> Void = { _ in }
    ) -> Locked<VolumeRecovery.Outcome?> {
        device.crash()
        device.advance(by: 0.3)
        meanwhile(device)
        device.launch()
        let outcome = Locked<VolumeRecovery.Outcome?>(nil)
        VolumeRecovery.recoverIfNeeded(device.clients) { result in outcome.withLock { $0 = result } }
        return outcome
    }

    @Test("After a crash, a Control Center value just above the anchor is the user's")
    func controlCenterAboveAnchorAfterCrash() throws {
        let (device, _) = try Self.capturing([], volume: 0)
        _ = Self.crashAndRecover(device) { device in
            device.controlCenterSlider(0.13)
            device.advance(by: 0.7)
        }
        device.advance(by: 1.5)
        #expect(device.volume == 0.13)
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

    @Test("A press while VolumeKit's restore is still on its way chose the value the system showed")
    func pressDuringRestore() {
        var machine = VolumeStepMachine(configuration: .init(headroomSteps: 0))
        _ = machine.start(volume: 0.125, userVolume: 0, at: 0)
        _ = machine.stop(at: 0)
        _ = machine.observe(0.1875, at: 0.01)
        #expect(machine.userVolume == 0.1875, "one step up from the 0.125 shown, not from 0")
    }

    @Test("A press while not capturing, read a moment after VolumeKit's restore, is the user's")
    func pressReadSoonAfterRestore() {
        var machine = VolumeStepMachine()
        _ = machine.start(volume: 0.9375, at: 0)
        _ = machine.observe(0.875, at: 0.02)
        _ = machine.suspend(at: 1)
        _ = machine.assumeSetsLanded(at: 1)
        _ = machine.resume(volume: 1, at: 1.25)
        #expect(machine.userVolume == 1)
    }

    @Test("A restore from an anchor away from the user's volume leaves no residue: a grid press after is the value")
    func noResidueAwayFromAnchor() {
        var machine = VolumeStepMachine()
        _ = machine.start(volume: 0.07, at: 0)
        _ = machine.observe(0.125, at: 0.02)
        let nudged = machine.observe(0.0625, at: 1).compactMap { if case .setVolume(let v) = $0 { v } else { nil } }
        for value in nudged { _ = machine.observe(value, at: 1.02) }
        _ = machine.suspend(at: 1.1)
        _ = machine.assumeSetsLanded(at: 1.1)
        _ = machine.resume(volume: 0.125, at: 2)
        #expect(machine.userVolume == 0.125)
    }

    @Test("A Control Center value close to whole steps from the user's is not taken for presses")
    func controlCenterNearWholeSteps() {
        var machine = VolumeStepMachine()
        _ = machine.start(volume: 0.31, at: 0)
        var value: Float = 0.31
        for press in 1...5 {
            let sets = machine.observe(value - VolumeStepMachine.step, at: Double(press))
            for case .setVolume(let nudged) in sets {
                value = nudged
                _ = machine.observe(nudged, at: Double(press) + 0.02)
            }
        }
        _ = machine.suspend(at: 6)
        _ = machine.assumeSetsLanded(at: 6)
        _ = machine.resume(volume: 0.12, at: 8)
        #expect(machine.userVolume == 0.12)
    }

    @Test("A press snapped to the grid from an off-grid volume, unset when the app left, leaves no residue")
    func noResidueFromGridSnappedPress() {
        // Grid device (ov-17185): the user's 0.74 (Control Center); a held up press snaps to 0.75, the app leaves
        // before the reset lands; the restore to 0.74 lands; in the background a down press snaps to 0.6875.
        var machine = VolumeStepMachine()
        _ = machine.start(volume: 0.74, at: 0)
        _ = machine.observe(0.75, at: 1)
        _ = machine.suspend(at: 1.1)
        _ = machine.assumeSetsLanded(at: 1.1)
        _ = machine.resume(volume: 0.6875, at: 2)
        #expect(machine.userVolume == 0.6875, "the value the system showed, not 0.74 - 1/16 = 0.6775")
    }
}
