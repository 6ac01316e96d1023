import Foundation

/// Runs volume-button capture against the system's clients: feeds the pure machines
/// (``VolumeStepMachine``, ``PressClassifier``) with what the clients report, and carries out their
/// actions. Platform-free, so the exact code an iOS app runs is what the simulated device tests on Linux.
///
/// The iOS shell `VolumeButtons` (module `VolumeKit`) wraps one engine with the live clients.
///
/// Lifecycle rules:
/// - presses are handled only while the app is active; on resign-active the user's volume is put back and
///   on become-active the headroom is re-applied (seed 000's lifecycle);
/// - the session is re-activated on foreground and after an interruption, also when no `.ended` arrives
///   (seed 002; JPSVolumeButtonHandler #2, RedMadRobot/VolumeButtons #1, capacitor-community/volume-buttons);
///   while interrupted and active (Siri, an alarm that never sends an end: openradar 44895456) activation is
///   retried with backoff (``activationRetryDelays``), as long as the session mixes with others, so no other
///   app's audio is ever stopped;
/// - the route is read on every observation: a route's KVO may come before its notification, or without
///   one (RBVolumeButtons #18, openradar 35432156); one with no notification following is reported
///   (``VolumeButtonsDiagnostic/routeChangeNotNotified``), and sets still in flight when the route changes are
///   told from the new route's own volume (``VolumeStepMachine/routeVolume(read:observed:)``) — except one that
///   landed there over an own volume equal to the old route's (no KVO between equal values), which is reported
///   (``VolumeButtonsDiagnostic/routeVolumeUncertain``);
/// - capture that becomes ready while the session is interrupted starts only once it is live again (reads are
///   stale until then, seed 001), from the records as saved then (a launch recovery may have landed since);
/// - another component changing the session's category (a camera, a player, a web view) is detected on the
///   route-change notification it causes: the session is re-activated with the component's category kept,
///   and ``VolumeButtonsDiagnostic/sessionTakenOver(_:)`` is reported;
/// - ``stop(onStopped:)`` returns everything to normal: the user's volume restored, then the volume view removed,
///   the session's category restored, and the session deactivated only if the engine activated it;
/// - with ``ButtonStrategy/captureEvents`` the engine takes no audio session at all (no activation, category
///   or primer): the camera's own session stays as the app set it;
/// - after a media-services reset the category is set again, the session re-activated and re-primed.
public final class VolumeButtonsEngine: Sendable {
    private struct State {
        var steps: VolumeStepMachine
        var classifier: PressClassifier
        var subscriptions: [CancellationHandle] = []
        var volumeView: CancellationHandle?
        var timer = DeadlineTimer()
        var isStarted = false
        var isViewReady = false
        var isAppActive = true
        var isInterrupted = false
        /// Whether `outputVolume` reads are live: the session is active (seed 001: stale otherwise).
        var isSessionLive = false
        /// A route change seen while reads were stale, handled once they are live again.
        var pendingRoute: AudioOutput?
        /// Stopping without live reads: nothing can be restored safely now.
        var stopBlind = false
        /// Stopped before the volume view was ready, with an earlier run's record to give back on the route:
        /// the view is kept until it is ready, then only that record is restored.
        var restoresWhenReady = false
        var holdsLease = false
        /// The session's configuration as VolumeKit last saw it: a different category means another
        /// component took the session over.
        var sessionConfiguration: AudioSessionConfiguration?
        /// The pending activation retry while interrupted and active, and the next delay's index.
        var retry: CancellationHandle?
        var retryIndex = 0
        var reportedActivationFailure = false
        /// When the last capture event began (capture events: a volume change without one means the
        /// interaction does not receive presses).
        var lastCaptureEvent: Instant?
        var reportedCaptureEventsMissing = false
        /// The last value observed while capturing was 0 or 1, or the anchor was set again while the volume sat
        /// there: ``VolumeButtonsDiagnostic/headroomExhausted`` is raised each time the volume arrives at a rail
        /// (or is found stuck there), not again while it stays there.
        var observedAtRail = false
        /// A route change read before (or without) its notification, waiting for it; reported if it never comes.
        var unnotifiedRoute: AudioRoute?
        /// The output now: its route, and a Bluetooth headset's port UID (each keeps its own volume).
        var route = AudioOutput(route: .speaker)
        var records = PendingRestores()
        /// The lowest value VolumeKit set since the current route's record was last brought up to date, other
        /// than the user's own volume (``PendingRestore/lowestVolume``); `nil` when none.
        var lowestSet: Float?
        /// Whether the step machine has started in this run: until then the saved records are an earlier
        /// run's (a crash, a kill), still owed, and never dropped for what the idle machine believes.
        var stepsStarted = false
        var onReady: (@Sendable () -> Void)?
        var onStopped: (@Sendable () -> Void)?
        /// Keeps the engine alive from `stop()` until its teardown, even if the app lets go of it.
        var keepAlive: VolumeButtonsEngine?
        /// Whether this engine is a ``VolumeRecovery`` run (the others wait for it: ``VolumeHoldBoard/afterRecovery(_:)``).
        var isRecoveryRun = false
        /// The wait for a recovery run to end, with the volume view ready.
        var recoveryWait: CancellationHandle?
    }

    private enum Work {
        /// The order work is carried out in: saves, sets, callbacks, teardown.
        var rank: Int {
            switch self {
            case .save: 0
            case .setVolume: 1
            case .emit, .userVolume, .diagnose, .ready: 2
            case .tearDown: 3
            }
        }

        case setVolume(Float)
        case emit(VolumeButtonEvent)
        case userVolume(Float)
        case diagnose(VolumeButtonsDiagnostic)
        case save(PendingRestores)
        case ready(@Sendable () -> Void)
        case tearDown
    }

    /// How long to wait between activation retries while interrupted and active (the last one repeats).
    public static let activationRetryDelays: [TimeInterval] = [0.5, 1, 2]

    /// The configuration in force.
    public let configuration: VolumeButtonsConfiguration
    private let clients: VolumeKitClients
    private let onEvent: @Sendable (VolumeButtonEvent) -> Void
    /// The app's `onDiagnostic`, after the clients' ``VolumeKitClients/diagnosticObserver`` (a trace's recorder).
    private let onDiagnostic: @Sendable (VolumeButtonsDiagnostic) -> Void
    /// The app's `onDiagnostic` alone, for a recovery run on the same clients (its own engine tells the observer).
    private let appOnDiagnostic: @Sendable (VolumeButtonsDiagnostic) -> Void
    private let onUserVolume: @Sendable (Float) -> Void
    /// Tells a HUD on the same clients that capture holds the volume, and the user's level meanwhile
    /// (``VolumeHoldBoard``): started with capture, ready with the view, each user change, stopped at teardown.
    private let holdReporter: VolumeHoldReporter
    private let state: Locked<State>

    /// Creates an engine. `onEvent` receives every button event; `onUserVolume` each change of the user's
    /// own volume (Control Center, passive presses, another route); `onDiagnostic` problems that did not stop
    /// capture. All are called on the clients' callback thread (the main thread on iOS).
    public init(
        configuration: VolumeButtonsConfiguration = VolumeButtonsConfiguration(),
        clients: VolumeKitClients,
        onEvent: @escaping @Sendable (VolumeButtonEvent) -> Void,
        onUserVolume: @escaping @Sendable (Float) -> Void = { _ in },
        onDiagnostic: @escaping @Sendable (VolumeButtonsDiagnostic) -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.clients = clients
        self.onEvent = onEvent
        self.onUserVolume = onUserVolume
        let observer = clients.diagnosticObserver
        self.onDiagnostic = { diagnostic in
            observer(diagnostic)
            onDiagnostic(diagnostic)
        }
        appOnDiagnostic = onDiagnostic
        holdReporter = VolumeHoldReporter(configuration: configuration, clients: clients)
        state = Locked(
            State(steps: Self.steps(for: configuration), classifier: PressClassifier(timing: configuration.timing)))
    }

    private static func steps(for configuration: VolumeButtonsConfiguration) -> VolumeStepMachine {
        let usesNotification = configuration.strategy == .systemNotification
        return VolumeStepMachine(
            configuration: .init(
                mode: configuration.mode,
                headroomSteps: usesNotification ? 0 : configuration.headroomSteps,
                reportsPressesAtRails: usesNotification
            ))
    }

    private func freshSteps() -> VolumeStepMachine { Self.steps(for: configuration) }

    /// Whether capture is running (from ``start(onReady:)`` until ``stop(onStopped:)``).
    public var isStarted: Bool { state.withLock { $0.isStarted } }

    /// Whether presses are being captured: started, the app active, and — for the strategies that hold the
    /// volume — the volume view ready and the volume confirmed at its anchor.
    public var isCapturing: Bool {
        state.withLock { state in
            guard state.isStarted, state.isViewReady, state.isAppActive, !state.isInterrupted else { return false }
            if configuration.strategy == .captureEvents { return true }
            return state.steps.phase == .running && !state.steps.isSettling
        }
    }

    /// Whether VolumeKit is holding the volume still right now, so that presses are input and do not change
    /// the user's volume (capture mode, started, view ready, app active, not interrupted).
    public var isHoldingVolume: Bool {
        state.withLock {
            $0.isStarted && configuration.mode == .capture && $0.steps.phase == .running && $0.steps.hasVolumeControl
        }
    }

    /// The user's own volume as the engine knows it (restored on stop).
    public var userVolume: Float { state.withLock { $0.steps.userVolume } }

    /// Starts capture. Throws a ``VolumeButtonsError`` when the strategy cannot run here or the session cannot
    /// be activated. Presses are captured once the volume view is ready, a moment later: `onReady` runs then
    /// (see also ``isCapturing``).
    ///
    /// A user volume saved by an earlier run that crashed or was killed is given back first, by
    /// ``RecoveryRule``'s rule.
    public func start(onReady: (@Sendable () -> Void)? = nil) throws {
        guard !isStarted else { return }
        // A stop whose restore has not landed yet leaves its view and subscriptions: end them now. Its record
        // (kept while the volume is away from the user's) lets the new run get the user's volume right.
        if state.withLock({ $0.volumeView != nil || !$0.subscriptions.isEmpty }) { tearDown() }
        if configuration.strategy == .systemNotification, !configuration.allowsPrivateAPI {
            throw VolumeButtonsError.privateAPINotAllowed
        }
        if configuration.strategy == .captureEvents, !clients.captureEvents.isAvailable() {
            throw VolumeButtonsError.strategyUnavailable(.captureEvents)
        }
        let session = clients.audioSession
        // Capture events need no audio session: the camera app's stays exactly as the app set it.
        if usesSession {
            var failure: VolumeButtonsError?
            do {
                try clients.sessionLease.acquire(configuration.session, on: session)
            } catch {
                failure = .audioSession(String(describing: error))
            }
            if let failure { throw failure }
            // Before any audio has played, outputVolume is stale and KVO silent (seed 001).
            session.primeOutput()
        }
        let records = PendingRestores.load(from: clients.keyValueStore)
        let route = clients.audioSession.currentOutput()
        let sessionConfiguration = session.configuration()
        let appState = clients.lifecycle.state()
        let fresh = freshSteps()
        state.withLock {
            $0.steps = fresh
            $0.classifier = PressClassifier(timing: configuration.timing)
            $0.isStarted = true
            $0.records = records
            $0.stepsStarted = false
            $0.route = route
            $0.onReady = { [weak self] in
                if let self { self.holdReporter.ready(userVolume: self.userVolume) }
                onReady?()
            }
            $0.holdsLease = usesSession
            $0.isAppActive = appState == .active
            $0.isInterrupted = false
            $0.isSessionLive = true
            $0.pendingRoute = nil
            $0.stopBlind = false
            $0.restoresWhenReady = false
            $0.sessionConfiguration = sessionConfiguration
            $0.retryIndex = 0
            $0.reportedActivationFailure = false
            $0.lastCaptureEvent = nil
            $0.reportedCaptureEventsMissing = false
            $0.observedAtRail = false
            $0.unnotifiedRoute = nil
        }
        var subscriptions = [clients.lifecycle.observe { [weak self] event in self?.handle(event) }]
        switch configuration.strategy {
        case .outputVolume:
            subscriptions.append(
                clients.systemVolume.observeOutputVolume { [weak self] value in
                    self?.observe(value)
                })
        case .systemNotification:
            subscriptions.append(
                clients.systemVolume.observeSystemNotifications { [weak self] notification in
                    self?.observe(notification)
                })
        case .captureEvents:
            subscriptions.append(clients.captureEvents.observe { [weak self] event in self?.observe(event) })
            // A press that moves the volume did not reach the interaction (no running camera): report it.
            subscriptions.append(
                clients.systemVolume.observeOutputVolume { [weak self] _ in self?.captureEventsMissed() })
        }
        state.withLock { $0.subscriptions = subscriptions }
        // The volume at launch, before the view is ready: an earlier run's record is judged on it too.
        if usesSession, records[route] != nil {
            let volume = clients.systemVolume.outputVolume()
            let now = clients.clock.now()
            run { state in self.judgeBeforeStart(&state, volume: volume, at: now) }
        }
        holdReporter.started()
        if needsVolumeView {
            let view = clients.systemVolume.installVolumeView { [weak self] in self?.volumeViewReady() }
            state.withLock { $0.volumeView = view }
        } else {
            volumeViewReady()
        }
    }

    /// Stops capture and puts everything back; see the type's lifecycle rules. `onStopped` runs once the
    /// user's volume is back and everything is torn down — at once when capture is not running, and after
    /// the earlier stop when one is still finishing.
    public func stop(onStopped: (@Sendable () -> Void)? = nil) {
        // Not capturing: call back at once — or, while an earlier stop is still putting things back, when it
        // is done (a caller waiting for `onStopped`, e.g. to close a trace, was never called back).
        let notStarted = state.withLock { state -> Bool in
            guard !state.isStarted else { return false }
            guard state.keepAlive != nil else { return true }
            if let onStopped {
                let earlier = state.onStopped
                state.onStopped = {
                    earlier?()
                    onStopped()
                }
            }
            return false
        }
        if notStarted {
            onStopped?()
            return
        }
        // Reads are stale while the session is inactive (interruption, background): try to make them live so
        // the right route gets the right volume back. If that fails (a call holds the audio), nothing is set
        // and the saved records wait for the next start or recovery.
        if isStarted, !state.withLock({ $0.isSessionLive }) { refreshForStop() }
        followRoute()
        let now = clients.clock.now()
        // Read only when a stop before the view is ready may owe an earlier run's record (see below).
        let owes = state.withLock {
            $0.isStarted && !$0.stepsStarted && $0.volumeView != nil && $0.records[$0.route] != nil
        }
        let volume = owes ? clients.systemVolume.outputVolume() : nil
        run { state in
            guard state.isStarted else { return [] }
            state.isStarted = false
            state.onStopped = onStopped
            state.keepAlive = self
            var work = state.classifier.release(at: now).map(Work.emit)
            if state.steps.phase == .idle, !state.stopBlind, !state.stepsStarted, state.isViewReady,
                state.isSessionLive, configuration.mode == .capture, let volume
            {
                // The view was ready but the machine never started (the session was interrupted then; this stop
                // made reads live again): no second ready comes, so an earlier run's record is given back now, as
                // the next run would (a recovery run stuck here held every capture back: review of issue 11).
                if let recovered = recoveredUserVolume(&state, route: state.route, volume: volume, at: now, work: &work)
                {
                    state.stepsStarted = true
                    return work
                        + translate(
                            state.steps.restore(volume: volume, userVolume: recovered, at: now), &state, at: now)
                }
                return work + [.tearDown]
            }
            if state.steps.phase == .idle, !state.stopBlind, !state.stepsStarted, !state.isViewReady,
                state.volumeView != nil, configuration.mode == .capture, let volume,
                let record = state.records[state.route],
                case .restore = RecoveryRule.decide(
                    record, currentVolume: volume, uptime: now, bootTime: clients.device.bootTime)
            {
                // Stopped before the view was ready (sets need it) on a route an earlier run left away from the
                // user's volume: once it is ready, their volume is put back as the next run would.
                state.restoresWhenReady = true
            } else if state.steps.phase == .idle || state.stopBlind {
                work.append(.tearDown)
            } else {
                work += self.translate(state.steps.stop(at: now), &state, at: now)
            }
            return work
        }
    }

    // MARK: - Inputs

    /// Whether the strategy reads the volume, and so needs the audio session active and primed; capture
    /// events need no session at all (`AVCaptureEventInteraction` works under the camera's own).
    private var usesSession: Bool { configuration.strategy != .captureEvents }

    private var needsVolumeView: Bool {
        switch configuration.strategy {
        case .outputVolume: configuration.mode == .capture
        // From iOS 15 the notification fires only while an MPVolumeView exists (Signal-iOS; facts §2).
        case .systemNotification: true
        case .captureEvents: false
        }
    }

    private func volumeViewReady() {
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
        let route = state.withLock { $0.restoresWhenReady } ? clients.audioSession.currentOutput() : nil
        run { state in
            if !state.isStarted, state.restoresWhenReady, let route {
                state.restoresWhenReady = false
                state.isViewReady = true
                state.records = records
                state.route = route
                var work = [Work]()
                guard state.isSessionLive,
                    let recovered = recoveredUserVolume(&state, route: route, volume: volume, at: now, work: &work)
                else { return work + [.tearDown] }
                state.stepsStarted = true
                return work
                    + translate(state.steps.restore(volume: volume, userVolume: recovered, at: now), &state, at: now)
            }
            guard state.isStarted else { return [] }
            state.isViewReady = true
            state.records = records
            var work = [Work]()
            if let ready = state.onReady {
                state.onReady = nil
                work.append(.ready(ready))
            }
            return work + self.startSteps(&state, volume: volume, at: now)
        }
    }

    /// Ends a ``VolumeRecovery`` run at once (its watchdog): nothing more is set, its view, subscriptions and timers
    /// go and the session is released; the record stays for the next run.
    func abandon() {
        let running = state.withLock { state -> Bool in
            defer { state.isStarted = false }
            return state.isStarted || state.keepAlive != nil || !state.subscriptions.isEmpty
        }
        if running { tearDown() }
    }

    /// Marks this engine as a ``VolumeRecovery`` run: it gives the volume back while other engines wait.
    func markAsRecoveryRun() {
        state.withLock { $0.isRecoveryRun = true }
    }

    /// Whether the view became ready while a recovery run gives an earlier run's volume back (a launch recovery
    /// and a capture started at once): its sets would be read as presses here, and this engine's anchor as the
    /// user's change there (issue 11's review: four phantom presses). Capture then becomes ready once the
    /// recovery has ended, from the volume it left. Capture events never wait: they count no press from the volume
    /// (what they watch of it, for ``VolumeButtonsDiagnostic/captureEventsNotDelivered``, ignores recovery runs).
    private func waitsForRecovery() -> Bool {
        guard configuration.strategy != .captureEvents, !state.withLock({ $0.isRecoveryRun }) else { return false }
        let wait = clients.holdBoard.afterRecovery { [weak self] in
            guard let self else { return }
            let waited = self.state.withLock { state -> Bool in
                defer { state.recoveryWait = nil }
                return state.recoveryWait != nil
            }
            if waited { self.volumeViewReady() }
        }
        guard let wait else { return false }
        let stale = state.withLock { state -> CancellationHandle? in
            defer { state.recoveryWait = wait }
            return state.recoveryWait
        }
        stale?.cancel()
        return true
    }

    /// Starts the step machine once the view is ready and the session is not interrupted: while it is, the
    /// `outputVolume` read is stale (seed 001), and sets made from it would overwrite a change the user makes
    /// meanwhile (Control Center during the interruption). It starts when the session is re-activated.
    private func startSteps(_ state: inout State, volume: Float, at now: Instant) -> [Work] {
        guard configuration.strategy != .captureEvents, state.isViewReady, state.steps.phase == .idle,
            !state.isInterrupted
        else { return [] }
        var work = volumeControl(controlsVolume(), &state, at: now)
        let recovered = recoveredUserVolume(&state, route: state.route, volume: volume, at: now, work: &work)
        state.stepsStarted = true
        // In the background the anchor waits for the app to be active again (resume): setting it and the user's
        // volume back at once would overwrite presses made meanwhile.
        let started =
            state.isAppActive
            ? state.steps.start(volume: volume, userVolume: recovered, at: now)
            : state.steps.startSuspended(volume: volume, userVolume: recovered, at: now)
        return work + translate(started, &state, at: now)
    }

    /// Whether the current route lets VolumeKit hold the volume (capture, not passive mode or capture events).
    private func controlsVolume() -> Bool {
        configuration.mode != .capture || configuration.strategy == .captureEvents
            || clients.systemVolume.hasVolumeControl()
    }

    /// Tells the step machine whether the current route has volume control; reports
    /// ``VolumeButtonsDiagnostic/volumeControlUnavailable`` on entering one without.
    private func volumeControl(_ available: Bool, _ state: inout State, at now: Instant) -> [Work] {
        guard available != state.steps.hasVolumeControl else { return [] }
        let work = translate(state.steps.volumeControl(available: available, at: now), &state, at: now)
        return available ? work : [.diagnose(.volumeControlUnavailable)] + work
    }

    /// The route's KVO may come before its notification, or with none (and with no KVO either when both
    /// routes have the same volume): the route is read with every input. Returns whether it had changed.
    @discardableResult
    private func followRoute(observed: Float? = nil) -> Bool {
        let now = clients.clock.now()
        let route = clients.audioSession.currentOutput()
        let moved = state.withLock {
            $0.isSessionLive && $0.route != route && ($0.isStarted || $0.steps.phase != .idle)
        }
        guard moved else { return false }
        let volume = clients.systemVolume.outputVolume()
        run { state in
            state.unnotifiedRoute = route.route
            return self.changeRoute(to: route, volume: volume, observed: observed, &state, at: now)
        }
        awaitRouteNotification(route.route)
        return true
    }

    private func observe(_ value: Float) {
        let now = clients.clock.now()
        if followRoute(observed: value) {
            // The observation that showed the new route may be a set of ours landing there: its echo goes.
            run { state in self.translate(state.steps.observeAfterRouteChange(value, at: now), &state, at: now) }
            return
        }
        var exhausted = false
        run { state in
            // A route change waits for live reads (a call holds the session): the value is the new route's, read
            // with the change once it is handled — whole steps from the old route's volume (or its leftover
            // nudges) would be a coincidence, not presses (issue 11, sn-9585).
            if let pending = state.pendingRoute, pending != state.route { return [] }
            let work =
                self.judgeBeforeStart(&state, volume: value, at: now)
                + self.translate(state.steps.observe(value, at: now), &state, at: now)
            let capturing =
                configuration.strategy == .outputVolume && configuration.mode == .capture
                && state.steps.phase == .running
            let atRail = capturing && (value <= 0 || value >= 1)
            if atRail, !state.observedAtRail { exhausted = true }
            state.observedAtRail = atRail
            return work
        }
        if exhausted { onDiagnostic(.headroomExhausted) }
    }

    private func captureEventsMissed() {
        // A recovery run's sets (and their landings) are no press.
        guard !clients.holdBoard.isRecovering else { return }
        let now = clients.clock.now()
        let report = state.withLock { state -> Bool in
            guard state.isStarted, state.isAppActive, !state.reportedCaptureEventsMissing else { return false }
            if let last = state.lastCaptureEvent, now - last < 1 { return false }
            state.reportedCaptureEventsMissing = true
            return true
        }
        if report { onDiagnostic(.captureEventsNotDelivered) }
    }

    private func observe(_ notification: SystemVolumeNotification) {
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

    private func observe(_ event: CaptureEvent) {
        let now = clients.clock.now()
        // Primary = volume down, secondary = volume up (facts §3).
        let button: VolumeButton = event.source == .primary ? .down : .up
        run { state in
            guard state.isStarted, state.isAppActive else { return [] }
            state.lastCaptureEvent = now
            switch event.phase {
            case .began: return state.classifier.buttonDown(button, at: now).map(Work.emit)
            case .ended, .cancelled: return state.classifier.buttonUp(button, at: now).map(Work.emit)
            }
        }
    }

    private func handle(_ event: AppLifecycleEvent) {
        if case .routeChanged = event {} else { followRoute() }
        let now = clients.clock.now()
        switch event {
        case .willResignActive:
            run { state in
                state.isAppActive = false
                return self.pause(&state, at: now)
            }
        case .interruptionBegan:
            run { state in
                state.isInterrupted = true
                state.isSessionLive = false
                state.retryIndex = 0
                return self.pause(&state, at: now)
                    + self.translate(state.steps.assumeSetsLanded(at: now), &state, at: now)
            }
            scheduleActivationRetry()
        case .willEnterForeground:
            reactivate()
        case .didBecomeActive:
            run { state in
                state.isAppActive = true
                state.retryIndex = 0
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
            // The notification of a route change read before it — not a take-over's `.categoryChange` naming the
            // same route, which says nothing of how the route came to be (a camera starting 0.25 s after an
            // unnotified change hid it: 9202-72870638).
            let takeOver = clients.lifecycle.lastRouteChange()?.reason == "categoryChange"
            state.withLock { if $0.unnotifiedRoute == changed, !takeOver { $0.unnotifiedRoute = nil } }
            if usesSession, sessionWasTakenOver() { return }
            let current = clients.audioSession.currentOutput()
            let route = current.route == changed ? current : AudioOutput(route: changed)
            let volume = clients.systemVolume.outputVolume()
            run { state in
                guard state.isStarted || state.steps.phase != .idle else { return [] }
                // With the session inactive the volume read is stale (seed 001): decide once it is live.
                guard state.isSessionLive else {
                    state.pendingRoute = route
                    return []
                }
                return self.changeRoute(to: route, volume: volume, &state, at: now)
            }
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
                state.isSessionLive = false
                return self.translate(state.steps.assumeSetsLanded(at: now), &state, at: now)
            }
        }
    }

    /// How long a route's notification may follow its KVO (the gap is 0–20 ms in `shared/facts/envelope.md`,
    /// plus KVO latency): later, it is taken as missing.
    static let routeNotificationGrace: TimeInterval = 0.25

    /// A route change was read before its notification: reports ``VolumeButtonsDiagnostic/routeChangeNotNotified``
    /// if the notification does not follow within ``routeNotificationGrace`` (for each such change).
    private func awaitRouteNotification(_ route: AudioRoute) {
        _ = clients.clock.schedule(Self.routeNotificationGrace) { [weak self] in
            guard let self else { return }
            let missing = self.state.withLock { state -> Bool in
                guard state.isStarted, state.unnotifiedRoute == route else { return false }
                state.unnotifiedRoute = nil
                return true
            }
            if missing { self.onDiagnostic(.routeChangeNotNotified) }
        }
    }

    /// Whether another component took the session over (a route change with reason `.categoryChange` comes with
    /// it): if it changed the category, reports it and re-takes the session, keeping the category. A
    /// `.categoryChange` with the category as VolumeKit knew it is a component taking the session again (a
    /// second camera start, a player after a web view of the same category): the session is re-taken too, with
    /// nothing to report — the component's category is already the one VolumeKit keeps.
    private func sessionWasTakenOver() -> Bool {
        let current = clients.audioSession.configuration()
        let retakenAgain = clients.lifecycle.lastRouteChange()?.reason == "categoryChange"
        let changed = state.withLock { state -> Bool? in
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
                guard state.isStarted, state.isViewReady else { return [] }
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
    private func scheduleActivationRetry() {
        let mixes: Bool = {
            let session = clients.audioSession.configuration()
            return session.options.contains(.mixWithOthers) || session.category == .ambient
        }()
        let delay = state.withLock { state -> TimeInterval? in
            guard state.isStarted, state.isInterrupted, state.isAppActive, mixes, state.retry == nil else { return nil }
            let delays = Self.activationRetryDelays
            let delay = delays[min(state.retryIndex, delays.count - 1)]
            state.retryIndex += 1
            return delay
        }
        guard let delay else { return }
        let handle = clients.clock.schedule(delay) { [weak self] in
            guard let self else { return }
            self.state.withLock { $0.retry = nil }
            let due = self.state.withLock { $0.isStarted && $0.isInterrupted && $0.isAppActive }
            guard due else { return }
            self.reactivate()
            self.scheduleActivationRetry()
        }
        let stale = state.withLock { state -> CancellationHandle? in
            defer { state.retry = handle }
            return state.retry
        }
        stale?.cancel()
    }

    /// Capture pauses: a held button is released and the user's volume put back.
    private func pause(_ state: inout State, at now: Instant) -> [Work] {
        state.classifier.release(at: now).map(Work.emit) + translate(state.steps.suspend(at: now), &state, at: now)
    }

    /// The output moved to `route`, whose volume is `volume` (a live read); `observed` is the observation that
    /// showed the change, if one did (see ``VolumeStepMachine/routeVolume(read:observed:)``). `expectsObservation`
    /// is `false` when the route's KVO cannot come any more (the change happened while reads were stale).
    private func changeRoute(
        to route: AudioOutput, volume: Float, observed: Float? = nil, expectsObservation: Bool = true,
        _ state: inout State, at now: Instant
    ) -> [Work] {
        state.pendingRoute = nil
        guard route != state.route else { return [] }
        var work = [Work]()
        // The route we leave keeps its record only if VolumeKit left it away from the user's volume, or a set
        // of ours away from it may still land there (a nudge in flight): it can only be set again once it is
        // current (per-route volumes).
        let leftAway = state.steps.holdsVolumeAwayFromUser || state.steps.maySetAwayFromUser
        if state.stepsStarted, !leftAway, state.records[state.route] != nil {
            state.records[state.route] = nil
            work.append(.save(state.records))
        } else if state.stepsStarted, var record = state.records[state.route] {
            // A reset in flight lands on the new route: this one stays where it was last seen.
            record.leftVolume = state.steps.believedVolume
            record.lowestVolume = Self.lowest(
                held: record.heldVolume, left: record.leftVolume, existing: record, sets: state.lowestSet)
            state.records[state.route] = record
            work.append(.save(state.records))
        }
        state.route = route
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

    /// Re-activates the session (after an interruption, with or without `.ended`, and on foreground) and
    /// resumes capture when the app is active — unless that would stop audio the user started meanwhile
    /// (``SessionReactivation``: a category that does not mix, with other audio playing or an interruption
    /// ended without `.shouldResume`): then the session stays inactive until the next foreground, said once.
    private func reactivate(_ trigger: SessionReactivation.Trigger = .foreground) {
        guard isStarted else { return }
        if usesSession, case .wait(let hold) = SessionReactivation.decide(trigger, session: clients.audioSession) {
            reportActivationFailure(hold.description)
            return
        }
        do {
            try makeReadsLive { state, volume, now in
                state.isInterrupted = false
                guard state.isStarted, state.isAppActive, state.isViewReady else { return [] }
                return self.translate(state.steps.resume(volume: volume, at: now), &state, at: now)
            }
        } catch {
            reportActivationFailure(String(describing: error))
        }
    }

    /// Reports ``VolumeButtonsDiagnostic/sessionActivationFailed(_:)`` once until reads are live again.
    private func reportActivationFailure(_ reason: String) {
        let first = state.withLock { state -> Bool in
            defer { state.reportedActivationFailure = true }
            return !state.reportedActivationFailure
        }
        if first { onDiagnostic(.sessionActivationFailed(reason)) }
    }

    private func refreshForStop() {
        do {
            // The machine learns the live volume: a restore dropped while reads were stale is set again by the stop.
            try makeReadsLive(startsCapture: false) { state, volume, now in
                self.translate(state.steps.refresh(volume: volume, at: now), &state, at: now)
            }
        } catch {
            state.withLock { $0.stopBlind = true }
        }
    }

    /// Activates the session and primes output so `outputVolume` reads are live again (seed 001), handles a
    /// route change seen while they were stale, then runs `then` with the live volume. Throws what the session
    /// throws (a call holds the audio).
    private func makeReadsLive(
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
            let wasLive = state.isSessionLive
            state.isSessionLive = true
            state.reportedActivationFailure = false
            // The route read now is the one in force: a route change with no notification while reads were stale
            // is seen here, and so is a later one whose notification came with a take-over (the route noted from
            // an earlier notification is stale then).
            if state.pendingRoute != nil || route != state.route { state.pendingRoute = route }
            var work = [Work]()
            if let route = state.pendingRoute {
                // Routes changed while reads were stale and came back to one without volume control: its
                // presses show the system HUD again, said again for this change.
                if route == state.route, !self.controlsVolume() { work.append(.diagnose(.volumeControlUnavailable)) }
                // Its KVO came (or not) while reads were stale: none is still to come. With reads live all along
                // (a take-over noticed at the route change's own notification), it is still to come, after the
                // notification (`routeNotification=beforeKVO`): a step from the anchor then, not a press
                // (7800-61768201, 3058-24216303).
                work += self.changeRoute(to: route, volume: volume, expectsObservation: wasLive, &state, at: now)
            }
            work += then(&state, volume, now)
            // Capture waits for live reads to start (see startSteps); not for a stop.
            if startsCapture, state.isStarted { work += self.startSteps(&state, volume: volume, at: now) }
            return work
        }
    }

    private func tick() {
        followRoute()
        let now = clients.clock.now()
        // Sets are confirmed by reading too: a dropped set, or one that lands without KVO, is seen here.
        let live = state.withLock { $0.isSessionLive && $0.isStarted }
        let volume = live && configuration.strategy != .captureEvents ? clients.systemVolume.outputVolume() : nil
        var exhausted = false
        run { state in
            state.timer.fired()
            let steps = state.steps.tick(at: now, volume: volume)
            // The anchor set again while the volume sits at 0 or 1 (refused during a held down press, seed 000, or
            // dropped): presses there are not observed until it lands — the headroom is not there.
            let believed = state.steps.believedVolume
            if configuration.strategy == .outputVolume, configuration.mode == .capture, state.steps.phase == .running,
                believed <= 0 || believed >= 1, !state.observedAtRail,
                steps.contains(where: { if case .setVolume = $0 { true } else { false } })
            {
                state.observedAtRail = true
                exhausted = true
            }
            return state.classifier.tick(at: now).map(Work.emit) + self.translate(steps, &state, at: now)
        }
        if exhausted { onDiagnostic(.headroomExhausted) }
    }

    /// Applies ``RecoveryRule`` to the record saved for `route`, if any: the user's volume to give back, or
    /// `nil` (the record is dropped when the rule discards it).
    private func recoveredUserVolume(
        _ state: inout State, route: AudioOutput, volume: Float, at now: Instant, work: inout [Work]
    ) -> Float? {
        guard let record = state.records[route] else { return nil }
        switch RecoveryRule.decide(record, currentVolume: volume, uptime: now, bootTime: clients.device.bootTime) {
        case .restore(let userVolume):
            // Restored from a rail the crashed run left (outputVolume): a press toward it since was unseen.
            if configuration.strategy == .outputVolume, volume <= 0 || volume >= 1,
                abs(userVolume - volume) > VolumeStepMachine.readTolerance
            {
                work.append(.diagnose(.railPressesUnseen(volume <= 0 ? 0 : 1)))
            }
            // From exactly a set the crashed run never saw land: a grid press from its nudge may have ended there.
            if record.heldSetUnconfirmed == true, abs(volume - record.heldVolume) <= VolumeStepMachine.readTolerance {
                work.append(.diagnose(.recoveredAtUnconfirmedSet))
            }
            return userVolume
        case .discard:
            state.records[route] = nil
            work.append(.save(state.records))
            return nil
        }
    }

    /// Until the machine starts (the view is not ready yet), every read and observation of the volume is
    /// judged by ``RecoveryRule``: a change the rule takes for the user's (or a volume already at theirs) ends
    /// the record at once — their choice, made after launch, wins even if the volume later comes back to where
    /// VolumeKit left it (a press up, then down, before the view is ready). A set of the crashed run still
    /// landing is within the rule's band. Not while a recovery run gives the record back: its sets are not the
    /// user's change.
    private func judgeBeforeStart(_ state: inout State, volume: Float, at now: Instant) -> [Work] {
        guard state.isStarted, !state.stepsStarted, state.isRecoveryRun || !clients.holdBoard.isRecovering,
            let record = state.records[state.route],
            case .discard = RecoveryRule.decide(
                record, currentVolume: volume, uptime: now, bootTime: clients.device.bootTime)
        else { return [] }
        state.records[state.route] = nil
        return [.save(state.records)]
    }

    /// Keeps the current route's record in step with the machine (crash and kill safety): a record exists
    /// while VolumeKit holds the volume (a press may move it at any moment) or has left it away from the
    /// user's, and is written before any set it covers (saves are carried out first).
    private func syncRecord(_ state: inout State, at now: Instant) -> Work? {
        guard configuration.mode == .capture, configuration.strategy != .captureEvents, state.isViewReady,
            state.stepsStarted
        else {
            return nil
        }
        let steps = state.steps
        let existing = state.records[state.route]
        let sets = state.lowestSet
        state.lowestSet = nil
        guard steps.phase == .running || steps.holdsVolumeAwayFromUser else {
            guard existing != nil else { return nil }
            state.records[state.route] = nil
            return .save(state.records)
        }
        let held = steps.phase == .running ? steps.anchor : (existing?.heldVolume ?? steps.believedVolume)
        // While running, the volume is VolumeKit's wherever presses took it: presses faster than its resets
        // (refused during a down press, headroom used up) walk it away from the anchor, even to a rail, and are
        // reported as presses — the user's volume is unchanged. Where it is once more than one press away is
        // saved as where VolumeKit left it, so that a crash there still gives the user's volume back (one press
        // away is every press until its reset lands: not worth two writes a press, and RecoveryRule's stated
        // limit). Where VolumeKit once left the route before (`leftVolume` of a route change) no longer applies
        // once it holds the route again: a press to that value after a crash would be taken for VolumeKit's.
        let walked: Float? =
            steps.phase == .running
                && abs(steps.believedVolume - held) > VolumeStepMachine.step + VolumeStepMachine.stepTolerance
                && abs(steps.believedVolume - steps.userVolume) > VolumeStepMachine.readTolerance
            ? steps.believedVolume : nil
        let keepsLeft = steps.phase != .running
        // While a burst's nudge below the anchor is the last set, the anchor exactly is not where VolumeKit left
        // the route: a press snapped onto it after a crash is the user's (one write when a burst starts, one
        // before the anchor is set again once quiet).
        let nudged: Bool? = steps.isNudgedBelowAnchor ? true : nil
        // Once the anchor is set again, until it is seen to land: a crash may leave the nudge, or the anchor.
        let unconfirmed: Bool? = steps.isAnchorSetUnconfirmed ? true : nil
        let lowest = Self.lowest(
            held: held, left: keepsLeft ? existing?.leftVolume : walked, existing: existing, sets: sets)
        if let existing, existing.userVolume == steps.userVolume, existing.heldVolume == held,
            existing.lowestVolume == lowest,
            keepsLeft
                || (existing.leftVolume == walked && existing.nudgedBelowHeld == nudged
                    && existing.heldSetUnconfirmed == unconfirmed)
        {
            return nil
        }
        #if VOLUMEKIT_MUTANTS
        let saved = Mutant.isOn(.recordSavesAnchor) ? held : steps.userVolume
        #else
        let saved = steps.userVolume
        #endif
        var record = PendingRestore(
            userVolume: saved, heldVolume: held, savedAtUptime: now, bootTime: clients.device.bootTime,
            leftVolume: walked)
        record.nudgedBelowHeld = keepsLeft ? existing?.nudgedBelowHeld : nudged
        record.heldSetUnconfirmed = keepsLeft ? existing?.heldSetUnconfirmed : unconfirmed
        record.lowestVolume = lowest
        state.records[state.route] = record
        return .save(state.records)
    }

    /// The lowest value VolumeKit may have left a route at while holding it at `held`
    /// (``PendingRestore/lowestVolume``): the record's own while it holds the same value (`nil` stays `nil`: a
    /// record of an older version keeps today's rule), lowered to cover `sets`, the values set since. Values more
    /// than ``RecoveryRule/tolerance`` below both `held` and `left` (``PendingRestore/leftVolume``) are left out:
    /// the rule looks no lower (a restore's sets toward a user's volume far below, the nudge beside it). Stored a
    /// multiple of ``lowestGranularity`` below `held`, so a burst of down presses rewrites the record only at its
    /// first nudge (when ``PendingRestore/nudgedBelowHeld`` is written anyway) and every 8 nudges after.
    static func lowest(held: Float, left: Float?, existing: PendingRestore?, sets: Float?) -> Float? {
        var low = held
        if let existing, existing.heldVolume == held {
            guard let saved = existing.lowestVolume else { return nil }
            low = saved
        }
        guard let sets, sets < low, sets >= min(held, left ?? held) - RecoveryRule.tolerance else { return low }
        let below = ((held - sets) / lowestGranularity).rounded(.up)
        return max(0, held - below * lowestGranularity)
    }

    /// The step of a saved ``PendingRestore/lowestVolume``: 8 nudges (1/512).
    static let lowestGranularity: Float = 8 * VolumeStepMachine.nudge

    // MARK: - Carrying out actions

    private func translate(_ actions: VolumeStepMachine.Actions, _ state: inout State, at now: Instant) -> [Work] {
        var work = [Work]()
        for action in actions {
            switch action {
            case .setVolume(let value):
                // The user's own volume given back is theirs for ``RecoveryRule``, not a value VolumeKit leaves.
                if abs(value - state.steps.userVolume) > VolumeStepMachine.readTolerance {
                    state.lowestSet = min(state.lowestSet ?? value, value)
                }
                work.append(.setVolume(value))
            case .steps(let button, let count):
                for _ in 0..<count {
                    work += state.classifier.step(button, at: now).map(Work.emit)
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

    /// Runs `body` under the lock, reschedules the timer, then carries out the work outside the lock.
    private func run(_ body: (inout State) -> [Work]) {
        let now = clients.clock.now()
        var change: DeadlineTimer.Change?
        let work: [Work] = state.withLock { state in
            var work = body(&state)
            let synced = syncRecord(&state, at: now) != nil
            // One write of the final records, whatever changed them during this input.
            let saves = work.contains { if case .save = $0 { return true } else { return false } }
            if synced || saves {
                work.removeAll { if case .save = $0 { return true } else { return false } }
                work.insert(.save(state.records), at: 0)
            }
            change = state.timer.retarget(
                [state.steps.nextDeadline, state.classifier.nextDeadline].compactMap { $0 }.min(), now: now)
            return work
        }
        clients.clock.apply(
            change, fire: { [weak self] in self?.tick() }, adopt: { timer in state.withLock { $0.timer.adopt(timer) } })
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
            case .tearDown: tearDown()
            }
        }
    }

    private func tearDown() {
        state.withLock { state -> [CancellationHandle] in
            defer {
                state.retry = nil
                state.recoveryWait = nil
            }
            return [state.retry, state.recoveryWait].compactMap { $0 }
        }.forEach { $0.cancel() }
        let leftovers = state.withLock {
            state -> (
                subscriptions: [CancellationHandle], view: CancellationHandle?, timer: CancellationHandle?, lease: Bool,
                stopped: (@Sendable () -> Void)?
            ) in
            defer {
                state.keepAlive = nil
                state.onStopped = nil
                state.onReady = nil
                state.subscriptions = []
                state.volumeView = nil
                state.isViewReady = false
                state.holdsLease = false
            }
            return (state.subscriptions, state.volumeView, state.timer.reset(), state.holdsLease, state.onStopped)
        }
        leftovers.subscriptions.forEach { $0.cancel() }
        leftovers.view?.cancel()
        leftovers.timer?.cancel()
        // The last VolumeKit user gives the app's session back (see AudioSessionLease).
        if leftovers.lease { clients.sessionLease.release(on: clients.audioSession, clock: clients.clock) }
        holdReporter.stopped()
        // Records this run left for routes it could not set (the route changed while it held the volume) wait
        // for their route; the process's watch judges them as soon as it is current (VolumeRecovery).
        if usesSession { VolumeRecovery.watchWaitingRoutes(clients, onDiagnostic: appOnDiagnostic) }
        leftovers.stopped?()
    }
}
