#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The user's own volume, inferred from a change VolumeKit did not make while it was not capturing, or from a
/// read after observations had stopped.
///
/// The rule: whole steps from where VolumeKit left the volume are the user's presses, applied to their exact volume
/// with VolumeKit's own nudges taken out — the sub-step offset is VolumeKit's, never the user's choice (as
/// ``RecoveryRule`` counts presses made from a nudge after a crash). Whole steps mean within two rounded reads
/// (``VolumeStepMachine/pressTolerance``; reads rounded to 1e-4, Apple forums 756484): a Control Center value a few
/// thousandths from whole steps is the user's as it is, and so is a press from a value of VolumeKit's whole steps
/// from the user's (the headroom anchor, what the system HUD showed): it does not move the user's volume by those
/// steps.
enum UserVolumeInference {
    /// The nudge VolumeKit leaves in the volume when a set of `target` is taken as landed over `believed`, holding
    /// `anchor`: the part of the offset that is not whole steps (presses). Only for a set of the anchor itself — one
    /// from the anchor to another value (the user's, headroom away near a rail) says nothing of nudges — and never
    /// from a press snapped to a point of the 1/16 grid other than the anchor (an up press from an off-grid 0.74 to
    /// 0.75 is 0.01 off, within ``VolumeStepMachine/stepTolerance``, but no nudge).
    static func residue(believed: Float, target: Float, anchor: Float) -> Float {
        let fraction = VolumeGrid.offWholeSteps(believed - target)
        let snapped = VolumeGrid.isOnGrid(believed) && abs(believed - anchor) > VolumeGrid.gridTolerance
        return abs(fraction) < VolumeGrid.stepTolerance && VolumeGrid.isSame(target, anchor) && !snapped ? fraction : 0
    }

    /// The user's volume after a change to `value` from `old` while not capturing, the user's volume being `user`
    /// and VolumeKit holding `anchor`; `leftover`: the nudge sets taken as landed left in the volume.
    ///
    /// Whole steps from the last value are presses — also from the value a press really started at, when the app
    /// left during a hold (its observation arrives after the restore was taken as landed, and carries the hold's
    /// nudges). They move what the user heard: from their volume, or from the anchor VolumeKit held them at
    /// (headroom near a rail) — what the system HUD showed and what RecoveryRule keeps as their choice after a
    /// crash — give or take VolumeKit's nudges, but not from a point of the 1/16 grid that is neither (a press
    /// snapped there from an off-grid value, 0.07 → 0.0625, and the next one moved from what the device showed).
    /// From the user's exact volume, read live, the value is theirs as it is (a Control Center drag's samples may
    /// come within a read of a step apart, 0.06243 of 0.0625); anything else is the value as it is.
    static func afterChange(to value: Float, from old: Float, leftover: Float, user: Float, anchor: Float) -> Float {
        let start: Float? =
            wholeSteps(value - old) != nil
            ? old : (leftover != 0 && wholeSteps(value - old - leftover) != nil ? old + leftover : nil)
        guard let start, value > 0, value < 1 else { return value }
        let steps = VolumeGrid.steps(in: value - start)
        func near(_ held: Float) -> Bool {
            abs(start - held) < VolumeGrid.stepTolerance
                && !(VolumeGrid.isOnGrid(start) && abs(start - held) > VolumeGrid.gridTolerance)
        }
        if leftover == 0, VolumeGrid.isSame(start, user) { return value }
        // VolumeKit's nudges of the user's own volume go below it, and one above it at most
        // (`RecoveryRule.pressedFromNudge`); farther above, the volume was VolumeKit's (a crashed run's anchor nudge
        // the recovery does not know), and the press is as it is.
        if near(user), start - user <= VolumeGrid.nudgeAbove { return VolumeGrid.clamp(user + steps * VolumeGrid.step) }
        // A headroom anchor apart from the user's volume. One that is the user's volume (a recovery run's, or capture
        // away from the rails) was judged just above: farther above it is a crashed run's nudge.
        if VolumeGrid.isApart(anchor, user), near(anchor) { return VolumeGrid.clamp(anchor + steps * VolumeGrid.step) }
        // Whole steps from the user's volume, give or take VolumeKit's nudges (a few 1/4096ths, within
        // ``VolumeGrid/residueTolerance``): a landing of VolumeKit's during a hold, or a captured step from one, with
        // reads rounded to 1e-4 — a hold's repeat after a stop, from 0.4373 (its last step from the nudge 0.49976),
        // is 0.375 for the user, not the read 0.3748 with the nudge in it (corpus stop-during-hold.txt, held-out
        // sample 90018). A point of the 1/16 grid a press snapped to from an off-grid value is farther off.
        if abs(VolumeGrid.offWholeSteps(start - user)) <= VolumeGrid.residueTolerance {
            return VolumeGrid.clamp(user + VolumeGrid.steps(in: value - user) * VolumeGrid.step)
        }
        return value
    }

    /// `volume`, read after observations stopped, as the user's own, their volume being `user`, the machine
    /// believing `believed` and `residue` VolumeKit's nudge left in it: whole steps from where VolumeKit left the
    /// volume — where the set taken as landed put it, that plus the residue, or the last value observed since (a
    /// landing of VolumeKit's own after the user's change says the volume is VolumeKit's there) — the fewest when
    /// several fit (a read equal to where VolumeKit's own set left the volume is no press); anything else, and a
    /// rail, as it is.
    static func afterRead(_ volume: Float, user: Float, believed: Float, residue: Float) -> Float {
        guard volume > 0, volume < 1 else { return volume }
        var users: Float?
        var fewest = Float.infinity
        // From VolumeKit's value whole steps from the user's, presses are the read as it is.
        let left = believed - user
        for offset in [0, residue, left] {
            let delta = volume - offset - user
            let steps = VolumeGrid.steps(in: delta)
            if abs(delta - steps * VolumeGrid.step) < VolumeGrid.pressTolerance, abs(steps) < fewest {
                fewest = abs(steps)
                let asRead = offset == left && abs(left) >= VolumeGrid.stepTolerance && steps != 0
                users = asRead ? volume : VolumeGrid.clamp(user + steps * VolumeGrid.step)
            }
        }
        return users ?? volume
    }

    /// The whole number of steps `delta` is, within ``VolumeStepMachine/pressTolerance``; `nil` for none or no
    /// whole number.
    static func wholeSteps(_ delta: Float) -> Float? {
        let steps = VolumeGrid.steps(in: delta)
        return steps != 0 && abs(delta - steps * VolumeGrid.step) < VolumeGrid.pressTolerance ? steps : nil
    }
}
