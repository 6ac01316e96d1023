#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
                // The restore goes through a view only told ready: not taken as landed until a set is seen back.
                state.view.told(at: now, proving: true)
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
            guard case .started = state.lifecycle else { return [] }
            // Told ready by the host's timer: capture holding the volume claims it once a set proves the view
            // (``proveView(_:work:at:)``); the app's `onReady` runs then.
            state.view.told(at: now, proving: configuration.mode == .capture)
            state.book.records = records
            state.lastObserved = volume
            return self.startSteps(&state, volume: volume, at: now)
        }
    }

    /// After every input: a view told ready is proven once a set made through it comes back
    /// (``VolumeViewState/confirm()``, from the observation that is its echo) or at ``VolumeViewState/provenAt``
    /// (no set was needed — the volume already sat at the anchor — or none came back); the
    /// run's `onReady` runs once the view is proven (a recovery run's as soon as it is told ready).
    func proveView(_ state: inout State, work: inout [Work], at now: Instant) {
        if work.contains(where: \.isSet) { state.view.setMade() }
        if case .told(let handle, _, _) = state.view, let due = state.view.provenAt, now >= due {
            state.view = .ready(handle)
        }
        // A recovery run claims nothing: it gives the volume back from the host's timer on (its `onReady` stops it),
        // and a set of it lost meanwhile is made again.
        let ready = state.view.isProven || (isRecoveryRun && state.view.isReady)
        if ready, case .started(let onReady?) = state.lifecycle {
            state.lifecycle = .started(onReady: nil)
            work.append(.ready(onReady))
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
