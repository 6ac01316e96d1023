#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A change no set of ours explains: while capturing, a press (one step from where the volume was, or onto the 1/16
/// grid: `shared/facts/envelope.md`, `stepQuantization`) and the reset after it, which a held down press may refuse
/// (seed 000) and a slider may drop as equal to its cache (decompiled iOS 18.2); otherwise the user's own volume.
extension VolumeStepMachine {
    /// An observation that is no landing of ours: a press, or the user's own change; its actions appended to
    /// `actions`.
    mutating func observeChange(_ value: Float, at time: Instant, into actions: inout Actions) {
        let old = believedVolume
        believedVolume = value
        let fromRead = believedFromRead
        believedFromRead = false
        // Sets taken as landed (``assumeSetsLanded(at:mayBeLost:)``) left the real volume `residue` off what the machine
        // believed; an observation is the real volume again.
        let leftover = residue
        residue = 0
        if phase == .running {
            observePress(value, from: old, fromRead: fromRead, at: time, into: &actions)
        } else {
            observeUsersChange(value, from: old, fromRead: fromRead, leftover: leftover, at: time, into: &actions)
        }
    }

    /// An observation while capturing, from `old` (`fromRead`: `old` came from a live read): a press — one step,
    /// where a press can land — and the reset after it; anything else is the user's own change, held from. Its
    /// actions appended to `actions`.
    mutating func observePress(
        _ value: Float, from old: Float, fromRead: Bool, at time: Instant, into actions: inout Actions
    ) {
        let atRail = value <= 0 || value >= 1
        let seen = readChange
        readChange = nil
        if VolumeGrid.isSame(value, old) {
            // Nothing moved (a route's KVO after the machine already read the new route's volume); at a rail, a
            // press that moves nothing — unless it is the late observation of the change a live read just saw.
            let readsOwnChange =
                fromRead
                && seen.map { VolumeGrid.isSame($0.value, value) && time <= $0.until } == true
            if !(configuration.reportsPressesAtRails && atRail) || readsOwnChange { return }
        }
        #if VOLUMEKIT_MUTANTS
        if Mutant.isOn(.offGridPress), classify(from: old, to: value) == nil {
            actions.append(.steps(value > old ? .up : .down, count: 1))
            return
        }
        #endif
        // Off the 1/16 grid, or more than one step in one change: the user's own change (Control Center's
        // slider, another app, a Bluetooth headset's volume synchronised on connect, Headphone Safety turning the
        // volume down: `shared/facts/envelope.md`). A press moves the volume one step, and each change is
        // observed on its own (KVO, the private notification), so several presses never arrive as one change.
        guard let (button, count) = classify(from: old, to: value), count == 1,
            VolumeGrid.isPressLanding(from: old, to: value)
        else {
            userVolume = value
            actions.append(.userVolumeChanged(value))
            hold(anchorFor(value), at: time, duringPresses: true, into: &actions)
            return
        }
        actions.append(.steps(button, count: count))
        downPress.step(button, from: old, at: time)
        guard mode == .capture else {
            userVolume = value
            actions.append(.userVolumeChanged(value))
            return
        }
        if button == .down {
            resetAfterDownStep(to: value, from: old, at: time, into: &actions)
        } else {
            resetAfterUpStep(at: time, into: &actions)
        }
        retrier.lookAgain(at: time + configuration.settleDelay)
    }

    /// The set right after a down step from `old` to `value`: the press may still be held, and only a value below
    /// the one before the step is accepted (seed 000) — just below it now, the exact anchor once the buttons are
    /// quiet. Its action appended to `actions`.
    mutating func resetAfterDownStep(to value: Float, from old: Float, at time: Instant, into actions: inout Actions) {
        // Nudges are counted from the anchor, never from the last value seen (which may be stale while sets are in
        // flight): a press landing from one of our values can then never equal another.
        var target = downPress.target(after: value, from: old, holding: anchor, nothingInFlight: echoes.isEmpty)
        // A burst outrunning our sets (some still in flight) near the rail, where KVO would no longer report its
        // presses: below the press foreseen held when this one lands. (The private notification reports them there.)
        if !configuration.reportsPressesAtRails {
            target = downPress.aim(
                target, after: value, roundTrip: configuration.burstRoundTrip, inFlight: !echoes.isEmpty)
        }
        // A set of this value still in flight (the nudge count restarted when the anchor was confirmed) lands once
        // more: both landings are ours, also one seen only after observations stopped.
        let inFlight = echoes.contains(target, within: VolumeGrid.readTolerance, where: { !$0.beforeRouteChange })
        set(target, at: time, again: inFlight, into: &actions)
        downPress.resetSet(target, holding: anchor)
        if target < anchor - VolumeGrid.readTolerance { downPress.nudgedBelow() }
    }

    /// The sets right after an up step. No refusal after an up step, but a slider drops a set equal to its cache
    /// (decompiled iOS 18.2), which may still hold the anchor (the value before the press) or our last set: just
    /// above the anchor, then the anchor itself — whichever the cache holds, the second set differs from it. Also
    /// during a burst or a hold (sets in flight): the cache then holds the anchor our last reset landed on, and a
    /// lone anchor set is dropped until the retry — a crash meanwhile would leave a step. Its actions appended to
    /// `actions`.
    mutating func resetAfterUpStep(at time: Instant, into actions: inout Actions) {
        let nudged = VolumeGrid.clamp(anchor + VolumeGrid.nudge)
        if nudged != anchor {
            set(nudged, at: time, again: true, into: &actions)
            set(anchor, at: time, again: true, into: &actions)
            return
        }
        // At the top rail: no value above the anchor. With a set of it still on its way (the settled anchor's, made
        // before this press) another is no use — the press already left the volume there — and its echo would be
        // wrong either way: the private notification reports each landing at the rail, a second one unexpected
        // reads as a press, and a second set dropped as equal to the slider's cache leaves an echo that swallows
        // the next press.
        let inFlight = echoes.contains(anchor, within: VolumeGrid.readTolerance, where: { !$0.beforeRouteChange })
        if !inFlight { set(anchor, at: time, into: &actions) }
    }

    /// An observation while not capturing, from `old`: every change is the user's. `fromRead`: `old` came from a
    /// live read; `leftover`: the nudge sets taken as landed left in the volume. Its actions appended to `actions`.
    mutating func observeUsersChange(
        _ value: Float, from old: Float, fromRead: Bool, leftover: Float, at time: Instant, into actions: inout Actions
    ) {
        // A Control Center drag over a short distance may move less than a read's tolerance between samples:
        // each sample is the same value as the one before, but the drag has moved the user's volume.
        // (Not so for the value a live read just gave: its own change, observed late.)
        guard phase != .idle else { return }
        guard VolumeGrid.isApart(value, old) || !fromRead && VolumeGrid.isApart(value, userVolume) else {
            // KVO reports changes only: a value observed that differs at all from the one observed before it has
            // moved, and the last sample of a drag a hair from the one before is where the user left the volume
            // (0.2499 → 0.25: taken for no change, a later press up from 0.2499 snaps onto 0.25 unseen). It is
            // theirs as it is; nothing is set for it — within a read of what the machine already holds for them,
            // a set would only cross the drag's next samples.
            // (Float noise is no change: 0.31249997 is 0.3125.)
            if !fromRead, abs(value - old) > 1e-6, abs(value - userVolume) > 1e-6 {
                userVolume = value
                actions.append(.userVolumeChanged(value))
            }
            return
        }
        #if VOLUMEKIT_MUTANTS
        if Mutant.isOn(.ignoreChangesWhileSuspended) { return }
        #endif
        let users = UserVolumeInference.afterChange(
            to: value, from: old, leftover: leftover, user: userVolume, anchor: anchor)
        userVolume = users
        actions.append(.userVolumeChanged(users))
        if phase == .stopping {
            hold(users, at: time, into: &actions)
            doneIfRestored(into: &actions)
            return
        }
        // The system volume may carry our nudge: put the user's exact value back. So too when a set of ours of
        // another value is still on its way (the restore made as the session was interrupted, a Bluetooth
        // headset's synchronised volume seen just after it): set theirs again to land last, since the session
        // may be too inactive by then to see that set land over it.
        if VolumeGrid.isApart(users, value)
            || echoes.contains(where: { VolumeGrid.isApart($0.value, users) })
        {
            hold(users, at: time, into: &actions)
        }
    }
}
