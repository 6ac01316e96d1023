#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Route changes: the new route's own volume, its KVO, and sets of ours that land on either route
/// (`shared/facts/envelope.md`: the route's KVO and its notification come in either order).
extension VolumeStepMachine {
    /// The output moved to another route, whose volume is `volume`. The user's volume there is `userVolume`
    /// (a saved one, see ``RecoveryRule``), by default `volume`; the anchor is re-chosen for it.
    ///
    /// `expectsObservation`: the new route's KVO (its volume, when different from the old route's) is still to
    /// come — the change was seen by its notification, or by an observation that was not the route's own volume
    /// (a set of ours landing on the old route, observed after the switch).
    public mutating func routeChanged(
        volume: Float, userVolume: Float? = nil, expectsObservation: Bool = false, at time: Instant
    ) -> Actions {
        // Sets still in flight may land on the new route: their echoes stay known (never taken for the user's
        // changes), and the target below is set again so that it lands after them.
        retrier.forget()
        routeObservation =
            expectsObservation && VolumeGrid.isApart(volume, believedVolume)
            ? Expected(value: volume, until: time + Self.landingWindow) : nil
        believedVolume = volume
        believedFromRead = true
        routeVolumeSeen = false
        echoes.markBeforeRouteChange()
        landings.routeChanged()
        unexplainedRead = nil
        // The value before a set taken as landed was the old route's (its record has used it on leaving).
        unconfirmedFrom = nil
        setMayBeLost = false
        let user = userVolume ?? volume
        self.userVolume = user
        switch phase {
        case .running: return [.userVolumeChanged(user)] + hold(anchorFor(user), at: time)
        case .stopping, .suspended: return [.userVolumeChanged(user)] + hold(user, at: time) + doneIfRestored()
        case .idle: return [.userVolumeChanged(user)]
        }
    }

    /// The new route's own volume after a route change seen through an observation: `read` is a live read,
    /// `observed` the observation that showed the change. A set of ours in flight may already have landed on
    /// the new route: when the read is such a set and the observation is not, the observation (the route's
    /// KVO) is the route's volume (`shared/facts/envelope.md`: the route's KVO may come before its notification).
    public func routeVolume(read: Float, observed: Float?) -> Float {
        guard let observed else { return read }
        var echoes = echoes  // Searched in place (`EchoLedger`): a copy.
        func inFlight(_ value: Float) -> Bool { echoes.contains(value, within: VolumeGrid.readTolerance) }
        return inFlight(read) && !inFlight(observed) ? observed : read
    }

    /// Whether `volume`, the new route's own volume as read at a route change (before ``routeChanged(volume:userVolume:expectsObservation:at:)``),
    /// may instead be a set of ours issued on the old route that landed on the new one before the change was
    /// seen: a set of that value is still in flight, or one was taken as landed within ``landingWindow`` (its
    /// KVO may have come after the change, ahead of the change's notification: `shared/facts/envelope.md`),
    /// and the old route's volume without it differs. With both routes at that other volume the change showed
    /// no KVO of its own, so the new route's own volume is either value: nothing observable tells them apart.
    public func mayBeOwnLanding(_ volume: Float, at time: Instant) -> Bool {
        var echoes = echoes  // Searched in place (`EchoLedger`): a copy.
        if echoes.contains(volume, within: VolumeGrid.readTolerance, where: { !$0.beforeRouteChange }),
            VolumeGrid.isApart(believedVolume, volume)
        {
            return true
        }
        guard let landing = lastLanding, time - landing.at <= Self.landingWindow else { return false }
        return abs(landing.value - volume) < VolumeGrid.readTolerance
            && VolumeGrid.isApart(landing.over, volume)
    }

    /// A value observed right after the route changed (read with the observation, before its notification):
    /// it is the new route's own volume (already read by ``routeChanged(volume:userVolume:expectsObservation:at:)``) or a set of
    /// ours landing there, whose echo it consumes. Nothing else can be told apart from the route's change.
    public mutating func observeAfterRouteChange(_ value: Float, at time: Instant) -> Actions {
        // The route's own KVO, unless it is still to come (the observation was a landing on the old route).
        if routeObservation.map({ abs($0.value - value) < VolumeGrid.readTolerance }) ?? true { routeObservation = nil }
        // The route's own volume, as just read: its KVO, not a landing. Only a set made before the change can
        // have landed: the observation came before the sets the change itself made — the new route's anchor,
        // which is its own volume when VolumeKit left the route there (their echo stays for their landing).
        guard VolumeGrid.isApart(value, believedVolume),
            let landed = echoes.oldest(value, within: VolumeGrid.readTolerance, where: \.beforeRouteChange)
        else { return [] }
        echoes.remove(landed)
        return []
    }
}
