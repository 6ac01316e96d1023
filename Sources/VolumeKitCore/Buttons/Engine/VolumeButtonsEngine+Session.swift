#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension VolumeButtonsEngine {
    /// The app's lifecycle and its audio session's events.
    func handle(_ event: AppLifecycleEvent) {
        if case .routeChanged = event {} else { followRoute() }
        let now = clients.clock.now()
        switch event {
        case .willResignActive:
            run { state in
                state.liveness.isAppActive = false
                return self.pause(&state, at: now)
            }
            saveCalibration()
        case .interruptionBegan:
            run { state in
                state.liveness.isInterrupted = true
                state.liveness.isSessionLive = false
                state.retry.index = 0
                return self.pause(&state, at: now) + self.assumeSetsLanded(&state, at: now)
            }
            scheduleActivationRetry()
        case .willEnterForeground:
            reactivate()
        case .didBecomeActive:
            run { state in
                state.liveness.isAppActive = true
                state.retry.index = 0
                return []
            }
            reactivate()
            scheduleActivationRetry()
        case .interruptionEnded(let shouldResume):
            #if VOLUMEKIT_MUTANTS
            if Mutant.isOn(.noReactivationAfterInterruption) { return }
            #endif
            reactivate(.interruptionEnded(shouldResume: shouldResume))
        case .routeChanged(let changed):
            routeNotified(changed, at: now)
        case .mediaServicesWereReset:
            // The session lost its category and activation and has played nothing since: as after an
            // interruption, with the category set again first (`shared/facts/envelope.md`).
            guard usesSession else { return }
            handle(.interruptionBegan)
            do {
                try clients.sessionLease.reapplyAfterMediaReset(on: clients.audioSession)
            } catch {
                onDiagnostic(.sessionActivationFailed(String(describing: error)))
            }
            reactivate(.mediaServicesReset)
        case .didEnterBackground:
            // A suspended app's session is deactivated; reads are stale until it is re-activated (seed 002).
            run { state in
                state.liveness.isSessionLive = false
                return self.assumeSetsLanded(&state, at: now)
            }
        }
    }

    /// Observations stop (an interruption, the background): the sets made are taken as landed — or as maybe lost, when
    /// made through a volume view that may not have been ready yet (``VolumeViewState/mayHaveLost(setAt:)``).
    func assumeSetsLanded(_ state: inout State, at now: Instant) -> [Work] {
        let mayBeLost = state.view.mayHaveLost(setAt: state.steps.lastSetTime)
        return translate(state.steps.assumeSetsLanded(at: now, mayBeLost: mayBeLost), &state, at: now)
    }

    /// Capture pauses: a held button is released and the user's volume put back.
    func pause(_ state: inout State, at now: Instant) -> [Work] {
        state.classifier.release(at: now).map(Work.emit) + translate(state.steps.suspend(at: now), &state, at: now)
    }

    /// Re-activates the session (after an interruption, with or without `.ended`, and on foreground) and
    /// resumes capture when the app is active — unless that would stop audio the user started meanwhile
    /// (``SessionReactivation``: a category that does not mix, with other audio playing or an interruption
    /// ended without `.shouldResume`): then the session stays inactive until the next foreground, said once.
    func reactivate(_ trigger: SessionReactivation.Trigger = .foreground) {
        guard isStarted else { return }
        if usesSession, case .wait(let hold) = SessionReactivation.decide(trigger, session: clients.audioSession) {
            reportActivationFailure(hold.description)
            return
        }
        do {
            try makeReadsLive { state, volume, now in
                state.liveness.isInterrupted = false
                guard state.isStarted, state.liveness.isAppActive, state.view.isReady else { return [] }
                return self.translate(state.steps.resume(volume: volume, at: now), &state, at: now)
            }
        } catch {
            reportActivationFailure(String(describing: error))
        }
    }

    /// Reports ``VolumeButtonsDiagnostic/sessionActivationFailed(_:)`` once until reads are live again.
    private func reportActivationFailure(_ reason: String) {
        if shell.withState({ $0.once.raise(.activationFailure) }) { onDiagnostic(.sessionActivationFailed(reason)) }
    }

    /// Activates the session and primes output so `outputVolume` reads are live again (seed 001), handles a
    /// route change seen while they were stale, then runs `then` with the live volume. Throws what the session
    /// throws (a call holds the audio).
    func makeReadsLive(
        startsCapture: Bool = true, then: @escaping (inout State, Float, Instant) -> [Work]
    ) throws {
        if usesSession {
            try clients.audioSession.setActive(true, false)
            clients.audioSession.primeOutput()
        }
        let now = clients.clock.now()
        let volume = clients.systemVolume.outputVolume()
        let route = clients.audioSession.currentOutput()
        run { state in
            let wasLive = state.liveness.isSessionLive
            state.liveness.isSessionLive = true
            state.lastObserved = volume
            state.once.clear(.activationFailure)
            // The route read now is the one in force: a route change with no notification while reads were stale
            // is seen here, and so is a later one whose notification came with a take-over (the route noted from
            // an earlier notification is stale then).
            if state.routes.pending != nil || route != state.routes.route { state.routes.pending = route }
            var work = [Work]()
            if let route = state.routes.pending {
                // Routes changed while reads were stale and came back to one without volume control: its
                // presses show the system HUD again, said again for this change.
                if route == state.routes.route, !self.controlsVolume() {
                    work.append(.diagnose(.volumeControlUnavailable))
                }
                // Its KVO came (or not) while reads were stale: none is still to come. With reads live all along
                // (a take-over noticed at the route change's own notification), it is still to come, after the
                // notification (`routeNotification=beforeKVO`): a step from the anchor then, not a press.
                work += self.changeRoute(to: route, volume: volume, expectsObservation: wasLive, &state, at: now)
            }
            work += then(&state, volume, now)
            // Capture waits for live reads to start (see startSteps); not for a stop.
            if startsCapture, state.isStarted { work += self.startSteps(&state, volume: volume, at: now) }
            return work
        }
    }

    /// Whether another component took the session over (a route change with reason `.categoryChange` comes with
    /// it): if it changed the category, reports it and re-takes the session, keeping the category. A
    /// `.categoryChange` with the category as VolumeKit knew it is a component taking the session again (a
    /// second camera start, a player after a web view of the same category): the session is re-taken too, with
    /// nothing to report — the component's category is already the one VolumeKit keeps.
    func sessionWasTakenOver() -> Bool {
        let current = clients.audioSession.configuration()
        let retakenAgain = clients.lifecycle.lastRouteChange()?.reason == "categoryChange"
        let changed = shell.withState { state -> Bool? in
            // A stopping engine too: its restore would be set again blind, over presses it cannot observe.
            guard state.isStarted || state.steps.phase == .stopping, let known = state.sessionConfiguration else {
                return nil
            }
            // Before the volume view is ready too: a take-over then would keep the session inactive for good.
            guard known != current else { return retakenAgain ? false : nil }
            state.sessionConfiguration = current
            return true
        }
        guard let changed else { return false }
        if changed { onDiagnostic(.sessionTakenOver(current.category)) }
        retake()
        return true
    }

    /// Re-activates the session after a take-over; reads are live again, and a change made meanwhile (the
    /// system HUD showed it) is the user's.
    private func retake() {
        do {
            try makeReadsLive { state, volume, now in
                guard state.isStarted, state.view.isReady else { return [] }
                if state.steps.phase == .suspended { return [] }
                return self.translate(state.steps.resync(volume: volume, at: now), &state, at: now)
            }
        } catch {
            onDiagnostic(.sessionActivationFailed(String(describing: error)))
        }
    }

    /// While interrupted and active, tries activation again after a backoff (an interruption may never end:
    /// Siri, an alarm without an end). Only a session that mixes with others is re-activated, so another
    /// app's audio is never stopped.
    func scheduleActivationRetry() {
        let session = clients.audioSession.configuration()
        let mixes = session.options.contains(.mixWithOthers) || session.category == .ambient
        let delay = shell.withState { state -> TimeInterval? in
            guard state.isStarted, state.liveness.isInterrupted, state.liveness.isAppActive, mixes,
                state.retry.pending == nil
            else { return nil }
            return state.retry.nextDelay()
        }
        guard let delay else { return }
        let handle = clients.clock.schedule(delay) { [weak self] in
            guard let self else { return }
            let due = self.shell.withState { state -> Bool in
                state.retry.pending = nil
                return state.isStarted && state.liveness.isInterrupted && state.liveness.isAppActive
            }
            guard due else { return }
            self.reactivate()
            self.scheduleActivationRetry()
        }
        let stale = shell.withState { state -> CancellationHandle? in
            defer { state.retry.pending = handle }
            return state.retry.pending
        }
        stale?.cancel()
    }
}
