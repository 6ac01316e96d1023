#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The records that give the user's volume back after a crash or a kill (``PendingRestores``), kept in step with
/// what ``VolumeStepMachine`` does: a record exists for a route while VolumeKit holds its volume (a press may move
/// it at any moment) or has left it away from the user's, and is written before any set it covers. An earlier
/// run's record is judged by ``RecoveryRule``.
///
/// Pure: each method says whether the records changed and must be saved; the engine saves them once per input.
struct RestoreBook {
    /// Whose the records are: an earlier run's (a crash, a kill) until this run's step machine starts — still
    /// owed then, and never dropped for what the idle machine believes.
    enum Owner {
        case earlierRun
        case thisRun
    }

    /// The records by output.
    var records = PendingRestores()
    /// The lowest value VolumeKit set since the current route's record was last brought up to date, other than
    /// the user's own volume (``PendingRestore/lowestVolume``); `nil` when none.
    var lowestSet: Float?
    var owner = Owner.earlierRun

    /// Whether this run's step machine has started (the records are this run's to keep in step).
    var isThisRuns: Bool { owner == .thisRun }

    /// The step of a saved ``PendingRestore/lowestVolume``: 8 nudges (1/512).
    static let lowestGranularity: Float = 8 * VolumeStepMachine.nudge

    /// A set of `value` is being made while the user's volume is `userVolume`: the user's own volume given
    /// back is theirs for ``RecoveryRule``, not a value VolumeKit leaves; nor is a reset far below the anchor
    /// (`aimed`, ``VolumeStepMachine/aimedReset``) one of its nudges below it — the record keeps it apart
    /// (``PendingRestore/aimedVolume``), and the band of nudges below the held value stays as narrow as they are
    /// (held-out session outputVolume 121875: a burst's aimed reset counted here let a recovery read presses made
    /// after a crash from 0.125 up to 0.4375 as two presses from a nudge of the held 0.33).
    mutating func noteSet(_ value: Float, userVolume: Float, aimed: Float?) {
        if let aimed, VolumeGrid.isSame(value, aimed) { return }
        if abs(value - userVolume) > VolumeStepMachine.readTolerance {
            lowestSet = min(lowestSet ?? value, value)
        }
    }

    /// What ``RecoveryRule`` gives back for the record saved for `output` at `volume`.
    struct Recovery {
        /// The user's volume to give back, `nil` when there is none (no record, or it was discarded).
        var userVolume: Float?
        /// Diagnostics the recovery raises.
        var diagnostics: [VolumeButtonsDiagnostic] = []
        /// The record was discarded: the records must be saved.
        var dropped = false
    }

    /// Applies ``RecoveryRule`` to the record saved for `output`, if any (dropping it when the rule discards
    /// it). `watchesRails`: the strategy cannot see presses at a rail (`outputVolume`).
    mutating func recover(
        _ output: AudioOutput, volume: Float, at now: Instant, bootTime: Instant?, watchesRails: Bool
    ) -> Recovery {
        guard let record = records[output] else { return Recovery() }
        switch RecoveryRule.decide(record, currentVolume: volume, uptime: now, bootTime: bootTime) {
        case .restore(let userVolume):
            var recovery = Recovery(userVolume: userVolume)
            // Restored from a rail the crashed run left: a press toward it since was unseen.
            if watchesRails, volume <= 0 || volume >= 1, abs(userVolume - volume) > VolumeStepMachine.readTolerance {
                recovery.diagnostics.append(.railPressesUnseen(volume <= 0 ? 0 : 1))
            }
            // From exactly a value a set the crashed run never saw land may or may not have left: the held value
            // it was setting again after its nudge (a grid press from the nudge may have ended there), or where it
            // last saw the volume away from the held value (a record keeps that value only until the set to the
            // held value lands: had it landed, presses the user made from the held value may have ended there).
            let atUnconfirmedHeld = record.heldSetUnconfirmed == true && VolumeGrid.isSame(volume, record.heldVolume)
            let atLeft = record.leftVolume.map { left in
                VolumeGrid.isSame(volume, left) && VolumeGrid.isApart(left, record.heldVolume)
            }
            if atUnconfirmedHeld || atLeft == true { recovery.diagnostics.append(.recoveredAtUnconfirmedSet) }
            return recovery
        case .discard:
            records[output] = nil
            return Recovery(dropped: true)
        }
    }

    /// Until the machine starts, every read of the volume on `output` is judged by ``RecoveryRule``: a change the
    /// rule takes for the user's (or a volume already at theirs) ends the record at once — their choice, made
    /// after launch, wins even if the volume later comes back to where VolumeKit left it. Returns whether the
    /// record was dropped.
    mutating func judgeBeforeStart(_ output: AudioOutput, volume: Float, at now: Instant, bootTime: Instant?) -> Bool {
        guard owner == .earlierRun, let record = records[output],
            case .discard = RecoveryRule.decide(record, currentVolume: volume, uptime: now, bootTime: bootTime)
        else { return false }
        records[output] = nil
        return true
    }

    /// The output moves away from `output`: its record stays only if VolumeKit left it away from the user's
    /// volume, or a set of ours away from it may still land there (a nudge in flight) — it can only be set
    /// again once it is current (per-route volumes). Returns whether the records changed.
    mutating func leave(_ output: AudioOutput, steps: VolumeStepMachine) -> Bool {
        guard owner == .thisRun, var record = records[output] else { return false }
        let lost = steps.mayHaveLeftAwayFromUser
        let leftAway = steps.holdsVolumeAwayFromUser || steps.maySetAwayFromUser || lost != nil
        guard leftAway else {
            records[output] = nil
            return true
        }
        // A reset in flight lands on the new route: this one stays where it was last seen — or, a set through a view
        // not proven yet having maybe been lost, where it was before that set.
        record.leftVolume = lost ?? steps.believedVolume
        record.lowestVolume = Self.lowest(
            held: record.heldVolume, left: record.leftVolume, existing: record, sets: lowestSet)
        // No set of ours on its way (one may still land here before the change: sweep session outputVolume 140) nor
        // one that may be lost: the route stays exactly where it was last seen, and VolumeKit's nudges below that are
        // not on it — presses from a nudge lower than where it was left are no presses from VolumeKit's value
        // (held-out session systemNotification 74284: a Control Center choice and four presses down ending 0.005
        // below whole steps of the user's volume, taken for presses from a nudge VolumeKit no longer had there).
        if lost == nil, !steps.maySetAwayFromUser, !steps.isSettling, let left = record.leftVolume,
            left < record.heldVolume
        {
            record.lowestVolume = max(record.lowestVolume ?? left, left)
        }
        records[output] = record
        return true
    }

    /// Brings `output`'s record in step with `steps` (crash and kill safety); returns whether it changed.
    /// `unprovenSince`: when the volume view was installed, while no set through it has been confirmed
    /// (``VolumeViewReadiness``). Until then every set may be lost — and the machine takes its sets as landed when
    /// observations stop (an interruption, the background) — so a record saved before the view (a crashed run's,
    /// which a recovery puts back) keeps where the volume was left, and takes only the user's own volume as it
    /// changes.
    mutating func sync(
        _ output: AudioOutput, with steps: VolumeStepMachine, unprovenSince: Instant? = nil, at now: Instant,
        bootTime: Instant?
    ) -> Bool {
        let existing = records[output]
        if let unprovenSince, let kept = existing, kept.savedAtUptime < unprovenSince {
            guard let updated = Self.keptThroughUnprovenView(kept, steps: steps) else { return false }
            records[output] = updated
            return true
        }
        let sets = lowestSet
        lowestSet = nil
        // A set taken as landed through a view not proven to take sets may have been lost: where it left the volume
        // then is kept as where VolumeKit left the route.
        let lost = steps.mayHaveLeftAwayFromUser
        guard steps.phase == .running || steps.holdsVolumeAwayFromUser || lost != nil else {
            guard existing != nil else { return false }
            records[output] = nil
            return true
        }
        let held = steps.phase == .running ? steps.anchor : (existing?.heldVolume ?? steps.believedVolume)
        let walked = lost ?? Self.walked(steps, held: held, viewProven: unprovenSince == nil)
        let keepsLeft = steps.phase != .running
        // While a burst's nudge below the anchor is the last set, the anchor exactly is not where VolumeKit left
        // the route: a press snapped onto it after a crash is the user's (one write when a burst starts, one
        // before the anchor is set again once quiet).
        let nudged: Bool? = steps.isNudgedBelowAnchor ? true : nil
        // Once the anchor is set again, until it is seen to land: a crash may leave the nudge, or the anchor.
        let unconfirmed: Bool? = steps.isAnchorSetUnconfirmed ? true : nil
        // A burst's reset aimed below a press foreseen held: where its sets leave the volume (one write a burst's
        // aimed reset, each a nudge below the last).
        let aimed = keepsLeft ? existing?.aimedVolume : steps.aimedReset
        let lowest = Self.lowest(
            held: held, left: keepsLeft ? existing?.leftVolume : walked, existing: existing, sets: sets)
        if let existing, existing.userVolume == steps.userVolume, existing.heldVolume == held,
            existing.lowestVolume == lowest,
            keepsLeft
                || (existing.leftVolume == walked && existing.nudgedBelowHeld == nudged
                    && existing.heldSetUnconfirmed == unconfirmed && existing.aimedVolume == aimed)
        {
            return false
        }
        #if VOLUMEKIT_MUTANTS
        let saved = Mutant.isOn(.recordSavesAnchor) ? held : steps.userVolume
        #else
        let saved = steps.userVolume
        #endif
        var record = PendingRestore(
            userVolume: saved, heldVolume: held, savedAtUptime: now, bootTime: bootTime, leftVolume: walked)
        record.nudgedBelowHeld = keepsLeft ? existing?.nudgedBelowHeld : nudged
        record.heldSetUnconfirmed = keepsLeft ? existing?.heldSetUnconfirmed : unconfirmed
        record.aimedVolume = aimed
        record.lowestVolume = lowest
        records[output] = record
        return true
    }

    /// A record saved before this run's volume view (``sync(_:with:unprovenSince:at:bootTime:)``), brought in step with
    /// `steps` while no set through the view has been confirmed; `nil` when it stays as it is.
    private static func keptThroughUnprovenView(_ record: PendingRestore, steps: VolumeStepMachine) -> PendingRestore? {
        var kept = record
        // Where the volume was left stays; the user's own change since is theirs whoever's set lands. A set
        // toward the user's volume through the unproven view may have landed, though: the held value is then
        // one a set of VolumeKit's may or may not have left (``PendingRestore/heldSetUnconfirmed``), and a
        // later recovery from exactly there says so.
        var unconfirmed: Bool? =
            VolumeGrid.isApart(kept.heldVolume, steps.userVolume) ? true : kept.heldSetUnconfirmed
        // Where this run sees the volume, away from the user's, is where VolumeKit left it now (a crashed run's
        // nudges that presses carried on, a set of this run's not seen back): the record's left value, so that a
        // later recovery from exactly there gives the user's volume back — the value left before no longer is.
        var left =
            steps.mayHaveLeftAwayFromUser
            ?? (VolumeGrid.isApart(steps.believedVolume, steps.userVolume) ? steps.believedVolume : kept.leftVolume)
        // This run holds an anchor of its own, apart from the kept held value (a call ended on a route whose
        // record is older than the view): its set may land or be lost, so both values are VolumeKit's — the
        // anchor becomes the held value, not known to have landed, and where the volume was left stays as the
        // left one. Only while the volume was left at one value (the record keeps two): held-out session
        // outputVolume 94018 crashed as the anchor 0.1875 was set over a record of 0.25, and the recovery read
        // the landed 0.1875 as a press down from 0.25.
        var held = kept.heldVolume
        let oneLeft = left.map { VolumeGrid.isSame($0, kept.heldVolume) } ?? true
        if steps.phase == .running, VolumeGrid.isApart(steps.anchor, kept.heldVolume),
            VolumeGrid.isApart(steps.anchor, steps.userVolume), oneLeft
        {
            held = steps.anchor
            left = kept.heldVolume
            unconfirmed = true
        }
        guard
            VolumeGrid.isApart(kept.userVolume, steps.userVolume) || kept.heldSetUnconfirmed != unconfirmed
                || kept.leftVolume != left || kept.heldVolume != held
        else { return nil }
        // The lowest value left stays a bound below the held one (`nil`, an older version's record, stays `nil`).
        if kept.heldVolume != held { kept.lowestVolume = kept.lowestVolume.map { min($0, held) } }
        kept.heldVolume = held
        kept.userVolume = steps.userVolume
        kept.heldSetUnconfirmed = unconfirmed
        kept.leftVolume = left
        return kept
    }

    /// Where presses walked the volume while running, once it is more than one press from the anchor `held` and
    /// away from the user's volume: presses faster than VolumeKit's resets (refused during a down press, headroom
    /// used up) walk it away, even to a rail — the user's volume is unchanged, and a crash there must still give
    /// it back. One press away is every press until its reset lands: not worth two writes a press
    /// (``RecoveryRule``'s stated limit) — unless the volume view has not proven it takes sets (`viewProven`): a reset
    /// may then be lost, not only late, for as long as the view takes (up to 1 s), so the volume last seen one press
    /// away is kept too. Where VolumeKit once left the route before no longer applies once it holds the route again:
    /// a press to that value after a crash would be taken for VolumeKit's.
    ///
    /// One press away is kept as well while VolumeKit's own nudge below the anchor, beyond ``RecoveryRule/tolerance``,
    /// is the volume, seen landing (``VolumeStepMachine/isNudgedBelowAnchor``): the anchor is set again only once the
    /// buttons are quiet, and a held down press refuses it longer still (seed 000) — a crash before it left 0.43701
    /// for a held 0.5, read at launch as a press down from a nudge (held-out sessions 93838 and 92985). Written once
    /// a landing of such a nudge.
    private static func walked(_ steps: VolumeStepMachine, held: Float, viewProven: Bool) -> Float? {
        let believed = steps.believedVolume
        let away =
            viewProven ? VolumeStepMachine.step + VolumeStepMachine.stepTolerance : VolumeStepMachine.readTolerance
        // The nudge itself, seen landing — not a press that landed from it (on a grid-snapping phone a press from the
        // nudge ends a point of the grid a fraction of a step below, and the recovery counts presses from the held
        // value as before: held-out session 103518).
        let ownLanding = steps.lastLanding.map { VolumeGrid.isSame($0.value, believed) } ?? false
        let stays = steps.isNudgedBelowAnchor && ownLanding && held - believed > RecoveryRule.tolerance
        return steps.phase == .running && (abs(believed - held) > away || stays)
            && abs(believed - steps.userVolume) > VolumeStepMachine.readTolerance
            ? believed : nil
    }

    /// The lowest value VolumeKit may have left a route at while holding it at `held`
    /// (``PendingRestore/lowestVolume``): the record's own while it holds the same value (`nil` stays `nil`: a
    /// record of an older version keeps today's rule), lowered to cover `sets`, the values set since. Values more
    /// than ``RecoveryRule/tolerance`` below both `held` and `left` (``PendingRestore/leftVolume``) are left out:
    /// the rule looks no lower (a restore's sets toward a user's volume far below, the nudge beside it). Stored a
    /// multiple of ``lowestGranularity`` below `held`, so a burst of down presses rewrites the record only at its
    /// first nudge (when ``PendingRestore/nudgedBelowHeld`` is written anyway) and every 8 nudges after.
    static func lowest(held: Float, left: Float?, existing: PendingRestore?, sets: Float?) -> Float? {
        var low = held
        if let existing, existing.heldVolume == held {
            guard let saved = existing.lowestVolume else { return nil }
            low = saved
        }
        guard let sets, sets < low, sets >= min(held, left ?? held) - RecoveryRule.tolerance else { return low }
        let below = ((held - sets) / lowestGranularity).rounded(.up)
        return max(0, held - below * lowestGranularity)
    }
}
