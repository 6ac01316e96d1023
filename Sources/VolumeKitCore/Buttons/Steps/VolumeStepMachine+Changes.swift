import Foundation

/// A change no set of ours explains: while capturing, a press (one step from where the volume was, or onto the 1/16
/// grid: `shared/facts/envelope.md`, `stepQuantization`) and the reset after it, which a held down press may refuse
/// (seed 000) and a slider may drop as equal to its cache (decompiled iOS 18.2); otherwise the user's own volume.
extension VolumeStepMachine {
    /// An observation that is no landing of ours: a press, or the user's own change.
    mutating func observeChange(_ value: Float, at time: Instant) -> Actions {
        let old = believedVolume
        believedVolume = value
        let fromRead = believedFromRead
        believedFromRead = false
        // Sets taken as landed (``assumeSetsLanded(at:)``) left the real volume `residue` off what the machine
        // believed; an observation is the real volume again.
        let leftover = residue
        residue = 0
        guard phase == .running else {
            return observeUsersChange(value, from: old, fromRead: fromRead, leftover: leftover, at: time)
        }
        return observePress(value, from: old, fromRead: fromRead, at: time)
    }

    /// An observation while capturing, from `old` (`fromRead`: `old` came from a live read): a press — one step,
    /// where a press can land — and the reset after it; anything else is the user's own change, held from.
    mutating func observePress(_ value: Float, from old: Float, fromRead: Bool, at time: Instant) -> Actions {
        let atRail = value <= 0 || value >= 1
        let seen = readChange
        readChange = nil
        if VolumeGrid.isSame(value, old) {
            // Nothing moved (a route's KVO after the machine already read the new route's volume); at a rail, a
            // press that moves nothing — unless it is the late observation of the change a live read just saw.
            let readsOwnChange =
                fromRead
                && seen.map { VolumeGrid.isSame($0.value, value) && time <= $0.until } == true
            if !(configuration.reportsPressesAtRails && atRail) || readsOwnChange { return [] }
        }
        #if VOLUMEKIT_MUTANTS
        if Mutant.isOn(.offGridPress), classify(from: old, to: value) == nil {
            return [.steps(value > old ? .up : .down, count: 1)]
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
            return [.userVolumeChanged(value)] + hold(anchorFor(value), at: time)
        }
        var actions: Actions = [.steps(button, count: count)]
        downPress.step(button, from: old)
        guard mode == .capture else {
            userVolume = value
            return actions + [.userVolumeChanged(value)]
        }
        actions += button == .down ? resetAfterDownStep(to: value, from: old, at: time) : resetAfterUpStep(at: time)
        retrier.lookAgain(at: time + configuration.settleDelay)
        return actions
    }

    /// The set right after a down step from `old` to `value`: the press may still be held, and only a value below
    /// the one before the step is accepted (seed 000) — just below it now, the exact anchor once the buttons are
    /// quiet.
    mutating func resetAfterDownStep(to value: Float, from old: Float, at time: Instant) -> Actions {
        // Nudges are counted from the anchor, never from the last value seen (which may be stale while sets are in
        // flight): a press landing from one of our values can then never equal another.
        let target = downPress.target(after: value, from: old, holding: anchor, nothingInFlight: echoes.isEmpty)
        // A set of this value still in flight (the nudge count restarted when the anchor was confirmed) lands once
        // more: both landings are ours, also one seen only after observations stopped.
        let inFlight = echoes.contains(target, within: VolumeGrid.readTolerance, where: { !$0.beforeRouteChange })
        let actions = set(target, at: time, again: inFlight)
        if target < anchor - VolumeGrid.readTolerance { downPress.nudgedBelow() }
        return actions
    }

    /// The sets right after an up step. No refusal after an up step, but a slider drops a set equal to its cache
    /// (decompiled iOS 18.2), which may still hold the anchor (the value before the press) or our last set: just
    /// above the anchor, then the anchor itself — whichever the cache holds, the second set differs from it. Also
    /// during a burst or a hold (sets in flight): the cache then holds the anchor our last reset landed on, and a
    /// lone anchor set is dropped until the retry — a crash meanwhile would leave a step.
    mutating func resetAfterUpStep(at time: Instant) -> Actions {
        let nudged = VolumeGrid.clamp(anchor + VolumeGrid.nudge)
        if nudged != anchor {
            return set(nudged, at: time, again: true) + set(anchor, at: time, again: true)
        }
        // At the top rail: no value above the anchor. With a set of it still on its way (the settled anchor's, made
        // before this press) another is no use — the press already left the volume there — and its echo would be
        // wrong either way: the private notification reports each landing at the rail, a second one unexpected
        // reads as a press, and a second set dropped as equal to the slider's cache leaves an echo that swallows
        // the next press.
        let inFlight = echoes.contains(anchor, within: VolumeGrid.readTolerance, where: { !$0.beforeRouteChange })
        return inFlight ? [] : set(anchor, at: time)
    }

    /// An observation while not capturing, from `old`: every change is the user's. `fromRead`: `old` came from a
    /// live read; `leftover`: the nudge sets taken as landed left in the volume.
    mutating func observeUsersChange(
        _ value: Float, from old: Float, fromRead: Bool, leftover: Float, at time: Instant
    ) -> Actions {
        // A Control Center drag over a short distance may move less than a read's tolerance between samples:
        // each sample is the same value as the one before, but the drag has moved the user's volume.
        // (Not so for the value a live read just gave: its own change, observed late.)
        guard
            VolumeGrid.isApart(value, old)
                || !fromRead && VolumeGrid.isApart(value, userVolume),
            phase != .idle
        else { return [] }
        #if VOLUMEKIT_MUTANTS
        if Mutant.isOn(.ignoreChangesWhileSuspended) { return [] }
        #endif
        let users = UserVolumeInference.afterChange(
            to: value, from: old, leftover: leftover, user: userVolume, anchor: anchor)
        userVolume = users
        if phase == .stopping { return [.userVolumeChanged(users)] + hold(users, at: time) + doneIfRestored() }
        // The system volume may carry our nudge: put the user's exact value back. So too when a set of ours of
        // another value is still on its way (the restore made as the session was interrupted, a Bluetooth
        // headset's synchronised volume seen just after it): set theirs again to land last, since the session
        // may be too inactive by then to see that set land over it.
        if VolumeGrid.isApart(users, value)
            || echoes.contains(where: { VolumeGrid.isApart($0.value, users) })
        {
            return [.userVolumeChanged(users)] + hold(users, at: time)
        }
        return [.userVolumeChanged(users)]
    }
}
