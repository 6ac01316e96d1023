import Foundation

extension VolumeButtonsEngine {
    /// The volume view is ready (or none is needed): capture starts, from the records as saved now.
    func volumeViewReady() {
        guard !waitsForRecovery() else { return }
        // The route may have moved since start, its KVO and notification not yet seen: the read below is the new
        // route's volume, never to be judged against the old route's record.
        followRoute()
        let now = clients.clock.now()
        let volume = clients.systemVolume.outputVolume()
        // A recovery at launch (VolumeRecovery) may have given a record back since `start()` read them: the
        // saved records, not start's copy, say what is still owed.
        let records = PendingRestores.load(from: clients.keyValueStore)
        // The route is read again only for a stop that came before this moment (it may have moved since).
        let restores = shell.withState { if case .restoringWhenReady = $0.lifecycle { true } else { false } }
        let route = restores ? clients.audioSession.currentOutput() : nil
        run { state in
            if case .restoringWhenReady(let stopped) = state.lifecycle, let route {
                state.lifecycle = .stopping(stopped)
                state.view = .ready(state.view.handle)
                state.book.records = records
                state.routes.route = route
                var work = [Work]()
                guard state.liveness.isSessionLive,
                    let recovered = recoveredUserVolume(&state, route: route, volume: volume, at: now, work: &work)
                else { return work + [.tearDown] }
                state.book.owner = .thisRun
                return work
                    + translate(state.steps.restore(volume: volume, userVolume: recovered, at: now), &state, at: now)
            }
            guard case .started(let onReady) = state.lifecycle else { return [] }
            state.view = .ready(state.view.handle)
            state.book.records = records
            var work = [Work]()
            if let onReady {
                state.lifecycle = .started(onReady: nil)
                work.append(.ready(onReady))
            }
            return work + self.startSteps(&state, volume: volume, at: now)
        }
    }

    /// Whether the view became ready while a recovery run gives an earlier run's volume back (a launch recovery
    /// and a capture started at once): its sets would be read as presses here, and this engine's anchor as the
    /// user's change there (four phantom presses). Capture then becomes ready once the recovery has ended, from
    /// the volume it left. Capture events never wait: they count no press from the volume (what they watch of it,
    /// for ``VolumeButtonsDiagnostic/captureEventsNotDelivered``, ignores recovery runs).
    private func waitsForRecovery() -> Bool {
        guard configuration.strategy != .captureEvents, !isRecoveryRun else { return false }
        let wait = clients.holdBoard.afterRecovery { [weak self] in
            guard let self else { return }
            let waited = self.shell.withState { state -> Bool in
                defer { state.recoveryWait = nil }
                return state.recoveryWait != nil
            }
            if waited { self.volumeViewReady() }
        }
        guard let wait else { return false }
        let stale = shell.withState { state -> CancellationHandle? in
            defer { state.recoveryWait = wait }
            return state.recoveryWait
        }
        stale?.cancel()
        return true
    }

    /// Starts the step machine once the view is ready and the session is not interrupted: while it is, the
    /// `outputVolume` read is stale (seed 001), and sets made from it would overwrite a change the user makes
    /// meanwhile (Control Center during the interruption). It starts when the session is re-activated.
    func startSteps(_ state: inout State, volume: Float, at now: Instant) -> [Work] {
        guard configuration.strategy != .captureEvents, state.view.isReady, state.steps.phase == .idle,
            !state.liveness.isInterrupted
        else { return [] }
        var work = volumeControl(controlsVolume(), &state, at: now)
        let recovered = recoveredUserVolume(&state, route: state.routes.route, volume: volume, at: now, work: &work)
        state.book.owner = .thisRun
        // In the background the anchor waits for the app to be active again (resume): setting it and the user's
        // volume back at once would overwrite presses made meanwhile.
        let started =
            state.liveness.isAppActive
            ? state.steps.start(volume: volume, userVolume: recovered, at: now)
            : state.steps.startSuspended(volume: volume, userVolume: recovered, at: now)
        return work + translate(started, &state, at: now)
    }

    /// Whether the current route lets VolumeKit hold the volume (capture, not passive mode or capture events).
    func controlsVolume() -> Bool {
        configuration.mode != .capture || configuration.strategy == .captureEvents
            || clients.systemVolume.hasVolumeControl()
    }

    /// Tells the step machine whether the current route has volume control; reports
    /// ``VolumeButtonsDiagnostic/volumeControlUnavailable`` on entering one without.
    func volumeControl(_ available: Bool, _ state: inout State, at now: Instant) -> [Work] {
        guard available != state.steps.hasVolumeControl else { return [] }
        let work = translate(state.steps.volumeControl(available: available, at: now), &state, at: now)
        return available ? work : [.diagnose(.volumeControlUnavailable)] + work
    }
}
