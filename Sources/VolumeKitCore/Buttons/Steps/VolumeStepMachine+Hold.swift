#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Holding a value: setting it (its echo expected), confirming it, and setting it again at a deadline until it is
/// confirmed or the tries run out — a set may be refused during a held down press (seed 000) or dropped as equal to
/// the slider's cache (decompiled iOS 18.2 `MPVolumeControllerSystemDataSource`).
extension VolumeStepMachine {
    /// Time passed: expired echoes are forgotten, unconfirmed sets retried, the exact anchor set once quiet.
    /// `volume` is a live read of the system volume when the driver has one: a set that landed without an
    /// observation (or was dropped) is confirmed (or retried) by reading.
    public mutating func tick(at time: Instant, volume: Float? = nil) -> Actions {
        // Sets whose echo expires now are still read as on their way (a retry is due when the echo expires).
        var inFlight = echoes
        echoes.removeAll { $0.expires <= time }
        guard retrier.isDue(at: time) else { return [] }
        let target = phase == .running ? anchor : userVolume
        // A read only confirms: any other value may be a press whose observation is still on its way. And it
        // confirms only a set of the target that may still be on its way (its echo expiring now at the latest: a
        // set older than the echo's lifetime has landed and been seen, or never lands): with none, the read is a
        // press that ended on the target — a grid press from a down step's nudge onto the anchor, its observation
        // still on its way, also while a retry of the anchor waits for the buttons to be quiet — and no landing of
        // ours.
        let explained = inFlight.contains(volume ?? -1, within: VolumeGrid.readTolerance)
        if let volume, VolumeGrid.isApart(volume, believedVolume), !explained, phase == .running {
            unexplainedRead = Expected(value: volume, until: time + Self.landingWindow)
        }
        if let volume, VolumeGrid.isSame(volume, target),
            VolumeGrid.isApart(believedVolume, target),
            inFlight.contains(target, within: VolumeGrid.readTolerance)
        {
            echoes.removeAll { VolumeGrid.isSame($0.value, target) }
            believedVolume = volume
            believedFromRead = true
        }
        if VolumeGrid.isSame(believedVolume, target) {
            return confirmIfWanted(at: time)
        }
        let retryAt = time + configuration.retryDelay
        guard retrier.retry(target, retryAt: retryAt, maximumAttempts: configuration.maximumAttempts) else {
            let failed: Actions = [.setFailed(target)]
            if phase == .stopping { phase = .idle; return failed + [.restored] }
            return failed
        }
        return set(target, at: time)
    }

    /// Makes `target` the value to hold, setting it now if the system is elsewhere.
    mutating func hold(_ target: Float, at time: Instant) -> Actions {
        var actions = Actions()
        hold(target, at: time, into: &actions)
        return actions
    }

    /// ``hold(_:at:)``, its actions appended to `actions`. `duringPresses`: held for a change seen while capturing,
    /// when a down press may still be held (``DownPressNudge/mayRefuse(_:)``).
    mutating func hold(_ target: Float, at time: Instant, duringPresses: Bool = false, into actions: inout Actions) {
        // Judged before the anchor moves (moving it forgets the nudge below the old one): a press refusing the old
        // anchor refuses a new one at or above where it started too (a headset's sync mid-hold moving the anchor).
        let mayBeRefused = duringPresses && downPress.mayRefuse(target)
        if phase == .running, VolumeGrid.isApart(anchor, target) {
            anchor = target
            downPress.anchorMoved()
        }
        // A set of another value still in flight would land after this moment: set the target again so it
        // lands last. Sets of the target itself in flight need no other (its landing would be silent, KVO
        // reporting only changes, and its echo would linger).
        let otherInFlight = echoes.contains { VolumeGrid.isApart($0.value, target) }
        guard mode == .capture || phase != .running,
            VolumeGrid.isApart(believedVolume, target) || otherInFlight
        else {
            retrier.cancel()
            return
        }
        retrier.want(target, retryAt: time + configuration.retryDelay)
        // A set of this value still on its way lands too (on the new route after a route change): this one is
        // another set on its way, not a retry, so both landings are ours.
        // A slider drops a set equal to its cache (decompiled iOS 18.2). Giving the user's volume back, the cache
        // may still hold their value from an earlier landing — the restore would never land, with no retry once
        // observations stop (an interruption, the background), the route left at the anchor; setting again the
        // value the system already has (to land after a set in flight, on a new route), the cache holds it —
        // the set in flight then lands last. Going a nudge beside it first makes the second set differ from
        // whatever the cache holds.
        if phase == .running, !VolumeGrid.isSame(believedVolume, target) {
            // While a down press may still be held and refuse the anchor, a nudge below it first; the anchor itself
            // at the retry. A refused set's echo lingers on a point of the grid, where a press from above snaps:
            // held-out session outputVolume 90019, a Bluetooth headset's 0.8 synchronised during a hold from the
            // anchor 0.75, whose set then was refused — the hold's repeat 0.8 → 0.75 was taken for that set's
            // landing, and the hold split in three. (Only for a change seen among presses: at a start, a return or
            // a new route the presses before say nothing of one held now, and an up press from a nudge snaps onto
            // the anchor, where its retry lands.)
            if mayBeRefused {
                set(downPress.nudge(below: target), at: time, again: true, into: &actions)
                downPress.nudgedBelow()
                return
            }
            set(target, at: time, again: true, into: &actions)
            return
        }
        let beside = target < 1 ? VolumeGrid.clamp(target + VolumeGrid.nudge) : target - VolumeGrid.nudge
        set(beside, at: time, again: true, into: &actions)
        set(target, at: time, again: true, into: &actions)
    }

    /// Sets `value`, expecting its echo — unless the machine already believes the volume is there with nothing of ours
    /// on its way. `again`: one more set on its way, even of a value whose set is in flight (not a retry of it).
    mutating func set(_ value: Float, at time: Instant, again: Bool = false) -> Actions {
        var actions = Actions()
        set(value, at: time, again: again, into: &actions)
        return actions
    }

    /// ``set(_:at:again:)``, its action appended to `actions`.
    mutating func set(_ value: Float, at time: Instant, again: Bool = false, into actions: inout Actions) {
        guard VolumeGrid.isApart(believedVolume, value) || !echoes.isEmpty || again else { return }
        // Sets of one value made for separate presses are counted (a slow slider has several in flight during
        // a burst, each landing once); refused or dropped ones expire after ``Configuration/echoLifetime``.
        // A retry replaces a set that was refused or dropped (it never lands); a new press's reset is
        // another set on its way.
        let echo = recent.issue(
            value, at: time, soonest: configuration.echoSoonest, lifetime: configuration.echoLifetime)
        echoes.issue(echo, replacing: !again)
        if VolumeGrid.isSame(value, anchor) { downPress.anchorSet() }
        actions.append(.setVolume(value))
    }

    /// The volume believed may be what was wanted: then nothing is, and a stop is done. At the anchor, the down
    /// steps' nudges count from it again.
    mutating func confirmIfWanted(at time: Instant) -> Actions {
        var actions = Actions()
        confirmIfWanted(at: time, into: &actions)
        return actions
    }

    /// ``confirmIfWanted(at:)``, its action appended to `actions`.
    mutating func confirmIfWanted(at time: Instant, into actions: inout Actions) {
        if VolumeGrid.isSame(believedVolume, anchor) { downPress.anchorConfirmed() }
        guard retrier.confirms(believedVolume) else { return }
        doneIfRestored(into: &actions)
    }

    /// Stopping with nothing left to confirm: the user's volume is back, the machine idle.
    mutating func doneIfRestored() -> Actions {
        var actions = Actions()
        doneIfRestored(into: &actions)
        return actions
    }

    /// ``doneIfRestored()``, its action appended to `actions`.
    mutating func doneIfRestored(into actions: inout Actions) {
        guard phase == .stopping, !retrier.isWaiting else { return }
        phase = .idle
        actions.append(.restored)
    }
}
