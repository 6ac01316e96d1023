#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension VolumeButtonsEngine {
    /// How long a route's notification may follow its KVO (the gap is 0–20 ms in `shared/facts/envelope.md`,
    /// plus KVO latency): later, it is taken as missing.
    static let routeNotificationGrace: TimeInterval = 0.25
    /// How long after the change was read its notification is overdue at a stop, which does not wait out the grace:
    /// the gap (0–20 ms) and KVO's latency, with room.
    static let routeNotificationOverdue: TimeInterval = 0.1
    /// How often the route is read between inputs. Its notification may never come (openradar 49154849: AirPlay 2
    /// to Bluetooth, iOS 12.1.4; openradar 35432156: an `MPVolumeView` suppressed it, iOS 11.2 —
    /// `shared/facts/envelope.md`), and between two routes at one volume no KVO shows the change either: the next
    /// press's KVO would be its first sign, and reads exactly as the new route's own volume would. Read every
    /// 50 ms, the change is known before a press made a moment after it (a route read is a property of the shared
    /// audio session; a read that finds the same route is not written to a trace).
    static let routePollInterval: TimeInterval = 0.05
    /// How long after a route change its KVO may come: `kvoLatency` (0–0.03 s) after the notification's gap (0–0.02
    /// s), `shared/facts/envelope.md`. A change found by the poll happened no later than the poll.
    static let routeKVODelay: TimeInterval = 0.05

    /// The route's KVO may come before its notification, or with none (and with no KVO either when both
    /// routes have the same volume): the route is read with every input, and every ``routePollInterval``
    /// (`polled`). Returns whether it had changed.
    ///
    /// A change found by the poll whose volume may be a set of VolumeKit's landed on the new route (one still in
    /// flight, or one seen landing within ``VolumeStepMachine/landingWindow``: ``VolumeStepMachine/mayBeOwnLanding(_:at:)``)
    /// waits ``routeKVODelay`` for the route's KVO or notification, which carries the route's own volume where the
    /// read cannot (`RouteChangeInFlightTests`, `RoutePollTests`); then the route is followed as read.
    @discardableResult
    func followRoute(observed: Float? = nil, polled: Bool = false) -> Bool {
        let now = clients.clock.now()
        let route = clients.audioSession.currentOutput()
        let moved = shell.withState { state -> Bool in
            guard state.isStarted || state.steps.phase != .idle else { return false }
            // With the session inactive the change waits for live reads, as a notified one does: until then a value
            // observed is the new route's, not a change on the old one (held-out session systemNotification 84274:
            // a Control Center choice on the headphones during a call, no route notification, taken for the
            // receiver's user volume, whose record went). A change pending already follows the route read, back to
            // the engine's own one included (then observations there count again).
            guard state.liveness.isSessionLive else {
                if state.routes.route != route || state.routes.pending != nil { state.routes.pending = route }
                return false
            }
            return state.routes.route != route
        }
        guard moved else { return false }
        let volume = clients.systemVolume.outputVolume()
        if polled, shell.withState({ $0.steps.mayBeOwnLanding(volume, at: now) }) {
            _ = clients.clock.schedule(Self.routeKVODelay) { [weak self] in
                // Not once the run has ended (the deferred read would follow a route for nothing held).
                guard let self, self.isStarted else { return }
                self.followRoute()
            }
            return false
        }
        run { state in
            state.routes.read(route.route, at: now, byKVO: observed != nil)
            return self.changeRoute(to: route, volume: volume, observed: observed, &state, at: now)
        }
        awaitRouteNotification(route.route)
        return true
    }

    /// The poll's read (``routePollInterval``): only while capture runs in front with the session live — reads are
    /// stale while it is not (seed 001), an inactive or backgrounded app reads the route again on its return, and
    /// capture events hold no volume. A read of the shared audio session on the main thread, 20 times a second.
    func pollRoute() {
        guard configuration.strategy != .captureEvents,
            shell.withState({ $0.isStarted && $0.liveness.isAppActive && $0.liveness.isSessionLive })
        else { return }
        followRoute(polled: true)
    }

    /// A route change's notification: the change read before it is notified — not by a take-over's
    /// `.categoryChange` naming the same route, which says nothing of how the route came to be (a camera
    /// starting 0.25 s after an unnotified change hid it).
    func routeNotified(_ changed: AudioRoute, at now: Instant) {
        let takeOver = clients.lifecycle.lastRouteChange()?.reason == "categoryChange"
        run { state in
            guard let kvo = state.routes.notified(changed, byTakeOver: takeOver) else { return [] }
            // The KVO came first: the gap to its notification is the phone's (the calibration).
            return self.noted(state.calibration.routeChanged(notification: now, kvo: kvo), &state)
        }
        if usesSession, sessionWasTakenOver() { return }
        let current = clients.audioSession.currentOutput()
        let route = current.route == changed ? current : AudioOutput(route: changed)
        let volume = clients.systemVolume.outputVolume()
        run { state in
            guard state.isStarted || state.steps.phase != .idle else { return [] }
            // With the session inactive the volume read is stale (seed 001): decide once it is live.
            guard state.liveness.isSessionLive else {
                state.routes.pending = route
                return []
            }
            return self.changeRoute(to: route, volume: volume, &state, at: now)
        }
    }

    /// A route change was read before its notification: reports ``VolumeButtonsDiagnostic/routeChangeNotNotified``
    /// if the notification does not follow within ``routeNotificationGrace`` (for each such change).
    private func awaitRouteNotification(_ route: AudioRoute) {
        _ = clients.clock.schedule(Self.routeNotificationGrace) { [weak self] in
            guard let self else { return }
            let missing = self.shell.withState { state -> Bool in
                state.isStarted && state.routes.notificationMissing(for: route)
            }
            if missing { self.onDiagnostic(.routeChangeNotNotified) }
        }
    }

    /// The output moved to `route`, whose volume is `volume` (a live read); `observed` is the observation that
    /// showed the change, if one did (see ``VolumeStepMachine/routeVolume(read:observed:)``). `expectsObservation`
    /// is `false` when the route's KVO cannot come any more (the change happened while reads were stale).
    func changeRoute(
        to route: AudioOutput, volume: Float, observed: Float? = nil, expectsObservation: Bool = true,
        _ state: inout State, at now: Instant
    ) -> [Work] {
        state.routes.pending = nil
        guard route != state.routes.route else { return [] }
        var work = [Work]()
        if state.book.leave(state.routes.route, steps: state.steps) { work.append(.save(state.book.records)) }
        state.routes.route = route
        state.lastObserved = volume
        // Sets made for the new route from here on are its own (the same `now` as theirs, on a live clock too): the
        // calibration is told the route where the engine's route changes, here and at start.
        state.calibration.setRoute(route.route, at: now)
        let own = state.steps.routeVolume(read: volume, observed: observed)
        // The read may be a set of ours from the old route landed here, over an own volume equal to the old
        // route's (no KVO marked the change): taken as the route's own, and reported (each time). The system
        // notification's route change carries the route's own volume whatever it is (not so KVO, silent
        // between equal values), so only `outputVolume` meets this.
        if configuration.strategy == .outputVolume, state.steps.mayBeOwnLanding(own, at: now) {
            work.append(.diagnose(.routeVolumeUncertain))
        }
        let recovered = recoveredUserVolume(&state, route: route, volume: own, at: now, work: &work)
        // A route without volume control holds nothing: leave holding before the change, take it up after it.
        let control = controlsVolume()
        if !control { work += volumeControl(false, &state, at: now) }
        // The new route's KVO is still to come unless the observation that showed the change was it: a landing of
        // ours on the old route observed after the switch shows the change before the route's own KVO arrives.
        let sawOwnVolume = observed.map { abs($0 - volume) <= VolumeStepMachine.readTolerance } ?? false
        work += translate(
            state.steps.routeChanged(
                volume: volume, userVolume: recovered ?? own,
                expectsObservation: expectsObservation && !sawOwnVolume && configuration.strategy == .outputVolume,
                at: now),
            &state, at: now)
        if control { work += volumeControl(true, &state, at: now) }
        #if VOLUMEKIT_MUTANTS
        if Mutant.isOn(.pressAfterRouteChange) { work += state.classifier.step(.up, at: now).map(Work.emit) }
        #endif
        return work
    }
}
