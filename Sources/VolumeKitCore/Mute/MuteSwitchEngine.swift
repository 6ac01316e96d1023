#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Runs Ring/Silent switch detection against the system's clients: feeds ``MuteMonitor`` (and its
/// ``MuteProbe``s) and ``RealVolumeTracker`` with what the clients report, and carries out their actions.
/// Platform-free, so the exact code an iOS app runs is what the simulated device tests on Linux.
///
/// The iOS shell `MuteSwitch` (module `VolumeKit`) wraps one engine with the live clients and the bundled
/// silent sound.
///
/// - The sound is played with `AudioServicesPlaySystemSoundWithCompletion` (``SystemSoundClient/play``),
///   whose completion arrives on a serial queue, not the main run loop: the completion's time is read right
///   there, so a busy main thread cannot inflate it (Sharkfood's `AudioServicesAddSystemSoundCompletion` on
///   the main run loop could; `shared/facts/mute-switch.md` §2). The sound is a UI sound, as in every anchor.
/// - With `observesVolume`, the engine reads and observes the output volume for the real volume and volume
///   changes. That needs an active session that has played audio (seed 001). An app still on the default
///   `.soloAmbient` is moved to `.ambient` before activation — it mixes, so other apps keep playing, and the
///   switch silences it, so "real volume 0 while silent" holds for its audio; ``stop()`` restores the
///   category and deactivates the session with `.notifyOthersOnDeactivation`. A session the app set up
///   itself is only activated, never changed.
/// - On foreground the session is re-activated and the volume re-read: iOS does not report changes made
///   while the app was in the background (Apple forums 813242, `shared/facts/mute-switch.md` §2).
public final class MuteSwitchEngine: Sendable {
    private struct State {
        var monitor: MuteMonitor
        var volume = RealVolumeTracker()
        var soundID: SystemSoundID?
        var soundFailed = false
        var requests: [MuteMonitor.RequestID: @Sendable (MuteState) -> Void] = [:]
        var nextRequest = 0
        var subscriptions: [CancellationHandle] = []
        var holdsLease = false
    }

    private enum Work {
        case play(Int)
        case report(MuteStateChange)
        case answer([@Sendable (MuteState) -> Void], MuteState)
        case volume(RealVolumeTracker.Action)
    }

    /// The monitor's configuration.
    public let configuration: MuteMonitor.Configuration
    /// Whether ``start()`` also reports the real volume and volume changes.
    public let observesVolume: Bool
    private let soundURL: URL
    private let clients: VolumeKitClients
    private let onChange: @Sendable (MuteStateChange) -> Void
    private let onVolume: @Sendable (RealVolumeTracker.Action) -> Void
    private let shell: EngineShell<State>

    /// Creates an engine.
    /// - Parameters:
    ///   - configuration: when to probe (the monitor's interval).
    ///   - observesVolume: also report volume changes and the real volume.
    ///   - soundURL: the silent sound to probe with (the `VolumeKit` module bundles one).
    ///   - clients: the system services to probe through.
    ///   - onChange: each change of the reported state while started, the first marked initial.
    ///   - onVolume: volume changes and real-volume changes while started (with `observesVolume`).
    ///
    /// Callbacks run on the clients' callback threads (on iOS, AudioServices' serial queue or the main queue).
    public init(
        configuration: MuteMonitor.Configuration = MuteMonitor.Configuration(),
        observesVolume: Bool = true,
        soundURL: URL,
        clients: VolumeKitClients,
        onChange: @escaping @Sendable (MuteStateChange) -> Void = { _ in },
        onVolume: @escaping @Sendable (RealVolumeTracker.Action) -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.observesVolume = observesVolume
        self.soundURL = soundURL
        self.clients = clients
        self.onChange = onChange
        self.onVolume = onVolume
        shell = EngineShell(State(monitor: MuteMonitor(configuration: configuration)), clock: clients.clock) {
            $0.monitor.nextDeadline
        }
    }

    /// Whether periodic checks are on.
    public var isStarted: Bool { shell.withState { $0.monitor.isRunning } }
    /// The state last reported since ``start()``, `nil` before the first report.
    public var muteState: MuteState? { shell.withState { $0.monitor.reported } }
    /// The real volume last reported (0 while silent), `nil` while unknown or before the first reading.
    public var realVolume: Float? { shell.withState { $0.volume.realVolume } }
    /// The output volume last read or observed.
    public var outputVolume: Float? { shell.withState { $0.volume.volume } }

    /// Starts periodic checks (one at once, after a priming play) and, with `observesVolume`, volume reports.
    public func start() {
        guard !isStarted else { return }
        var subscriptions = [clients.lifecycle.observe { [weak self] event in self?.handle(event) }]
        if observesVolume {
            prepareSession()
            subscriptions.append(
                clients.systemVolume.observeOutputVolume { [weak self] value in
                    self?.observe(volume: value)
                })
        }
        shell.withState { $0.subscriptions = subscriptions }
        let isForeground = clients.lifecycle.state() != .background
        let conditions = currentConditions()
        let now = clients.clock.now()
        run { state in
            state.monitor.start(at: now, conditions: conditions, isForeground: isForeground)
        }
        if observesVolume { observe(volume: clients.systemVolume.outputVolume()) }
    }

    /// Stops periodic checks and reports, and puts the session back as it was.
    public func stop() {
        let now = clients.clock.now()
        let leftovers = shell.withState { state -> (subscriptions: [CancellationHandle], lease: Bool) in
            defer {
                state.subscriptions = []
                state.holdsLease = false
                state.volume = RealVolumeTracker()
            }
            return (state.subscriptions, state.holdsLease)
        }
        run { state in state.monitor.stop(at: now) }
        // The sound is disposed once nothing plays it (a later check creates it again); the anchors leaked
        // one sound ID per check (RBDMuteSwitch).
        let sound = shell.withState { state -> SystemSoundID? in
            guard !state.monitor.isPlaying, let id = state.soundID else { return nil }
            state.soundID = nil
            return id
        }
        if let sound { clients.systemSounds.dispose(sound) }
        leftovers.subscriptions.forEach { $0.cancel() }
        if leftovers.lease { clients.sessionLease.release(on: clients.audioSession, clock: clients.clock) }
    }

    /// Checks the switch once, started or not; concurrent checks share one probe. `completion` runs once.
    public func check(_ completion: @escaping @Sendable (MuteState) -> Void) {
        let conditions = currentConditions()
        let now = clients.clock.now()
        run { state in
            state.nextRequest += 1
            let id = state.nextRequest
            state.requests[id] = completion
            return state.monitor.request(id, at: now, conditions: conditions)
        }
    }

    /// Checks the switch once, started or not; concurrent checks share one probe.
    public func check() async -> MuteState {
        await withCheckedContinuation { continuation in
            check { state in continuation.resume(returning: state) }
        }
    }

    // MARK: - Inputs

    private func handle(_ event: AppLifecycleEvent) {
        let now = clients.clock.now()
        switch event {
        case .didEnterBackground:
            run { state in state.monitor.enteredBackground(at: now) }
        case .willEnterForeground:
            reactivateSession()
            let conditions = currentConditions()
            run { state in state.monitor.enteredForeground(at: now, conditions: conditions) }
            if observesVolume { observe(volume: clients.systemVolume.outputVolume()) }
        case .interruptionEnded:
            reactivateSession()
        case .mediaServicesWereReset:
            // The category and activation are lost (`shared/facts/envelope.md`): set them again, re-prime.
            guard isStarted else { return }
            try? clients.sessionLease.reapplyAfterMediaReset(on: clients.audioSession)
            reactivateSession()
        case .didBecomeActive, .willResignActive, .interruptionBegan, .routeChanged:
            break
        }
    }

    private func completed(_ id: Int) {
        // Read the time first: this is the completion's moment, whatever the lock costs.
        let now = clients.clock.now()
        let conditions = currentConditions()
        run { state in state.monitor.completed(id, at: now, conditions: conditions) }
    }

    private func tick() {
        let now = clients.clock.now()
        let conditions = currentConditions()
        run(timerFired: true) { state in state.monitor.tick(at: now, conditions: conditions) }
    }

    private func observe(volume value: Float) {
        perform { state in state.volume.observe(volume: value).map(Work.volume) }
    }

    // MARK: - Session and sound

    private func prepareSession() {
        let session = clients.audioSession
        // `.soloAmbient` (iOS's default) would interrupt other apps' audio on activation; `.ambient` mixes.
        // An app's own category is left alone.
        let wanted: AudioSessionConfiguration? =
            session.configuration() == .systemDefault
            ? AudioSessionConfiguration(category: .ambient) : nil
        let joined = (try? clients.sessionLease.acquire(wanted, on: session)) != nil
        // Before any audio has played, outputVolume is stale and KVO silent (seed 001).
        session.primeOutput()
        shell.withState { $0.holdsLease = joined }
    }

    private func reactivateSession() {
        guard observesVolume, isStarted else { return }
        try? clients.audioSession.setActive(true, false)
        clients.audioSession.primeOutput()
    }

    /// The conditions now; creates the sound on first need.
    private func currentConditions() -> MuteProbeConditions {
        let kind = clients.device.kind
        let available = ensureSound()
        return MuteProbeConditions(
            device: kind, session: clients.audioSession.configuration(), isSoundAvailable: available)
    }

    private func ensureSound() -> Bool {
        let known = shell.withState { state -> Bool? in
            if state.soundID != nil { return true }
            return state.soundFailed ? false : nil
        }
        if let known { return known }
        do {
            let id = try clients.systemSounds.create(soundURL)
            // A UI sound, as in every anchor (`shared/facts/mute-switch.md` §1).
            clients.systemSounds.setIsUISound(id, true)
            shell.withState { $0.soundID = id }
            return true
        } catch {
            shell.withState { $0.soundFailed = true }
            return false
        }
    }

    // MARK: - Carrying out actions

    /// Runs `body` under the lock and turns the monitor's actions into work, reschedules the timer, then
    /// carries out the work outside the lock.
    private func run(timerFired: Bool = false, _ body: (inout State) -> [MuteMonitor.Action]) {
        perform(timerFired: timerFired) { state in
            body(&state).flatMap { action -> [Work] in
                switch action {
                case .play(let id), .prime(let id):
                    return [.play(id)]
                case .report(let change):
                    return [.report(change)] + state.volume.observe(state: change.new).map(Work.volume)
                case .answer(let ids, let muteState):
                    return [.answer(ids.compactMap { state.requests.removeValue(forKey: $0) }, muteState)]
                }
            }
        }
    }

    private func perform(timerFired: Bool = false, _ body: (inout State) -> [Work]) {
        var soundID: SystemSoundID?
        let fire: @Sendable () -> Void = { [weak self] in self?.tick() }
        let work = shell.perform(timerFired: timerFired, fire: fire) { state, _ in
            let work = body(&state)
            soundID = state.soundID
            return work
        }
        for item in work {
            switch item {
            case .play(let id):
                guard let soundID else { continue }
                clients.systemSounds.play(soundID, false) { [weak self] in self?.completed(id) }
            case .report(let change): onChange(change)
            case .answer(let completions, let muteState): completions.forEach { $0(muteState) }
            case .volume(let action): onVolume(action)
            }
        }
    }
}
