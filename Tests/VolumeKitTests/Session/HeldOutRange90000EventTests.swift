import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Sessions of the held-out range 90,000 (`VOLUMEKIT_SWEEP_FIRST=90000 scripts/sweep.sh`) whose events broke: a set
/// of VolumeKit's on a value where a held press lands took that press for its own landing. Each replayed with the
/// verdict it has now, and the rule it broke shown on the step machine alone.
@Suite("The held-out range 90,000: a set of ours where a held press lands")
struct HeldOutRange90000EventTests {
    @Test("A user's change during a down press held: a nudge below the anchor, not the anchor it refuses")
    func userChangeDuringAHeldDownPress() {
        // Sample 90019: a hold down from the Bluetooth route's anchor 0.75; the anchor set once the buttons seemed
        // quiet was refused (the press still held), then the headset synchronised its 0.8 and VolumeKit set the
        // anchor 0.75 again — refused too, its echo lingering where the hold's next repeat snapped from 0.8. The
        // repeat was taken for that set's landing, the press reported over, and the hold split in three.
        let session = RandomSession.replayed(.outputVolume, sample: 90019, seed: 712_860_461)
        let verdict = session.eventVerdict()
        #expect(verdict.violations.isEmpty, "\(verdict.violations.map(\.summary))")
        #expect(session.violations() == [])
    }

    /// A hold down from the anchor 0.75 with `headroom` steps: the first step's nudge below it lands; then the buttons
    /// seem quiet and the anchor is set again — refused, the press still held, so it never lands.
    static func holdDownWithAnchorRefused(headroom: Int) -> VolumeStepMachine {
        var machine = VolumeStepMachine(configuration: .init(headroomSteps: headroom))
        _ = machine.start(volume: 0.75, at: 0)
        let nudge = machine.observe(0.6875, at: 1.0).setValues
        #expect(nudge.count == 1 && nudge[0] < 0.75)
        _ = machine.observe(nudge[0], at: 1.005)
        #expect(machine.tick(at: 1.36, volume: nudge[0]).setValues == [0.75])
        return machine
    }

    @Test("The same on the step machine: the hold's next repeat onto the anchor is a press")
    func repeatOntoTheAnchorIsAPress() {
        // Four steps of headroom (a slow phone's): the anchor stays 0.75 for the headset's 0.8.
        var machine = Self.holdDownWithAnchorRefused(headroom: 4)
        // The headset's own volume synchronised, above the anchor, while that set may still be on its way.
        let synced = Array(machine.observe(0.8, at: 1.5))
        #expect(synced.contains(.userVolumeChanged(0.8)))
        #expect(synced.setValues.allSatisfy { $0 < 0.75 - VolumeStepMachine.readTolerance }, "\(synced)")
        // The refused set's echo expires; the hold's next repeat snaps from 0.8 onto the anchor 0.75.
        _ = machine.tick(at: 1.58, volume: 0.8)
        #expect(machine.observe(0.75, at: 1.6).contains(.steps(.down, count: 1)))
    }

    @Test("A user's change during a down press held that moves the anchor: a nudge below the new anchor first")
    func userChangeMovingTheAnchorDuringAHeldDownPress() {
        // The default two steps of headroom: the headset's 0.95 synchronised during a hold from the anchor 0.75 moves
        // the anchor to 0.875 — above where the press started, so the press still held refuses it as it did 0.75, and
        // a refused set's echo on the grid would take the repeat that snaps onto it (the independent review's world:
        // moving the anchor forgot the nudge below the old one, and the anchor itself was set).
        var machine = Self.holdDownWithAnchorRefused(headroom: 2)
        let synced = Array(machine.observe(0.95, at: 1.5))
        #expect(synced.contains(.userVolumeChanged(0.95)))
        #expect(synced.setValues.allSatisfy { $0 < 0.875 - VolumeStepMachine.readTolerance }, "\(synced)")
    }

    @Test("Down steps below an off-grid anchor a little above a point of the grid: the nudges pass over that point")
    func nudgesPassOverTheGrid() {
        // Sample 93821: Headphone Safety's 0.8134 held; a hold down snaps onto 0.8125 from every nudge below it. The
        // fourth nudge, 0.81242, was within a read of 0.8125 and took a repeat for its landing; the fifth, clamped up
        // to the press's value 0.8125 itself, landed under the hold's next repeat (0.75) and read as an up press.
        let session = RandomSession.replayed(.systemNotification, sample: 93821, seed: 742_968_500)
        let verdict = session.eventVerdict()
        #expect(verdict.violations.isEmpty, "\(verdict.violations.map(\.summary))")
        #expect(session.violations() == [])
    }

    @Test("The same on the step machine: no nudge is a value a press lands on")
    func noNudgeOnTheGrid() {
        var machine = VolumeStepMachine(configuration: .init(headroomSteps: 0, reportsPressesAtRails: true))
        _ = machine.start(volume: 0.8134, at: 0)
        var set = [Float]()
        // A hold's repeats, each snapping onto the grid, seen before any of VolumeKit's resets lands.
        for (index, value) in [Float(0.8125), 0.75, 0.6875, 0.625, 0.5625, 0.5].enumerated() {
            set += machine.observe(value, at: 1 + Double(index) * 0.07).setValues
        }
        #expect(set.count == 6)
        for value in set {
            let offGrid = abs(value * 16 - (value * 16).rounded()) / 16
            #expect(value < 0.8134 && offGrid > VolumeStepMachine.readTolerance, "\(set)")
        }
        #expect(Set(set).count == set.count, "each nudge its own value: \(set)")
    }
}
