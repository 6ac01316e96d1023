#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The output the engine believes in force, and the route changes it has read but not yet handled.
///
/// A route's KVO may come before its notification, or with none (RBVolumeButtons #18, openradar 35432156), and
/// while the session is inactive reads are stale (seed 001): the route is read with every input, a change
/// read while reads are stale waits (``pending``), and one read before its notification waits for it
/// (``unnotified``) — reported if it never comes.
struct RouteFollower {
    /// The output now: its route, and an external device's port (each keeps its own volume).
    var route = AudioOutput(route: .speaker)
    /// A route change seen while reads were stale, handled once they are live again.
    var pending: AudioOutput?
    /// A route change read before (or without) its notification, waiting for it.
    var unnotified: Unnotified?

    /// A route change read before its notification: the route, when it was read, and whether an observation (its
    /// KVO) showed it then — the calibration's `routeNotificationGap` is counted from there.
    struct Unnotified {
        var route: AudioRoute
        var since: Instant
        var byKVO: Bool
    }

    /// The change to `route` was read at `now` (`byKVO`: an observation showed it); its notification is awaited.
    mutating func read(_ route: AudioRoute, at now: Instant, byKVO: Bool) {
        unnotified = Unnotified(route: route, since: now, byKVO: byKVO)
    }

    /// The notification of `changed` came. A take-over's `.categoryChange` naming the same route says nothing
    /// of how the route came to be, so it leaves a change read before it waiting.
    /// Returns when the change's KVO came, if it came first through an observation.
    mutating func notified(_ changed: AudioRoute, byTakeOver takeOver: Bool) -> Instant? {
        guard let awaited = unnotified, awaited.route == changed, !takeOver else { return nil }
        unnotified = nil
        return awaited.byKVO ? awaited.since : nil
    }

    /// The grace for `route`'s notification ended: whether it is still missing (then it is no longer awaited).
    mutating func notificationMissing(for route: AudioRoute) -> Bool {
        guard unnotified?.route == route else { return false }
        unnotified = nil
        return true
    }
}
