#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension VolumeButtonsEngine {
    /// An `outputVolume` observation (KVO).
    func observe(_ value: Float) {
        let now = clients.clock.now()
        if followRoute(observed: value) {
            // The observation that showed the new route may be a set of ours landing there: its echo goes.
            run { state in
                state.lastObserved = value
                return self.translate(state.steps.observeAfterRouteChange(value, at: now), &state, at: now)
            }
            return
        }
        var exhausted = false
        run { state in
            // A route change waits for live reads (a call holds the session): the value is the new route's, read
            // with the change once it is handled — whole steps from the old route's volume (or its leftover
            // nudges) would be a coincidence, not presses.
            if let pending = state.routes.pending, pending != state.routes.route { return [] }
            let judged = self.judgeBeforeStart(&state, volume: value, at: now)
            let expected = state.steps.echoes.contains(value, within: VolumeGrid.readTolerance)
            let before = state.steps.believedVolume
            let actions = state.steps.observe(value, at: now)
            // One press from an off-grid value shows how presses are quantized (the calibration).
            if actions.contains(.steps(.up, count: 1)) || actions.contains(.steps(.down, count: 1)) {
                state.calibration.pressLanded(from: before, to: value)
            }
            // A press that landed on the value of a set still expected (the step machine told them apart) is no
            // round trip; a set that comes back after its echo expired is one — a slow phone's news.
            let pressed = actions.contains { if case .steps = $0 { true } else { false } }
            // A set of ours came back: the volume view takes sets — the first confirmed set proves it ready. Only a
            // set that moved the volume, to a value no press gives from the last one seen: a press landing on a set's
            // value (at the anchor from a step below it), or a new route's own volume equal to the set made for it,
            // proves nothing.
            let previous = state.lastObserved
            state.lastObserved = value
            if expected && !pressed, let previous, VolumeGrid.isApart(previous, value),
                !VolumeGrid.isOnePress(from: previous, to: value)
            {
                state.view.confirm()
            }
            let learned =
                expected && pressed ? [] : self.noted(state.calibration.observed(value, at: now), &state)
            let work = learned + judged + self.translate(actions, &state, at: now)
            let capturing =
                configuration.strategy == .outputVolume && configuration.mode == .capture
                && state.steps.phase == .running
            if capturing && (value <= 0 || value >= 1) {
                exhausted = state.once.raise(.atRail)
            } else {
                state.once.clear(.atRail)
            }
            return work
        }
        if exhausted { onDiagnostic(.headroomExhausted) }
    }

    /// A volume change while capturing through capture events: a press that did not reach the interaction (no
    /// running camera) is reported once.
    func captureEventsMissed() {
        // A recovery run's sets (and their landings) are no press.
        guard !clients.holdBoard.isRecovering else { return }
        let now = clients.clock.now()
        let report = shell.withState { state -> Bool in
            guard state.isStarted, state.liveness.isAppActive else { return false }
            if let last = state.lastCaptureEvent, now - last < 1 { return false }
            return state.once.raise(.captureEventsMissing)
        }
        if report { onDiagnostic(.captureEventsNotDelivered) }
    }

    /// The private volume notification (``ButtonStrategy/systemNotification``).
    func observe(_ notification: SystemVolumeNotification) {
        let parsed: VolumeChangeNotification
        do {
            parsed = try notification.parse()
        } catch let error as VolumeNotificationError {
            onDiagnostic(.unreadableNotification(error))
            return
        } catch {
            return
        }
        // A route change posts here too, with the new route's own volume (facts §2: reasons seen): this
        // strategy's counterpart of the route's KVO. It may come before the route's notification, or with none
        // (`shared/facts/envelope.md`), and before a set of ours in flight lands on the new route: the route
        // is followed now, so that landing is not taken for the new route's own volume. Never a press. Its
        // volume is used only against a read that is a set of ours in flight (see
        // ``VolumeStepMachine/routeVolume(read:observed:)``), and only for ordinary app audio (a call's route
        // change carries the call volume: twilio-voice-ios #75).
        if parsed.reason == .routeChange {
            let media = parsed.category == nil || parsed.category == VolumeChangeNotification.mediaCategory
            followRoute(observed: media ? parsed.volume : nil)
            return
        }
        // Only presses (and sliders) in ordinary app audio; category changes carry other volumes.
        guard parsed.reason == .explicitVolumeChange,
            parsed.category == nil || parsed.category == VolumeChangeNotification.mediaCategory
        else { return }
        observe(parsed.volume)
    }

    /// A capture event (``ButtonStrategy/captureEvents``).
    func observe(_ event: CaptureEvent) {
        let now = clients.clock.now()
        // Primary = volume down, secondary = volume up (facts §3).
        let button: VolumeButton = event.source == .primary ? .down : .up
        run { state in
            guard state.isStarted, state.liveness.isAppActive else { return [] }
            state.lastCaptureEvent = now
            switch event.phase {
            case .began:
                state.captureEventDown = now
                return state.classifier.buttonDown(button, at: now).map(Work.emit)
            case .ended, .cancelled:
                var learned = [Work]()
                if event.phase == .ended, let began = state.captureEventDown {
                    learned = self.noted(state.calibration.tap(began: began, ended: now), &state)
                }
                state.captureEventDown = nil
                return state.classifier.buttonUp(button, at: now).map(Work.emit) + learned
            }
        }
    }

    /// The machines' deadline came: settles, retries and the classifier's hold timing.
    func tick() {
        followRoute()
        let now = clients.clock.now()
        // Sets are confirmed by reading too: a dropped set, or one that lands without KVO, is seen here.
        let live = shell.withState { $0.liveness.isSessionLive && $0.isStarted }
        let volume = live && configuration.strategy != .captureEvents ? clients.systemVolume.outputVolume() : nil
        var exhausted = false
        run(timerFired: true) { state in
            let learned = self.noted(state.calibration.quiet(at: now), &state)
            if let volume { state.lastObserved = volume }
            let steps = state.steps.tick(at: now, volume: volume)
            // The anchor set again while the volume sits at 0 or 1 (refused during a held down press, seed 000, or
            // dropped): presses there are not observed until it lands — the headroom is not there.
            let believed = state.steps.believedVolume
            if configuration.strategy == .outputVolume, configuration.mode == .capture, state.steps.phase == .running,
                believed <= 0 || believed >= 1,
                steps.contains(where: { if case .setVolume = $0 { true } else { false } })
            {
                exhausted = state.once.raise(.atRail)
            }
            return state.classifier.tick(at: now).map(Work.emit) + self.translate(steps, &state, at: now) + learned
        }
        if exhausted { onDiagnostic(.headroomExhausted) }
    }
}
