import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// The user's volume read after a pause, or while VolumeKit's restore is on its way (issue 11's random sessions,
/// each reduced to the few steps that show it): a press is counted from what the system showed, and VolumeKit's
/// own sets leave no residue in it.
@Suite("The user's volume is never lost: reads after a pause and during a restore")
struct ReadAfterPauseTests {
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
        let nudged = machine.observe(0.0625, at: 1).setValues
        for value in nudged { _ = machine.observe(value, at: 1.02) }
        _ = machine.suspend(at: 1.1)
        _ = machine.assumeSetsLanded(at: 1.1)
        _ = machine.resume(volume: 0.125, at: 2)
        #expect(machine.userVolume == 0.125)
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

    @Test(
        "A press while the stop's restore is on its way, at the headroom anchor, moves the volume the user heard",
        arguments: [(Float(0), VolumeButton.up, Float(0.1875)), (1, .down, 0.8125)])
    func pressDuringRestoreFromAnchor(user: Float, button: VolumeButton, expected: Float) throws {
        let device = try simulatedDevice(["sliderLatency=0.15"], volume: user)
        // The anchor two steps from the rail: a fixed headroom (this slow slider would grow it to four).
        let engine = quietEngine(on: device, .fixedHeadroom)
        try engine.start()
        device.advance(by: 1.2)
        engine.stop()
        device.advance(by: 0.05)
        device.press(button)
        device.advance(by: 2)
        // Like a press after a crash (RecoveryRule keeps it): one step from the anchor the user heard.
        #expect(abs(device.volume - expected) < 1e-4)
    }

    @Test("A grid-snapped press seen last before suspending is not the user's volume give or take a step's slack")
    func snappedPressThenPressWhileSuspended() {
        // Headroom 0: VolumeKit holds the user's off-grid 0.07 itself; a press snaps to 0.0625, 0.0075 from it.
        var machine = VolumeStepMachine(configuration: .init(headroomSteps: 0))
        _ = machine.start(volume: 0.07, at: 0)
        _ = machine.observe(0.0625, at: 1)
        _ = machine.suspend(at: 1.05)
        // Neither reset has landed: the device still shows 0.0625, and the user presses up from there.
        _ = machine.observe(0.125, at: 1.1)
        #expect(machine.userVolume == 0.125, "the press moved what the device showed, not 0.07 + 1/16")
    }
}
