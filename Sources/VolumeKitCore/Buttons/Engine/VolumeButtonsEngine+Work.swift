#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension VolumeButtonsEngine {
    /// What an input asks the engine to do once its lock is released.
    enum Work {
        /// The order work is carried out in: saves, sets, callbacks, teardown.
        var rank: Int {
            switch self {
            case .save: 0
            case .setVolume: 1
            case .emit, .userVolume, .diagnose, .ready, .calibrated: 2
            case .tearDown: 3
            }
        }

        case setVolume(Float)
        case emit(VolumeButtonEvent)
        case userVolume(Float)
        case diagnose(VolumeButtonsDiagnostic)
        case save(PendingRestores)
        case ready(@Sendable () -> Void)
        /// The calibration learned something: its watchers are told.
        case calibrated(CalibrationMachine, [AsyncStream<CalibrationMachine>.Continuation])
        case tearDown

        var isSave: Bool {
            if case .save = self { true } else { false }
        }

        var isSet: Bool {
            if case .setVolume = self { true } else { false }
        }
    }

    /// The step machine's actions as work: presses through the classifier, sets noted for the crash records.
    func translate(_ actions: VolumeStepMachine.Actions, _ state: inout State, at now: Instant) -> [Work] {
        var work = [Work]()
        for action in actions {
            switch action {
            case .setVolume(let value):
                state.book.noteSet(value, userVolume: state.steps.userVolume, aimed: state.steps.aimedReset)
                state.calibration.setMade(value, at: now)
                work.append(.setVolume(value))
            case .steps(let button, let count):
                for _ in 0..<count {
                    let learned = noted(state.calibration.step(button, at: now), &state)
                    work += state.classifier.step(button, at: now).map(Work.emit) + learned
                    if state.classifier.lastStepWasFirstRepeat { work.append(.diagnose(.ambiguousStep)) }
                }
            case .userVolumeChanged(let value):
                work.append(.userVolume(value))
            case .restored:
                work.append(.tearDown)
            case .setFailed(let value):
                work.append(.diagnose(.volumeSetFailed(value)))
            case .leavesRailUnobserved(let rail):
                work.append(.diagnose(.railPressesUnseen(rail)))
            }
        }
        return work
    }

    /// Applies ``RecoveryRule`` to the record saved for `route`, if any: the user's volume to give back, or
    /// `nil` (the record is dropped when the rule discards it).
    func recoveredUserVolume(
        _ state: inout State, route: AudioOutput, volume: Float, at now: Instant, work: inout [Work]
    ) -> Float? {
        let recovery = state.book.recover(
            route, volume: volume, at: now, bootTime: clients.device.bootTime,
            watchesRails: configuration.strategy == .outputVolume)
        work += recovery.diagnostics.map(Work.diagnose)
        if recovery.dropped { work.append(.save(state.book.records)) }
        return recovery.userVolume
    }

    /// Until the machine starts, an earlier run's record is judged on every read (``RestoreBook``) — not while a
    /// recovery run gives it back: its sets are not the user's change.
    func judgeBeforeStart(_ state: inout State, volume: Float, at now: Instant) -> [Work] {
        guard state.isStarted, !state.book.isThisRuns, isRecoveryRun || !clients.holdBoard.isRecovering,
            state.book.judgeBeforeStart(state.routes.route, volume: volume, at: now, bootTime: clients.device.bootTime)
        else { return [] }
        return [.save(state.book.records)]
    }

    /// Runs `body` under the lock (the crash records brought in step after it, saved once), re-aims the timer,
    /// then carries out the work outside the lock.
    func run(timerFired: Bool = false, _ body: (inout State) -> [Work]) {
        let fire: @Sendable () -> Void = { [weak self] in self?.tick() }
        let work = shell.perform(timerFired: timerFired, fire: fire) { state, now in
            var work = body(&state)
            proveView(&state, work: &work, at: now)
            adaptHeadroom(&state)
            adaptWindows(&state)
            let synced =
                configuration.mode == .capture && configuration.strategy != .captureEvents && state.view.isReady
                && state.book.isThisRuns
                && state.book.sync(
                    state.routes.route, with: state.steps, unprovenSince: unprovenSince(state), at: now,
                    bootTime: clients.device.bootTime)
            // One write of the final records, whatever changed them during this input.
            if synced || work.contains(where: \.isSave) {
                work.removeAll(where: \.isSave)
                work.insert(.save(state.book.records), at: 0)
            }
            return work
        }
        // Records are saved before the sets they cover, the system is told before the app's callbacks run,
        // and teardown comes last: a callback that calls back into the engine (a handler that stops capture
        // on a press) then acts after this input's own sets.
        let ordered = work.enumerated().sorted { ($0.element.rank, $0.offset) < ($1.element.rank, $1.offset) }.map(
            \.element)
        for item in ordered {
            switch item {
            case .setVolume(let value): clients.systemVolume.setVolume(value)
            case .emit(let event): onEvent(event)
            case .userVolume(let value):
                holdReporter.userVolumeChanged(value)
                onUserVolume(value)
            case .diagnose(let diagnostic): onDiagnostic(diagnostic)
            case .save(let records): records.save(to: clients.keyValueStore)
            case .ready(let action): action()
            case .calibrated(let calibration, let watchers): watchers.forEach { $0.yield(calibration) }
            case .tearDown: tearDown()
            }
        }
    }

    /// Ends the run: cancels what is pending, removes the view and subscriptions, gives the session back.
    func tearDown() {
        shell.withState { state -> [CancellationHandle] in
            defer {
                state.retry.pending = nil
                state.recoveryWait = nil
            }
            return [state.retry.pending, state.recoveryWait].compactMap { $0 }
        }.forEach { $0.cancel() }
        let usesSession = self.usesSession
        let leftovers = shell.withState {
            state -> (
                subscriptions: [CancellationHandle], view: CancellationHandle?, lease: Bool,
                stopped: (@Sendable () -> Void)?
            ) in
            defer {
                state.lifecycle = .idle
                state.subscriptions = []
                state.view = .absent
            }
            // The lease is held from start until this teardown (see AudioSessionLease).
            return (
                state.subscriptions, state.view.handle, usesSession && !state.lifecycle.isIdle,
                state.lifecycle.stopped?.onStopped
            )
        }
        let timer = shell.resetTimer()
        leftovers.subscriptions.forEach { $0.cancel() }
        leftovers.view?.cancel()
        timer?.cancel()
        // The last VolumeKit user gives the app's session back (see AudioSessionLease).
        if leftovers.lease { clients.sessionLease.release(on: clients.audioSession, clock: clients.clock) }
        holdReporter.stopped()
        saveCalibration()
        // Records this run left for routes it could not set (the route changed while it held the volume) wait
        // for their route; the process's watch judges them as soon as it is current (VolumeRecovery).
        if usesSession { VolumeRecovery.watchWaitingRoutes(clients, onDiagnostic: appOnDiagnostic) }
        leftovers.stopped?()
    }

    /// Keeps what capture learned of this phone for the next run (``CalibrationStore``): at teardown and when the
    /// app resigns active (it may be killed in the background). A recovery run saves nothing.
    func saveCalibration() {
        guard !isRecoveryRun else { return }
        let calibration = shell.withState { $0.calibration }
        guard !calibration.estimates.isEmpty || calibration.quantization != nil || calibration.downPressRefusals > 0
        else { return }
        CalibrationStore.save(calibration, for: clients.device, to: clients.keyValueStore)
    }

    /// When the volume view was installed, while no set through it is confirmed and the volume has not been seen at
    /// the user's own since (``RestoreBook/sync(_:with:unprovenSince:at:bootTime:)`` keeps an earlier run's record
    /// until then): seen there, whoever put it there, the record has done its work.
    func unprovenSince(_ state: State) -> Instant? {
        guard let since = state.view.unprovenSince else { return nil }
        let seenAtUsers = state.lastObserved.map { VolumeGrid.isSame($0, state.steps.userVolume) } ?? false
        return seenAtUsers ? nil : since
    }

    /// The headroom this phone needs (``HeadroomPolicy``, from the measured round trip) and the round trip its down
    /// bursts' resets are aimed by (on a phone shown refusing sets during a down press), asked of the step machine
    /// after every input: it takes them between runs of presses (idle or suspended), for the next start or resume. A
    /// recovery run holds no anchor.
    ///
    /// The refusal is the one known when this run started (``State/refusesAtStart``, from the store): one learned
    /// during the run is used from the next start. The round trip measured in the run is used at the next return to
    /// the app; the refusal's step of headroom would move the anchor there too, and `trace fit` cannot yet tell a
    /// refused set of the anchor from a press landing on its value in such a session
    /// (docs/decisions/step-machine.md).
    func adaptHeadroom(_ state: inout State) {
        guard !isRecoveryRun else { return }
        let steps = headroom(for: state.calibration, refusing: state.refusesAtStart)
        if steps != state.steps.headroomSteps { state.steps.headroom(steps) }
        let aim = aimRoundTrip(for: state.calibration, refusing: state.refusesAtStart)
        if aim != state.steps.configuration.burstRoundTrip { state.steps.aimResets(roundTrip: aim) }
    }

    /// How soon an echo of the step machine's sets may come (``EchoWindow``) and how long a set waits before it is
    /// made again (``RetryWindow``), from the measured round trip, told to the machine after every input: each set
    /// keeps the window it was issued with.
    func adaptWindows(_ state: inout State) {
        let roundTrip = state.calibration.estimate(of: .roundTrip)
        let soonest = EchoWindow.soonest(roundTrip: roundTrip)
        if soonest != state.steps.configuration.echoSoonest { state.steps.expectEchoes(noSoonerThan: soonest) }
        // How long a set waits before it is made again (``RetryWindow``): from this route's own round trip only, not
        // the estimate over every route — too short a wait sets twice before a slower route's first landing.
        let configured = Self.configuredSteps
        let delay = RetryWindow.delay(
            roundTrip: state.calibration.ownEstimate(of: .roundTrip), configured: configured.retryDelay)
        if delay != state.steps.configuration.retryDelay {
            state.steps.retrySets(
                after: delay,
                attempts: RetryWindow.attempts(
                    for: delay, configuredDelay: configured.retryDelay, configuredAttempts: configured.maximumAttempts))
        }
    }

    /// The press classifier's timing for what `calibration` measured: the configured one, its first-repeat window
    /// narrowed to the phone's own rhythm once ``ButtonTiming/holdsToNarrow`` holds showed it (``ButtonTiming/narrowed(toFirstRepeat:window:)``).
    /// Capture events have real releases: nothing to narrow.
    func timing(for calibration: CalibrationMachine) -> ButtonTiming {
        guard configuration.strategy != .captureEvents, let first = calibration.estimates[.firstRepeatDelay],
            first.samples >= ButtonTiming.holdsToNarrow, let value = first.value
        else { return configuration.timing }
        return configuration.timing.narrowed(
            toFirstRepeat: value, window: ButtonTiming.learnedWindow + 2 * first.spread)
    }

    /// The headroom ``VolumeButtonsConfiguration/headroomPolicy`` gives for what `calibration` measured, on a phone
    /// known `refusing` sets during a down press or not.
    func headroom(for calibration: CalibrationMachine, refusing: Bool) -> Int {
        configuration.headroomPolicy.steps(
            roundTrip: calibration.estimate(of: .roundTrip), minimum: configuration.headroomSteps, refusing: refusing)
    }

    /// The round trip a down burst's resets are aimed by for what `calibration` measured
    /// (``HeadroomPolicy/aimRoundTrip(_:refusing:)``).
    func aimRoundTrip(for calibration: CalibrationMachine, refusing: Bool) -> TimeInterval? {
        HeadroomPolicy.aimRoundTrip(calibration.estimate(of: .roundTrip), refusing: refusing)
    }

    /// What the calibration learned, as work: a measurement outside the envelope is news of a phone VolumeKit's
    /// envelope does not cover — ``VolumeButtonsDiagnostic/outsideEnvelope(_:_:)``, once a rule a run (the trace
    /// carries it); the estimate counts every one apart (``CalibrationEstimate/outsideSamples``).
    func noted(_ events: [CalibrationMachine.Event], _ state: inout State) -> [Work] {
        guard !events.isEmpty else { return [] }
        if events.learnedRhythm { state.classifier.timing = timing(for: state.calibration) }
        var work = [Work]()
        if !state.calibrationWatchers.isEmpty {
            work.append(.calibrated(state.calibration, Array(state.calibrationWatchers.values)))
        }
        for case .outsideEnvelope(let rule, let value) in events
        where value.isFinite && state.once.raise(.outside(rule)) {
            work.append(.diagnose(.outsideEnvelope(rule, value)))
        }
        return work
    }
}
