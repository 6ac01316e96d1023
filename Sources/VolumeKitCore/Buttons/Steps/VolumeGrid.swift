#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The 1/16 grid a press of the phone's buttons moves the volume on, and how close two values must be to be
/// the same: the arithmetic ``VolumeStepMachine`` and ``RecoveryRule`` share.
///
/// Rules, and where they come from:
/// - A press moves the volume by about 1/16, clamped to 0…1 (seed 002; facts §7) — exactly 1/16 from the value,
///   or to a point of the 1/16 grid where the phone snaps presses, and reads may be rounded to 1e-4 (Apple forums
///   756484; `shared/facts/envelope.md`, `stepQuantization`).
/// - VolumeKit's own sub-step sets (*nudges*) are 1/4096 off the value it holds: more than twice a rounded read,
///   so a nudged value is never read as that value, and far less than a step.
/// - KVO is silent at the rails (seed 000): capturing through KVO, the anchor keeps a headroom of whole steps
///   from 0 and 1.
enum VolumeGrid {
    /// One step of the volume: 1/16.
    static let step: Float = 1.0 / 16.0
    /// How far beside a value VolumeKit sets while a press may still be held: more than twice
    /// ``readTolerance``, so a nudged value is never read as the value itself.
    static let nudge: Float = 1.0 / 4096.0
    /// Two values closer than this are the same: reads may be rounded to 1e-4 (Apple forums 756484).
    static let readTolerance: Float = 1e-4
    /// How close a read must be to a point of the grid to be on it: a rounded read, while VolumeKit's nudges are
    /// 1/4096 ≈ 2.4e-4 off the value it holds.
    static let gridTolerance: Float = readTolerance
    /// How far a change may be from whole steps and still be the user's presses when not capturing: two rounded
    /// reads and float noise, no more — a Control Center drag's intermediate values may come about a step apart
    /// (0.062 of 0.0625) and are the user's values as they are.
    static let pressTolerance: Float = 3e-4
    /// How far a value may be from whole steps and still be presses with VolumeKit's nudges around a burst
    /// (1/4096 each) left in it.
    static let residueTolerance: Float = 0.002
    /// How far a change may be from a whole number of steps and still be presses (grid snapping, nudges).
    static let stepTolerance: Float = 0.01
    /// How far above a value it holds VolumeKit may leave the volume: one nudge (after an up press) and a rounded
    /// read. Its other nudges go below.
    static let nudgeAbove: Float = nudge + readTolerance

    /// Whether `a` and `b` are the same value as read: within ``readTolerance``.
    static func isSame(_ a: Float, _ b: Float) -> Bool { abs(a - b) <= readTolerance }

    /// Whether `a` and `b` are different values as read: farther apart than ``readTolerance``.
    static func isApart(_ a: Float, _ b: Float) -> Bool { abs(a - b) > readTolerance }

    /// `value` within 0…1.
    static func clamp(_ value: Float) -> Float { min(1, max(0, value)) }

    /// The whole number of steps nearest to `delta`.
    static func steps(in delta: Float) -> Float { (delta / step).rounded() }

    /// The part of `delta` that is not whole steps (signed; within half a step).
    static func offWholeSteps(_ delta: Float) -> Float { delta - steps(in: delta) * step }

    /// Whether `volume` is a rail or a point of the 1/16 grid (within ``gridTolerance``).
    static func isOnGrid(_ volume: Float) -> Bool {
        let steps = volume / step
        return volume <= 0 || volume >= 1 || abs(steps - steps.rounded()) * step < gridTolerance
    }

    /// Whether a change from `old` to `new` is where a press of the phone's buttons can land
    /// (`shared/facts/envelope.md`, `stepQuantization`): a step from the value (exactly, or with rounded reads and
    /// VolumeKit's nudges left in it, within ``residueTolerance``), or a point of the 1/16 grid, a rail included
    /// (presses snapped to the grid). Anything else is the user's own volume, however close: a Bluetooth
    /// headset's stored volume synchronised on connect (0.4 from 0.4375), Headphone Safety turning the volume
    /// down to its limit, a headset's own buttons stepping its AVRCP absolute volume (8 of 127 levels, off the
    /// grid) — undoing it would undo what the user or the system chose, hearing protection included.
    static func isPressLanding(from old: Float, to new: Float) -> Bool {
        abs(abs(new - old) - step) <= residueTolerance || isOnGrid(new)
    }

    /// Whether one press can move the volume from `old` to `new`: a step (exactly, or with rounded reads and a nudge
    /// left in it, within ``residueTolerance``), or to the next point of the 1/16 grid (presses snapped to it). A
    /// change of several steps, or from the grid to a value off it (a nudge), is no press.
    static func isOnePress(from old: Float, to new: Float) -> Bool {
        // From a point of the grid a press lands on the grid (a step, or snapped; reads rounded to 1e-4 stay within
        // ``gridTolerance``): a nudge's fraction off it is no press.
        if isOnGrid(old), !isOnGrid(new) { return false }
        let magnitude = abs(new - old)
        return abs(magnitude - step) <= residueTolerance || (magnitude <= step + residueTolerance && isOnGrid(new))
    }

    /// The presses a change from `old` to `new` can be: up to a step (plus ``stepTolerance``) in one direction is
    /// one press, wherever it snapped to (the grid, a rail, from a nudged value); about k steps is k presses;
    /// anything else none. No change is a press only at a rail where presses are reported (`atRails`).
    static func classify(from old: Float, to new: Float, atRails: Bool) -> (VolumeButton, Int)? {
        let delta = new - old
        let magnitude = abs(delta)
        if magnitude <= readTolerance {
            guard atRails else { return nil }
            if new >= 1 { return (.up, 1) }
            if new <= 0 { return (.down, 1) }
            return nil
        }
        let button: VolumeButton = delta > 0 ? .up : .down
        if magnitude < step + stepTolerance { return (button, 1) }
        let steps = (magnitude / step).rounded()
        if abs(magnitude - steps * step) < stepTolerance {
            return (button, Int(steps))
        }
        return nil
    }

    /// The anchor for `volume` while capturing: `volume`, kept `headroomSteps` steps away from 0 and 1 where KVO
    /// is silent (seed 000).
    static func anchor(for volume: Float, headroomSteps: Int) -> Float {
        #if VOLUMEKIT_MUTANTS
        if Mutant.isOn(.headroomZero) { return volume }
        #endif
        let margin = Float(headroomSteps) * step
        return min(1 - margin, max(margin, volume))
    }
}
