#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decides whether a saved user volume is given back when VolumeKit next runs on a route.
///
/// The rule (README, "Your users' volume is safe"):
/// 1. only on the route the record is for — volumes are per route, and a speaker volume is never put on
///    headphones;
/// 2. only if the device has not restarted since: its boot time (wall clock minus uptime) is the one saved,
///    within ``bootTimeTolerance``, and its uptime did not go back. A new boot's uptime may well exceed the
///    saved one, so uptimes alone miss a restart; records saved without a boot time are judged by uptime;
/// 3. only if the volume is still where VolumeKit left it: within ``tolerance`` below the value it held — and no
///    lower than the lowest value it set there (``PendingRestore/lowestVolume``, less a rounded read) — and at
///    most ``nudgeAbove`` above it, or exactly (within a rounded read) the value the route had when the output
///    moved away, or where presses faster than its resets had taken it (``PendingRestore/leftVolume``) —
///    its own sub-step nudges go down, and up by one nudge only — and not on a rail or a point of the 1/16
///    grid it did not hold (a press moves there from any value on a device whose presses snap to the grid,
///    however close), nor on the held value itself when VolumeKit's last set was a nudge below it
///    (``PendingRestore/nudgedBelowHeld``). Anything else means the user (Control Center, another app, a
///    button press) chose a new volume since, and their choice wins — presses made from the user's volume while
///    VolumeKit's nudges were left in it count as whole steps from their exact volume (`pressedFromNudge`).
///
/// Limits: a crash in the few milliseconds between a press and VolumeKit's reset leaves the volume one step
/// from the held value; that is taken as the user's choice. A change by other means (Control Center) to an
/// off-grid value between the lowest value VolumeKit set and the held value (within ``tolerance`` of the held
/// value in records without ``PendingRestore/lowestVolume``) is taken for VolumeKit's own.
///
/// A record that fails rule 2 or 3 is discarded; one for another route waits until that route is current.
public enum RecoveryRule {
    /// How far below the held value the volume may be and still count as "where VolumeKit left it": more than
    /// VolumeKit's own nudges around a burst of presses (1/4096 each), less than one button step (1/16).
    public static let tolerance: Float = 0.02
    /// How far apart two boot times may be and still be the same boot: the wall clock moves under network time
    /// corrections (seconds at most), while a restart takes longer than this.
    public static let bootTimeTolerance: TimeInterval = 5
    /// How far above the held value VolumeKit may leave the volume: one nudge (1/4096, after an up press) and
    /// a rounded read (1e-4). Higher is the user's (Control Center just above an anchor).
    public static let nudgeAbove: Float = VolumeGrid.nudgeAbove

    /// What to do with a record.
    public enum Decision: Sendable, Equatable {
        /// Set the user's volume back.
        case restore(Float)
        /// Forget the record, for this reason.
        case discard(Reason)
    }

    /// Why a record was discarded.
    public enum Reason: Sendable, Equatable {
        /// The device restarted since the record was written.
        case deviceRestarted
        /// The volume moved away from what VolumeKit held: the user's newer choice wins.
        case userChangedVolume
        /// The volume already is the user's.
        case alreadyRestored
    }

    /// Decides for the current route's record, given the volume and the uptime now (the boot time unknown).
    public static func decide(_ record: PendingRestore, currentVolume: Float, uptime: TimeInterval) -> Decision {
        decide(record, currentVolume: currentVolume, uptime: uptime, bootTime: nil)
    }

    /// Decides for the current route's record, given the volume, the uptime and the device's boot time now.
    public static func decide(
        _ record: PendingRestore, currentVolume: Float, uptime: TimeInterval, bootTime: TimeInterval?
    ) -> Decision {
        if uptime < record.savedAtUptime { return .discard(.deviceRestarted) }
        if let saved = record.bootTime, let bootTime, abs(bootTime - saved) > bootTimeTolerance {
            return .discard(.deviceRestarted)
        }
        if abs(currentVolume - record.userVolume) < 1e-6 { return .discard(.alreadyRestored) }
        let left = [record.heldVolume] + [record.leftVolume, record.aimedVolume].compactMap { $0 }
        // Its nudges go below the held value, and above it by one nudge at most; no lower than the lowest value it
        // set, when the record says (a rounded read below it, never more than `tolerance`).
        let lowest = record.lowestVolume.map { min($0, record.heldVolume) - VolumeGrid.readTolerance }
        func floor(_ value: Float) -> Float {
            guard let lowest else { return value - tolerance }
            return max(value - tolerance, min(value - VolumeGrid.readTolerance, lowest))
        }
        // A value left elsewhere (``PendingRestore/leftVolume``: where presses or a route change left it, a value
        // seen) is one exact value (docs/decisions/hud-and-session.md): as a band below it, it swallowed a Control
        // Center choice of the user's 0.02 under a left 1 (session outputVolume 71843 of the held-out range 70,000).
        let band = currentVolume >= floor(record.heldVolume) && currentVolume <= record.heldVolume + nudgeAbove
        // A burst's aimed resets (``PendingRestore/aimedVolume``) go down a nudge at a time: the last one, or one of
        // those before it still in flight when the output moved away, within a residue of nudges above.
        let atAimed = record.aimedVolume.map { aimed in
            currentVolume >= aimed - VolumeGrid.readTolerance && currentVolume <= aimed + VolumeGrid.residueTolerance
        }
        let atLeft =
            record.leftVolume.map { abs(currentVolume - $0) <= VolumeGrid.readTolerance } ?? false || atAimed == true
        if !band && !atLeft {
            // Presses made from the user's volume with VolumeKit's nudges in it: whole steps from theirs.
            if let pressed = pressedFromNudge(
                record.userVolume, left: left, currentVolume: currentVolume,
                lowest: abs(record.heldVolume - record.userVolume) <= VolumeGrid.readTolerance
                    ? lowest.map { _ in floor } : nil)
            {
                return .restore(pressed)
            }
            return .discard(.userChangedVolume)
        }
        // VolumeKit never leaves a rail or a point of the 1/16 grid it did not hold (its nudges are 1/4096 off
        // the value it holds): a press moved the volume there, by less than a step — near a rail, or from an
        // off-grid value on a device whose presses snap to the grid (`shared/facts/envelope.md`: 0.33 → 0.3125).
        // Nor the held value itself while its nudge below it was the last set (``PendingRestore/nudgedBelowHeld``).
        let exact = record.nudgedBelowHeld == true ? Array(left.dropFirst()) : left
        if VolumeGrid.isOnGrid(currentVolume),
            !exact.contains(where: { abs(currentVolume - $0) < VolumeGrid.gridTolerance })
        {
            return .discard(.userChangedVolume)
        }
        return .restore(record.userVolume)
    }

    /// The user's volume after presses made from it while VolumeKit's nudges were left in the volume (a crash
    /// mid-burst, then a press before or during the recovery): whole steps from their exact volume, as
    /// ``VolumeStepMachine`` counts a press while not capturing — the sub-step offset is VolumeKit's, never the
    /// user's choice. `nil` unless the volume is one or more whole steps from the user's volume give or take
    /// VolumeKit's nudges (up by ``nudgeAbove``, off it by more than a rounded read; down to the lowest value
    /// VolumeKit set there when it held the user's own volume and the record says — `lowest`, the rule's band
    /// floor from ``PendingRestore/lowestVolume``: a long hold leaves more than eight — else by at most
    /// ``VolumeStepMachine/residueTolerance``, eight, and a rounded read), that being where VolumeKit left it
    /// (`left`: the held value first, within the rule's band; a value left elsewhere, within a rounded read), and
    /// not on a rail (a press clamps there: the rail is the user's).
    static func pressedFromNudge(
        _ userVolume: Float, left: [Float], currentVolume: Float, lowest floor: ((Float) -> Float)? = nil
    ) -> Float? {
        let step = VolumeGrid.step
        let steps = ((currentVolume - userVolume) / step).rounded()
        let offset = currentVolume - steps * step - userVolume
        let nudged = userVolume + offset
        guard steps != 0, currentVolume > 0, currentVolume < 1,
            abs(offset) > VolumeGrid.readTolerance, offset <= nudgeAbove,
            floor != nil || offset >= -(VolumeGrid.residueTolerance + VolumeGrid.readTolerance),
            left.indices.contains(where: { index in
                let value = left[index]
                // Below the held value go VolumeKit's nudges (the band); a value it left elsewhere
                // (``PendingRestore/leftVolume``: where presses or a route change left it) is one exact value,
                // within a rounded read — a press from a nudge of the held value that lands a nudge away from
                // whole steps of it is a press from the held value, counted as read
                // (docs/decisions/hud-and-session.md, "A value a route change left is one exact value").
                guard index == 0 else { return abs(nudged - value) <= VolumeGrid.readTolerance }
                return nudged >= (floor?(value) ?? value - tolerance) && nudged <= value + nudgeAbove
            })
        else { return nil }
        return min(max(userVolume + steps * step, 0), 1)
    }

    /// How close a read must be to a point of the 1/16 grid to be on it (`VolumeGrid`'s, which this rule shares).
    static let gridTolerance: Float = VolumeGrid.gridTolerance

    /// Whether `volume` is a rail or a point of the 1/16 grid (`VolumeGrid`'s, which this rule shares).
    static func isOnGrid(_ volume: Float) -> Bool { VolumeGrid.isOnGrid(volume) }
}
