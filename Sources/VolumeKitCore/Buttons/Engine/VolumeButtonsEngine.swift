#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
/// - the route is read on every observation and every 50 ms (`routePollInterval`): a route's KVO may come
///   before its notification, or without one, and between routes at one volume there is no KVO either
///   (RBVolumeButtons #18, openradar 35432156); one with no notification following is reported
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
///
/// The engine is a shell (`EngineShell`) over pure parts, one idea each: `CaptureLifecycle` (its phases),
/// `CaptureLiveness`, `RouteFollower`, `RestoreBook` (crash records), `OnceDiagnostics` and
/// `ActivationRetry`; its files are split by input: start and stop here, the volume view's readiness, the
/// volume's inputs, the app's lifecycle and session, routes, and carrying out the machines' work.
public final class VolumeButtonsEngine: Sendable {
    struct State {
        var steps: VolumeStepMachine
        var classifier: PressClassifier
        var lifecycle = CaptureLifecycle.idle
        var view = VolumeViewState.absent
        var subscriptions: [CancellationHandle] = []
        var liveness = CaptureLiveness()
        var routes = RouteFollower()
        var book = RestoreBook()
        var once = OnceDiagnostics()
        /// The session's configuration as VolumeKit last saw it: a different category means another
        /// component took the session over.
        var sessionConfiguration: AudioSessionConfiguration?
        var retry = ActivationRetry()
        /// When the last capture event began (capture events: a volume change without one means the
        /// interaction does not receive presses).
        var lastCaptureEvent: Instant?
        /// The wait for a recovery run to end, with the volume view ready.
        var recoveryWait: CancellationHandle?
        /// The volume last observed (or read when the view was told ready): what a press would have moved from.
        var lastObserved: Float?
        /// What this phone has shown of its rules so far (``CalibrationMachine``).
        var calibration = CalibrationMachine()
        /// Whether the calibration this run started from had shown the phone refusing sets during a down press
        /// (``CalibrationMachine/refusesSetsDuringDownPress``): what the headroom and the aim of down bursts follow in
        /// this run. Learned during the run, it is used from the next start (``VolumeButtonsEngine/adaptHeadroom(_:)``).
        var refusesAtStart = false
        /// When the current capture event's press began.
        var captureEventDown: Instant?
        /// The streams of ``calibrationUpdates()``, by their id.
        var calibrationWatchers: [UUID: AsyncStream<CalibrationMachine>.Continuation] = [:]

        var isStarted: Bool { lifecycle.isStarted }
    }

    /// How long to wait between activation retries while interrupted and active (the last one repeats).
    public static let activationRetryDelays: [TimeInterval] = [0.5, 1, 2]

    /// The configuration in force.
    public let configuration: VolumeButtonsConfiguration
    let clients: VolumeKitClients
    let onEvent: @Sendable (VolumeButtonEvent) -> Void
    /// The app's `onDiagnostic`, after the clients' ``VolumeKitClients/diagnosticObserver`` (a trace's recorder).
    let onDiagnostic: @Sendable (VolumeButtonsDiagnostic) -> Void
    /// The app's `onDiagnostic` alone, for a recovery run on the same clients (its own engine tells the observer).
    let appOnDiagnostic: @Sendable (VolumeButtonsDiagnostic) -> Void
    let onUserVolume: @Sendable (Float) -> Void
    /// Tells a HUD on the same clients that capture holds the volume, and the user's level meanwhile
    /// (``VolumeHoldBoard``): started with capture, ready with the view, each user change, stopped at teardown.
    let holdReporter: VolumeHoldReporter
    /// Whether this engine is a ``VolumeRecovery`` run (the others wait for it: ``VolumeHoldBoard/afterRecovery(_:)``).
    let isRecoveryRun: Bool
    let shell: EngineShell<State>

    /// Creates an engine. `onEvent` receives every button event; `onUserVolume` each change of the user's
    /// own volume (Control Center, passive presses, another route); `onDiagnostic` problems that did not stop
    /// capture. All are called on the clients' callback thread (the main thread on iOS).
    public convenience init(
        configuration: VolumeButtonsConfiguration = VolumeButtonsConfiguration(),
        clients: VolumeKitClients,
        onEvent: @escaping @Sendable (VolumeButtonEvent) -> Void,
        onUserVolume: @escaping @Sendable (Float) -> Void = { _ in },
        onDiagnostic: @escaping @Sendable (VolumeButtonsDiagnostic) -> Void = { _ in }
    ) {
        self.init(
            configuration: configuration, clients: clients, isRecoveryRun: false, onEvent: onEvent,
            onUserVolume: onUserVolume, onDiagnostic: onDiagnostic)
    }

    /// Creates an engine; `isRecoveryRun` for ``VolumeRecovery``'s own run.
    init(
        configuration: VolumeButtonsConfiguration, clients: VolumeKitClients, isRecoveryRun: Bool,
        onEvent: @escaping @Sendable (VolumeButtonEvent) -> Void,
        onUserVolume: @escaping @Sendable (Float) -> Void = { _ in },
        onDiagnostic: @escaping @Sendable (VolumeButtonsDiagnostic) -> Void
    ) {
        self.configuration = configuration
        self.clients = clients
        self.isRecoveryRun = isRecoveryRun
        self.onEvent = onEvent
        self.onUserVolume = onUserVolume
        let observer = clients.diagnosticObserver
        self.onDiagnostic = { diagnostic in
            observer(diagnostic)
            onDiagnostic(diagnostic)
        }
        appOnDiagnostic = onDiagnostic
        holdReporter = VolumeHoldReporter(configuration: configuration, clients: clients)
        shell = EngineShell(
            State(steps: Self.steps(for: configuration), classifier: PressClassifier(timing: configuration.timing)),
            clock: clients.clock
        ) { state in
            [state.steps.nextDeadline, state.classifier.nextDeadline, state.view.provenAt].compactMap { $0 }.min()
        }
    }

    /// The step machine's configured retry (``steps(for:)`` sets none of its own): what ``RetryWindow`` shortens
    /// once the phone's round trip is measured.
    static let configuredSteps = VolumeStepMachine.Configuration()

    static func steps(for configuration: VolumeButtonsConfiguration) -> VolumeStepMachine {
        let usesNotification = configuration.strategy == .systemNotification
        return VolumeStepMachine(
            configuration: .init(
                mode: configuration.mode,
                headroomSteps: usesNotification ? 0 : configuration.headroomSteps,
                reportsPressesAtRails: usesNotification
            ))
    }

    /// Whether capture is running (from ``start(onReady:)`` until ``stop(onStopped:)``).
    public var isStarted: Bool { shell.withState { $0.isStarted } }

    /// Whether presses are being captured: started, the app active, and — for the strategies that hold the
    /// volume — the volume view proven ready (``VolumeViewReadiness``) and the volume confirmed at its anchor.
    public var isCapturing: Bool {
        shell.withState { state in
            guard state.isStarted, state.view.isProven, state.liveness.isAppActive, !state.liveness.isInterrupted
            else { return false }
            if configuration.strategy == .captureEvents { return true }
            return state.steps.phase == .running && !state.steps.isSettling
        }
    }

    /// Whether VolumeKit is holding the volume still right now, so that presses are input and do not change
    /// the user's volume (capture mode, started, view ready, app active, not interrupted).
    public var isHoldingVolume: Bool {
        shell.withState {
            $0.isStarted && configuration.mode == .capture && $0.steps.phase == .running && $0.steps.hasVolumeControl
        }
    }

    /// The user's own volume as the engine knows it (restored on stop).
    public var userVolume: Float { shell.withState { $0.steps.userVolume } }

    /// What capture has learned of this phone so far: the round trip of VolumeKit's sets, a hold's rhythm, the
    /// tap length, the step quantization (``CalibrationMachine``). Measured from what capture sees anyway.
    public var calibration: CalibrationMachine { shell.withState { $0.calibration } }

    /// The calibration each time it learns something (a measurement inside the envelope, or one kept apart
    /// outside it), until the stream's consumer is cancelled; the newest only when the consumer falls behind.
    public func calibrationUpdates() -> AsyncStream<CalibrationMachine> {
        AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let id = UUID()
            shell.withState { $0.calibrationWatchers[id] = continuation }
            continuation.onTermination = { [weak self] _ in
                self?.shell.withState { _ = $0.calibrationWatchers.removeValue(forKey: id) }
            }
        }
    }

    /// Whether the strategy reads the volume, and so needs the audio session active and primed; capture
    /// events need no session at all (`AVCaptureEventInteraction` works under the camera's own).
    var usesSession: Bool { configuration.strategy != .captureEvents }

    var needsVolumeView: Bool {
        switch configuration.strategy {
        case .outputVolume: configuration.mode == .capture
        // From iOS 15 the notification fires only while an MPVolumeView exists (Signal-iOS; facts §2).
        case .systemNotification: true
        case .captureEvents: false
        }
    }

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
        if shell.withState({ $0.view.handle != nil || !$0.subscriptions.isEmpty }) { tearDown() }
        try checkStrategy()
        if usesSession {
            do {
                try clients.sessionLease.acquire(configuration.session, on: clients.audioSession)
            } catch {
                throw VolumeButtonsError.audioSession(String(describing: error))
            }
            // Before any audio has played, outputVolume is stale and KVO silent (seed 001).
            clients.audioSession.primeOutput()
        }
        let records = PendingRestores.load(from: clients.keyValueStore)
        // What an earlier run learned of this phone (same model and iOS version); a recovery run learns nothing.
        let learned = isRecoveryRun ? nil : CalibrationStore.load(for: clients.device, from: clients.keyValueStore)
        let route = clients.audioSession.currentOutput()
        let sessionConfiguration = clients.audioSession.configuration()
        let appState = clients.lifecycle.state()
        // What this run starts from: the stored calibration, else what this engine learned in earlier runs — the
        // headroom and the press rhythm this phone needs from the start.
        var calibration = learned ?? shell.withState { $0.calibration }
        // Its sets land on the route read here; a route change tells it again (`changeRoute`).
        calibration.setRoute(route.route, at: clients.clock.now())
        var fresh = Self.steps(for: configuration)
        let refuses = calibration.refusesSetsDuringDownPress
        if !isRecoveryRun {
            fresh.headroom(headroom(for: calibration, refusing: refuses))
            fresh.aimResets(roundTrip: aimRoundTrip(for: calibration, refusing: refuses))
        }
        shell.withState {
            $0.steps = fresh
            $0.calibration = calibration
            $0.refusesAtStart = refuses
            $0.classifier = PressClassifier(timing: timing(for: calibration))
            $0.classifier.ambiguousStep = configuration.ambiguousStep
            $0.lifecycle = .started(onReady: { [weak self] in
                if let self { self.holdReporter.ready(userVolume: self.userVolume) }
                onReady?()
            })
            $0.book.records = records
            $0.book.owner = .earlierRun
            $0.routes = RouteFollower(route: route)
            $0.liveness = CaptureLiveness(isAppActive: appState == .active, isInterrupted: false, isSessionLive: true)
            $0.sessionConfiguration = sessionConfiguration
            $0.retry.index = 0
            $0.lastCaptureEvent = nil
            $0.once = []
        }
        let subscriptions = subscribe()
        shell.withState { $0.subscriptions = subscriptions }
        // The volume at launch, before the view is ready: an earlier run's record is judged on it too.
        if usesSession, records[route] != nil {
            let volume = clients.systemVolume.outputVolume()
            let now = clients.clock.now()
            run { state in self.judgeBeforeStart(&state, volume: volume, at: now) }
        }
        holdReporter.started()
        if needsVolumeView {
            let view = clients.systemVolume.installVolumeView { [weak self] in self?.volumeViewReady() }
            let now = clients.clock.now()
            shell.withState { $0.view = .installing(view, since: now) }
        } else {
            volumeViewReady()
        }
    }

    /// Throws when the configured strategy cannot run here.
    private func checkStrategy() throws {
        if configuration.strategy == .systemNotification, !configuration.allowsPrivateAPI {
            throw VolumeButtonsError.privateAPINotAllowed
        }
        if configuration.strategy == .captureEvents, !clients.captureEvents.isAvailable() {
            throw VolumeButtonsError.strategyUnavailable(.captureEvents)
        }
    }

    /// The run's subscriptions: the app's lifecycle and the strategy's own input.
    private func subscribe() -> [CancellationHandle] {
        var subscriptions = [clients.lifecycle.observe { [weak self] event in self?.handle(event) }]
        switch configuration.strategy {
        case .outputVolume:
            subscriptions.append(clients.systemVolume.observeOutputVolume { [weak self] value in self?.observe(value) })
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
        // The route, read between inputs too: its change may come with no notification and, between routes at one
        // volume, no KVO (``routePollInterval``).
        subscriptions.append(
            clients.clock.repeating(every: Self.routePollInterval) { [weak self] in
                self?.pollRoute()
            })
        return subscriptions
    }
}
