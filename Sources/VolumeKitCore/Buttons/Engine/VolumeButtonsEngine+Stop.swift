#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension VolumeButtonsEngine {
    /// Stops capture and puts everything back; see the type's lifecycle rules. `onStopped` runs once the
    /// user's volume is back and everything is torn down — at once when capture is not running, and after
    /// the earlier stop when one is still finishing.
    public func stop(onStopped: (@Sendable () -> Void)? = nil) {
        // Not capturing: call back at once — or, while an earlier stop is still putting things back, when it
        // is done (a caller waiting for `onStopped`, e.g. to close a trace, was never called back).
        let notStarted = shell.withState { state -> Bool in
            guard !state.isStarted else { return false }
            guard state.lifecycle.stopped != nil else { return true }
            if let onStopped { state.lifecycle.chain(onStopped) }
            return false
        }
        if notStarted {
            onStopped?()
            return
        }
        // Reads are stale while the session is inactive (interruption, background): try to make them live so
        // the right route gets the right volume back. If that fails (a call holds the audio), nothing is set
        // and the saved records wait for the next start or recovery.
        let blind = isStarted && !shell.withState({ $0.liveness.isSessionLive }) && !refreshForStop()
        // A route change read before the stop whose notification has not come by it, though it had time to (its gap
        // and KVO's latency, `shared/facts/envelope.md`): the stop does not wait out the rest of its grace (a press
        // made on the new route just before the stop may have been taken for its own volume).
        let now = clients.clock.now()
        let unnotified = shell.withState { state -> AudioRoute? in
            guard let awaited = state.routes.unnotified, now - awaited.since >= Self.routeNotificationOverdue else {
                return nil
            }
            return awaited.route
        }
        followRoute()
        // Read only when a stop before the view is ready may owe an earlier run's record (see below).
        let owes = shell.withState {
            $0.isStarted && !$0.book.isThisRuns && $0.view.handle != nil && $0.book.records[$0.routes.route] != nil
        }
        let volume = owes ? clients.systemVolume.outputVolume() : nil
        run { state in
            guard state.isStarted else { return [] }
            let stopped = CaptureLifecycle.Stopped(onStopped: onStopped, keepAlive: self)
            state.lifecycle = .stopping(stopped)
            var work = state.classifier.release(at: now).map(Work.emit)
            if let unnotified, state.routes.notificationMissing(for: unnotified) {
                work.append(.diagnose(.routeChangeNotNotified))
            }
            guard state.steps.phase == .idle, !blind else {
                return work + (blind ? [.tearDown] : translate(state.steps.stop(at: now), &state, at: now))
            }
            guard !state.book.isThisRuns, configuration.mode == .capture, let volume else { return work + [.tearDown] }
            if state.view.isReady, state.liveness.isSessionLive {
                return work + giveBackEarlierRecord(&state, volume: volume, at: now)
            }
            if !state.view.isReady, state.view.handle != nil, let record = state.book.records[state.routes.route],
                case .restore = RecoveryRule.decide(
                    record, currentVolume: volume, uptime: now, bootTime: clients.device.bootTime)
            {
                // Stopped before the view was ready (sets need it) on a route an earlier run left away from the
                // user's volume: once it is ready, their volume is put back as the next run would.
                state.lifecycle = .restoringWhenReady(stopped)
                return work
            }
            return work + [.tearDown]
        }
    }

    /// The view was ready but the machine never started (the session was interrupted then; this stop made reads
    /// live again): no second ready comes, so an earlier run's record is given back now, as the next run would
    /// (a recovery run stuck here held every capture back).
    private func giveBackEarlierRecord(_ state: inout State, volume: Float, at now: Instant) -> [Work] {
        var work = [Work]()
        guard
            let recovered = recoveredUserVolume(&state, route: state.routes.route, volume: volume, at: now, work: &work)
        else { return work + [.tearDown] }
        state.book.owner = .thisRun
        return work + translate(state.steps.restore(volume: volume, userVolume: recovered, at: now), &state, at: now)
    }

    /// Tries to make reads live for a stop; returns whether it did (see ``stop(onStopped:)``).
    func refreshForStop() -> Bool {
        do {
            // The machine learns the live volume: a restore dropped while reads were stale is set again by the stop.
            try makeReadsLive(startsCapture: false) { state, volume, now in
                self.translate(state.steps.refresh(volume: volume, at: now), &state, at: now)
            }
            return true
        } catch {
            return false
        }
    }

    /// Ends a ``VolumeRecovery`` run at once (its watchdog): nothing more is set, its view, subscriptions and timers
    /// go and the session is released; the record stays for the next run.
    func abandon() {
        let running = shell.withState { state in
            !state.lifecycle.isIdle || !state.subscriptions.isEmpty
        }
        if running { tearDown() }
    }
}
