#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where the HUD's level comes from.
public enum VolumeHUDLevelSource: String, Sendable, Equatable, CaseIterable {
    /// The user's volume: `outputVolume`, except while VolumeKit's button capture holds it — then the user's
    /// own level that capture reports (``VolumeHoldBoard``), never the anchor it holds.
    case systemVolume
    /// Only the levels the app gives (``VolumeHUDEngine/show(level:)``), e.g. a remote speaker's.
    case external
}

/// The custom volume HUD run against the system's clients: feeds ``VolumeHUDModel`` with the user's volume,
/// button events, the levels the app gives and the app's lifecycle, and carries out its actions on the
/// clients' clock. Platform-free, so the exact code an iPhone runs is what `SimulatedDevice` tests on Linux.
///
/// The iOS shell `VolumeHUD` (module `VolumeKit`) wraps one engine and draws what its `onDisplay` closure reports.
///
/// Rules:
/// - the level is the user's: with ``VolumeHUDLevelSource/systemVolume`` it follows `outputVolume`, except
///   while VolumeKit's button capture holds the volume (``VolumeHoldBoard``): then it shows the user's own
///   level capture reports and ignores `outputVolume` (VolumeKit's anchor and its ±1/16 nudges); while
///   capture takes presses as input (capture mode, capture events included) it ignores them: no bump;
/// - button events (``handle(_:)``) give the bump at a rail; the levels the app gives (``show(level:)``) always show;
/// - it reacts only while the app is active (seed 002 "问题二"); resigning active hides it at once;
/// - the system HUD is hidden through the shared volume view (`installVolumeView`), one for all of VolumeKit,
///   and only while the app's session is live: iOS shows its own HUD on a press otherwise, whatever the view;
/// - the session (``VolumeHUDOptions/sessionActivation``): by default, in an app that has none, it activates a
///   session that mixes with others (never stopping other apps' audio), or joins the one another VolumeKit
///   feature holds; an app's own category is left to the app. Holding it, it re-activates on foreground and
///   after interruptions, with or without `.ended` (seed 002; JPSVolumeButtonHandler #2), as
///   ``SessionReactivation`` allows (never over audio the user started meanwhile);
/// - ``isSystemHUDSuppressed`` is `true` only with the view ready *and* a session VolumeKit knows is live;
///   otherwise, once the view is ready, ``VolumeHUDDiagnostic/sessionNotLive(_:)`` says why.
public final class VolumeHUDEngine: Sendable {
    private struct State {
        var model: VolumeHUDModel
        var subscriptions: [CancellationHandle] = []
        var volumeView: CancellationHandle?
        var isViewReady = false
        var isRunning = false
        var holdsLease = false
        /// The HUD would hold the session but could not join it (a call held the audio): it tries again on return.
        var wantsLease = false
        /// The session was interrupted, reset or left in the background, and not made live again since.
        var sessionLost = false
        /// The session issue last reported, so that each is said once until the session is live again.
        var reportedIssue: VolumeHUDSessionIssue?
    }

    /// The options in force (``hideDelay`` may change).
    public let options: VolumeHUDOptions
    private let clients: VolumeKitClients
    private let board: VolumeHoldBoard
    private let onDisplay: @Sendable (VolumeHUDDisplay, Instant) -> Void
    private let onAnnouncement: @Sendable (String) -> Void
    private let onDiagnostic: @Sendable (VolumeHUDDiagnostic) -> Void
    private let shell: EngineShell<State>
    private let readiness: ReadinessWatch

    /// Creates a stopped HUD.
    /// - Parameters:
    ///   - options: level source, suppression, session activation, timing, language.
    ///   - clients: the system (live on iOS, `SimulatedDevice.clients` in tests).
    ///   - onDisplay: each display change, with its instant.
    ///   - onAnnouncement: each VoiceOver announcement, in ``VolumeHUDOptions/language``.
    ///   - onDiagnostic: problems that did not stop the HUD.
    ///   All are called on the clients' callback thread (the main thread on iOS).
    public init(
        options: VolumeHUDOptions = VolumeHUDOptions(),
        clients: VolumeKitClients,
        onDisplay: @escaping @Sendable (VolumeHUDDisplay, Instant) -> Void,
        onAnnouncement: @escaping @Sendable (String) -> Void = { _ in },
        onDiagnostic: @escaping @Sendable (VolumeHUDDiagnostic) -> Void = { _ in }
    ) {
        self.options = options
        self.clients = clients
        self.onDisplay = onDisplay
        self.onAnnouncement = onAnnouncement
        self.onDiagnostic = onDiagnostic
        board = clients.holdBoard
        readiness = ReadinessWatch(clock: clients.clock)
        shell = EngineShell(
            State(model: VolumeHUDModel(hideDelay: options.hideDelay, strings: options.strings)), clock: clients.clock
        ) { $0.isRunning ? $0.model.deadline : nil }
    }

    /// Whether ``start()`` was called without a matching ``stop()``.
    public var isRunning: Bool { shell.withState { $0.isRunning } }

    /// What the HUD shows now.
    public var display: VolumeHUDDisplay { shell.withState { $0.model.display } }

    /// Whether the system HUD stays hidden: the volume view that hides it is ready *and* the app's audio session
    /// is one VolumeKit knows to be live (held by this HUD or by another VolumeKit feature, and not interrupted
    /// since). Always `false` without suppression. When the view is ready but the session is not known to be live,
    /// ``VolumeHUDDiagnostic/sessionNotLive(_:)`` was reported.
    public var isSystemHUDSuppressed: Bool {
        let users = clients.sessionLease.users
        return shell.withState { $0.isViewReady && Self.isLive($0, leaseUsers: users) }
    }

    /// Whether the session is known live: held by this HUD or another VolumeKit user, and not lost since.
    private static func isLive(_ state: State, leaseUsers: Int) -> Bool {
        !state.sessionLost && (state.holdsLease || leaseUsers > 0)
    }

    /// Seconds the HUD stays after the last change; takes effect at the next change.
    public var hideDelay: TimeInterval {
        get { shell.withState { $0.model.hideDelay } }
        set { shell.withState { $0.model.hideDelay = max(0, newValue.isFinite ? newValue : $0.model.hideDelay) } }
    }

    /// Starts following the volume and the app, and hides the system HUD.
    public func start() {
        guard
            shell.withState({ state in
                guard !state.isRunning else { return false }
                state.isRunning = true
                state.reportedIssue = nil
                return true
            })
        else { return }
        let join = sessionToJoin()
        let holdsLease = join.map { self.join(with: $0, .foreground) } ?? false
        let level = currentLevel()
        let isActive = clients.lifecycle.state() == .active
        shell.withState { state in
            let model = VolumeHUDModel(
                level: level, hideDelay: state.model.hideDelay, isAppActive: isActive, strings: state.model.strings)
            state.model = model
            state.holdsLease = holdsLease
            state.wantsLease = join != nil && !holdsLease
            state.sessionLost = false
            state.isViewReady = false
        }
        var subscriptions = [
            clients.lifecycle.observe { [weak self] event in self?.handle(event) },
            board.observe { [weak self] event in self?.handle(event) },
        ]
        if options.levelSource == .systemVolume {
            subscriptions.append(clients.systemVolume.observeOutputVolume { [weak self] value in self?.observe(value) })
        }
        shell.withState { $0.subscriptions = subscriptions }
        guard options.suppressesSystemHUD else { return }
        let timeout = options.readinessTimeout
        readiness.start(timeout: timeout) { [weak self] in self?.onDiagnostic(.volumeViewNotReady(after: timeout)) }
        let view = clients.systemVolume.installVolumeView { [weak self] in self?.volumeViewReady() }
        let kept = shell.withState { state -> Bool in
            guard state.isRunning, state.volumeView == nil else { return false }
            state.volumeView = view
            return true
        }
        if !kept { view.cancel() }
    }

    /// Hides the HUD, gives the system HUD back and stops following.
    public func stop() {
        let now = clients.clock.now()
        let leftovers = shell.withState {
            state -> (handles: [CancellationHandle], lease: Bool, actions: [VolumeHUDAction])? in
            guard state.isRunning else { return nil }
            state.isRunning = false
            let actions = state.model.dismiss(at: now)
            defer {
                state.subscriptions = []
                state.volumeView = nil
                state.isViewReady = false
                state.holdsLease = false
                state.wantsLease = false
            }
            let handles = state.subscriptions + [state.volumeView].compactMap { $0 }
            return (handles, state.holdsLease, actions)
        }
        guard let leftovers else { return }
        shell.resetTimer()?.cancel()
        readiness.cancel()
        leftovers.handles.forEach { $0.cancel() }
        carryOut(leftovers.actions.filter { if case .display = $0 { return true } else { return false } }, at: now)
        if leftovers.lease { clients.sessionLease.release(on: clients.audioSession, clock: clients.clock) }
    }

    /// Shows the HUD at `level` (0…1) from any source — the app's slider, a remote speaker — even if it
    /// equals the level shown.
    public func show(level: Float) {
        run { $0.showLevel(level, at: $1) }
    }

    /// Feeds a hardware button event: a press at a rail shows the bump. Its instant is replaced by the
    /// clients' clock. Ignored while capture takes presses as input and the level is the system's (the
    /// press was the app's — a shutter, a page turn —, the user's level did not move).
    public func handle(_ event: VolumeButtonEvent) {
        guard event.phase != .released else { return }
        if options.levelSource == .systemVolume, board.isCapturingPresses || board.isHeld { return }
        run { $0.buttonPressed(event.button, at: $1) }
    }

    /// Hides the HUD now.
    public func dismiss() {
        run { $0.dismiss(at: $1) }
    }

    // MARK: - Inputs

    /// The user's level now: the held user volume while capture holds it, else `outputVolume`.
    private func currentLevel() -> Float? {
        guard options.levelSource == .systemVolume else { return nil }
        if board.isHeld { return board.heldUserVolume }
        return clients.systemVolume.outputVolume()
    }

    private func observe(_ value: Float) {
        // While capture holds the volume, `outputVolume` is VolumeKit's anchor, not the user's level; while a
        // recovery gives an earlier run's volume back, its sets (nudges included) are not the user's change.
        guard !board.isHeld, !board.isRecovering else { return }
        run { $0.levelChanged(value, at: $1) }
    }

    private func handle(_ event: VolumeHoldEvent) {
        guard options.levelSource == .systemVolume else { return }
        switch event {
        case .began(let volume?), .userVolume(let volume, byUser: false):
            run { model, _ in model.levelKnown(volume) }
        case .userVolume(let volume, byUser: true):
            run { $0.levelChanged(volume, at: $1) }
        case .ended:
            // The user's volume is back on the device: read it without showing (it is what was drawn).
            guard !board.isHeld else { return }
            let volume = clients.systemVolume.outputVolume()
            run { model, _ in model.levelKnown(volume) }
        case .began(nil):
            break
        }
    }

    private func handle(_ event: AppLifecycleEvent) {
        switch event {
        case .willResignActive:
            run { $0.appResignedActive(at: $1) }
        case .didBecomeActive:
            reactivate(.foreground)
            let level = currentLevel()
            run { $0.appBecameActive(level: level, at: $1) }
        case .willEnterForeground:
            reactivate(.foreground)
        case .interruptionEnded(let shouldResume):
            reactivate(.interruptionEnded(shouldResume: shouldResume))
        case .mediaServicesWereReset:
            // The category and activation are lost (`shared/facts/envelope.md`): set them again, re-prime.
            shell.withState { $0.sessionLost = true }
            if shell.withState({ $0.isRunning && $0.holdsLease }) {
                try? clients.sessionLease.reapplyAfterMediaReset(on: clients.audioSession)
            }
            reactivate(.mediaServicesReset)
        case .interruptionBegan, .didEnterBackground:
            // iOS deactivated the session (an interruption) or will once the app is suspended (seed 002).
            shell.withState { $0.sessionLost = true }
        case .routeChanged:
            break
        }
    }

    // MARK: - The session

    /// What the HUD joins VolumeKit's hold on the session with (a configuration to set, or `nil` to keep the
    /// app's), or `nil` when it leaves the session alone (``VolumeHUDSessionActivation``).
    private func sessionToJoin() -> AudioSessionConfiguration?? {
        let activation = options.sessionActivation
        guard activation != .never, options.needsLiveSession || activation == .always else { return nil }
        // Another VolumeKit feature holds the session: join it as it is.
        if clients.sessionLease.users > 0 { return .some(nil) }
        // The app has no session of its own: one that mixes, so no other app's audio stops (VolumeBar #1).
        if clients.audioSession.configuration() == .systemDefault { return .some(.playbackMixing) }
        return activation == .always ? .some(nil) : nil
    }

    /// Joins the lease; returns whether it did.
    /// Activating the app's own session as it is follows ``SessionReactivation`` too: not over other apps' audio.
    private func join(with configuration: AudioSessionConfiguration?, _ trigger: SessionReactivation.Trigger) -> Bool {
        if configuration == nil, clients.sessionLease.users == 0,
            case .wait(let hold) = SessionReactivation.decide(trigger, session: clients.audioSession)
        {
            report(.reactivationHeld(hold))
            return false
        }
        do {
            try clients.sessionLease.acquire(configuration, on: clients.audioSession)
            // Before any audio has played, outputVolume is stale and KVO silent (seed 001).
            clients.audioSession.primeOutput()
            return true
        } catch {
            onDiagnostic(.sessionActivationFailed(String(describing: error)))
            return false
        }
    }

    /// Makes the session live again on return (after an interruption, with or without `.ended`, and on
    /// foreground) when the HUD holds the lease, as ``SessionReactivation`` allows, so `outputVolume` is live
    /// and the system HUD hidden. Without the lease, another VolumeKit feature holding the session does the same
    /// by the same rule; a HUD that could not join at start tries again.
    private func reactivate(_ trigger: SessionReactivation.Trigger) {
        guard let (holds, wants) = shell.withState({ $0.isRunning ? ($0.holdsLease, $0.wantsLease) : nil }) else {
            return
        }
        if !holds, wants {
            let joined = sessionToJoin().map { join(with: $0, trigger) } ?? false
            shell.withState { state in
                guard state.isRunning, joined else { return }
                state.holdsLease = true
                state.wantsLease = false
                state.sessionLost = false
                state.reportedIssue = nil
            }
            if joined { return }
        }
        // Without the lease and with no other VolumeKit user, nothing is known live (said once the view was ready).
        guard holds || clients.sessionLease.users > 0 else { return }
        if case .wait(let hold) = SessionReactivation.decide(trigger, session: clients.audioSession) {
            report(.reactivationHeld(hold))
            return
        }
        if holds {
            do {
                try clients.audioSession.setActive(true, false)
                clients.audioSession.primeOutput()
            } catch {
                onDiagnostic(.sessionActivationFailed(String(describing: error)))
                return
            }
        }
        shell.withState { state in
            state.sessionLost = false
            state.reportedIssue = nil
        }
    }

    /// Reports ``VolumeHUDDiagnostic/sessionNotLive(_:)`` when the view is ready and no live session is known.
    private func checkSession() {
        let users = clients.sessionLease.users
        // A HUD that would hold the session but could not join it said why already.
        let ready = shell.withState {
            $0.isRunning && $0.isViewReady && !$0.wantsLease && !Self.isLive($0, leaseUsers: users)
        }
        guard ready else { return }
        if options.sessionActivation == .never {
            report(.activationOff)
        } else {
            report(.appOwnsSession(clients.audioSession.configuration().category))
        }
    }

    /// Reports a session issue once (again only after the session was live in between).
    private func report(_ issue: VolumeHUDSessionIssue) {
        let new = shell.withState { state -> Bool in
            guard state.isRunning, state.reportedIssue != issue else { return false }
            state.reportedIssue = issue
            return true
        }
        if new { onDiagnostic(.sessionNotLive(issue)) }
    }

    private func volumeViewReady() {
        let running = shell.withState { state -> Bool in
            guard state.isRunning else { return false }
            state.isViewReady = true
            return true
        }
        guard running else { return }
        readiness.ready()
        checkSession()
    }

    private func tick() {
        run { model, now in
            model.tick(at: now)
        }
    }

    // MARK: - Carrying out actions

    /// Runs one model input under the lock, retargets the hide timer, then carries out the actions outside it.
    private func run(_ input: (inout VolumeHUDModel, Instant) -> [VolumeHUDAction]) {
        let now = clients.clock.now()
        let fire: @Sendable () -> Void = { [weak self] in self?.fired() }
        let actions = shell.perform(fire: fire) { state, _ -> [VolumeHUDAction] in
            guard state.isRunning else { return [] }
            return input(&state.model, now)
        }
        carryOut(actions, at: now)
    }

    private func fired() {
        shell.timerFired()
        tick()
    }

    private func carryOut(_ actions: [VolumeHUDAction], at now: Instant) {
        for action in actions {
            switch action {
            case .display(let display): publish(display, at: now)
            case .announce(let text): onAnnouncement(text)
            }
        }
    }

    private func publish(_ display: VolumeHUDDisplay, at now: Instant) {
        onDisplay(display, now)
    }
}
