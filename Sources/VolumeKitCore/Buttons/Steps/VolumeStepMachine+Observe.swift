#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An observed value, judged: the route's own KVO, a press a live read already saw, the landing of a set of ours
/// (by the order sets land in, one slider carrying them all: `LandingOrder`, `shared/facts/envelope.md`), or a
/// change — a press or the user's own.
extension VolumeStepMachine {
    /// A value observed through KVO or the system notification.
    public mutating func observe(_ value: Float, at time: Instant) -> Actions {
        var actions = Actions()
        observe(value, at: time, into: &actions)
        return actions
    }

    /// ``observe(_:at:)``, its actions appended to `actions`. (Every step below appends to the one list: lists
    /// returned and joined were copied whole, twice for most actions — the detection machine's budget is 100 ns an
    /// observation.)
    @inline(__always) mutating func observe(_ value: Float, at time: Instant, into actions: inout Actions) {
        // Before start the machine knows nothing to compare with: start reads the volume itself.
        guard phase != .idle || !echoes.isEmpty else { return }
        // Observations are live again: the real volume is seen from here on.
        unconfirmedFrom = nil
        setMayBeLost = false
        // The anchor seen: it landed (or a press ended there, which the machine reads as its landing alike).
        if VolumeGrid.isSame(value, anchor) { downPress.anchorSeen() }
        if isRouteObservation(value, at: time) { return }
        if isUnexplainedRead(value, at: time) {
            observeChange(value, at: time, into: &actions)
            return
        }
        let railPressesFrom = configuration.reportsPressesAtRails ? believedVolume : nil
        if let match = landings.match(value, at: time, in: &echoes, railPressesFrom: railPressesFrom) {
            if let press = landings.judge(
                match.echo, value: value, at: time, in: &echoes, capturing: phase == .running && mode == .capture,
                believed: believedVolume, atRails: configuration.reportsPressesAtRails)
            {
                downPress.step(press.button, from: press.value + VolumeGrid.step, at: nil)
                actions.append(.steps(press.button, count: press.count))
            }
            observeLanding(value, match, at: time, into: &actions)
            return
        }
        if lateLanding(value, at: time, into: &actions) { return }
        observeChange(value, at: time, into: &actions)
    }

    /// Whether `value` is the new route's KVO after its notification (landings of ours may come first): its volume,
    /// already read (`shared/facts/envelope.md`: the order and gap of the two vary) — not a landing, whose echo must
    /// stay for the set itself, nor a press. An expectation past its time is dropped.
    mutating func isRouteObservation(_ value: Float, at time: Instant) -> Bool {
        guard let expected = routeObservation else { return false }
        if time > expected.until {
            routeObservation = nil
            routeVolumeSeen = true
        } else if abs(value - expected.value) < VolumeGrid.readTolerance {
            routeObservation = nil
            routeVolumeSeen = true
            return true
        }
        return false
    }

    /// Whether `value` is the press a live read saw (``tick(at:volume:)``): a change from what the machine believed,
    /// whatever set of ours is now on its way to the same value. The read is spent either way.
    mutating func isUnexplainedRead(_ value: Float, at time: Instant) -> Bool {
        guard let read = unexplainedRead else { return false }
        unexplainedRead = nil
        return time <= read.until && abs(value - read.value) < VolumeGrid.readTolerance && phase == .running
    }

    /// An observation that is the landing of a set of ours (`match`); its actions appended to `actions`.
    mutating func observeLanding(
        _ value: Float, _ match: LandingOrder.Match, at time: Instant, into actions: inout Actions
    ) {
        let landing = match.echo
        // One set of this value landed (its echo is taken out by `landed` below); sets of other values may still
        // land (or were dropped: they expire).
        let landedBeforeRouteChange = landing.beforeRouteChange
        // A set issued before the one taken as landed (``assumeSetsLanded(at:mayBeLost:)``), whose echo is still on its
        // way, landed first: the later one lands over it — the user's volume given back beside a nudge, which
        // no slider cache drops — unless a down press still held refuses it (seed 000). The machine keeps
        // believing the later set's value. A down press still held refuses a set at or above the value before it
        // (other than 0), so a landing there shows the press was over when it landed — and when the later set
        // landed, after it.
        let superseded = landings.landed(
            match, on: value, over: believedVolume, pressOver: downPress.isPressOver(landingOn: value), in: &echoes)
        if !landedBeforeRouteChange { lastLanding = Landing(value: value, over: believedVolume, at: time) }
        // A set from before a route change may have landed on the old route: the volume read at the
        // change stays what the machine believes (the set made then lands after it and confirms) — unless it is
        // seen after the new route's own KVO (so on the new route) at the value a set made since takes the volume
        // to: the volume is that value, and a later change from it is measured from there. (Seen before the
        // route's KVO, it may be the old route's landing, and a set made since may still be dropped.)
        let asSetSince =
            landedBeforeRouteChange && routeVolumeSeen
            && echoes.contains(value, within: VolumeGrid.readTolerance, where: { !$0.beforeRouteChange })
        if !landedBeforeRouteChange || asSetSince, !superseded {
            believedVolume = value
            believedFromRead = false
        }
        // Not capturing, the last of the sets of ours issued before the user's change (Control Center while a
        // restore was on its way) landed after it, over their value: put it back.
        let over =
            (phase == .suspended || phase == .stopping) && !landedBeforeRouteChange && !superseded
            && VolumeGrid.isApart(value, userVolume)
        // Landed at a rail over the user's value, which is set again (now, or by a set already on its way):
        // a press toward the rail meanwhile changes nothing observable (outputVolume) and is undone. Say so.
        if over && !configuration.reportsPressesAtRails && (value <= 0 || value >= 1) {
            actions.append(.leavesRailUnobserved(value <= 0 ? 0 : 1))
        }
        if over, echoes.isEmpty {
            hold(userVolume, at: time, into: &actions)
        } else {
            confirmIfWanted(at: time, into: &actions)
        }
    }

    /// A landing of ours whose echo an earlier observation took (a press landing on the value of a set in flight,
    /// then that set's own landing read as a later set's): a value no press and no user gives — one of
    /// VolumeKit's nudges (off the 1/16 grid, 1/4096 from the anchor) set within an echo's lifetime, or the anchor
    /// set after it, seen right after that nudge — is ours, not the user's change nor a press from it. A press
    /// lands a step from where it starts, on the grid where the phone snaps presses (`stepQuantization`,
    /// `shared/facts/envelope.md`); a Control Center value within a read of a nudge is a chance this rule takes.
    /// Whether `value` is one; its actions appended to `actions`.
    mutating func lateLanding(_ value: Float, at time: Instant, into actions: inout Actions) -> Bool {
        guard phase == .running else { return false }
        guard recent.isLateLanding(value, at: time, anchor: anchor, believed: believedVolume) else { return false }
        believedVolume = value
        believedFromRead = false
        confirmIfWanted(at: time, into: &actions)
        return true
    }
}
