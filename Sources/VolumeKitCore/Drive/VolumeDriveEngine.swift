#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The hardware volume buttons driving a ``VolumeDriveTarget`` (a network speaker), with a HUD showing the
/// target's level: button capture, the HUD and the target started together, and stopped together.
/// Platform-free, so the exact code an iPhone runs is what `SimulatedDevice` tests on Linux.
///
/// The iOS shells `VolumeDrive` and `.volumeButtons(driving:hud:)` (module `VolumeKit`) wrap one engine.
///
/// Rules:
/// - ``start()`` starts capture and the HUD at once and the target in the background; presses made while
///   the target connects are queued and reach it, in order, once it has started. If it cannot start, capture
///   and the HUD stop (the buttons are the phone's again), then ``VolumeDriveDiagnostic/targetUnavailable(_:)``
///   is reported on the clients' thread; ``start()`` from that diagnostic, or any time after, starts a fresh run;
/// - every event goes to the HUD first (a press at a rail shows the bump, judged against the level shown
///   before the press), then to the target; the levels the target yields are shown, except the first one —
///   connecting is no change, the HUD does not pop up for it. It is still known: a first press toward the
///   rail the level sits at shows it with the bump;
/// - capture reports its hold on the phone's volume (``VolumeButtonsEngine`` does, through ``VolumeHoldReporter``), so a HUD elsewhere in the app
///   that follows the phone's volume never shows capture's anchor;
/// - ``stop(onStopped:)`` stops capture (the user's volume comes back) and the HUD at once, then waits until the target
///   has sent the last level it was asked for — at most ``stopTimeout`` on the clients' clock — and stops
///   the target. A new ``start()`` waits for that to finish first. `onStopped` runs when both are done: the
///   target stopped *and* capture's own stop finished (the user's volume is back even when iOS refused the
///   first restore during a held press).
public final class VolumeDriveEngine: Sendable {
    private struct State {
        var isRunning = false
        /// The latest run; a run is "finishing" from ``stop(onStopped:)`` until its target is stopped.
        var generation = 0
        /// The latest run whose target is stopped.
        var finishedGeneration = 0
        /// The latest run whose capture has finished stopping (the user's volume is back).
        var captureStoppedGeneration = 0
        var events: AsyncStream<VolumeButtonEvent>.Continuation?
        /// The running run's bound on waiting for the target at stop.
        var deadline: StopDeadline?
        /// The latest run's task; the next run waits for it.
        var run: Task<Void, Never>?
        /// The target's latest HUD level in this run.
        var level: Float?
        /// Whether the HUD was given a level in this run (it judges the bump against it).
        var hudHasLevel = false
        /// `stop` callbacks, with the run they wait for.
        var onStopped: [(generation: Int, callback: @Sendable () -> Void)] = []

        /// Whether every run up to the latest has stopped both its target and its capture.
        var isIdle: Bool { !isRunning && finishedGeneration == generation && captureStoppedGeneration == generation }

        /// Removes and returns the callbacks of the runs that have stopped both their target and their capture.
        mutating func takeDueCallbacks() -> [@Sendable () -> Void] {
            let done = min(finishedGeneration, captureStoppedGeneration)
            let due = onStopped.filter { $0.generation <= done }
            onStopped.removeAll { $0.generation <= done }
            return due.map(\.callback)
        }
    }

    /// How often ``stop(onStopped:)`` checks whether the target is still busy while it waits.
    public static let settleCheckInterval: TimeInterval = 0.05

    /// The target driven.
    public let target: any VolumeDriveTarget
    /// The capture configuration.
    public let configuration: VolumeButtonsConfiguration
    /// The longest ``stop(onStopped:)`` waits for the target to send the last level (seconds, clients' clock).
    public let stopTimeout: TimeInterval
    private let clients: VolumeKitClients
    private let hud: (any VolumeDriveHUD)?
    private let buttons: VolumeButtonsEngine
    private let readiness: ReadinessWatch
    private let readinessTimeout: TimeInterval
    private let onDiagnostic: @Sendable (VolumeDriveDiagnostic) -> Void
    private let state: Locked<State>

    /// Creates a stopped drive.
    /// - Parameters:
    ///   - target: what the buttons drive (e.g. a `RemoteVolumeController`).
    ///   - configuration: how the buttons are captured (capture mode by default: presses leave the phone's
    ///     volume alone).
    ///   - hud: where the target's level is shown, or `nil` for no HUD (the system HUD stays hidden while
    ///     capture holds the volume). A ``VolumeHUDEngine`` should use ``VolumeHUDLevelSource/external``.
    ///   - clients: the system (live on iOS, `SimulatedDevice.clients` in tests).
    ///   - stopTimeout: the longest ``stop(onStopped:)`` waits for the last level to be sent (2 s by default: the 0.2 s
    ///     coalescing window of `RemoteVolumeSync` and a few retries).
    ///   - readinessTimeout: how long capture may take to become ready before
    ///     ``VolumeDriveDiagnostic/captureNotReady(after:)`` is reported.
    ///   - onDiagnostic: problems that did not stop the drive, and a target that could not start. Called on
    ///     the clients' callback thread or on the drive's own task.
    public init(
        target: any VolumeDriveTarget,
        configuration: VolumeButtonsConfiguration = VolumeButtonsConfiguration(),
        hud: (any VolumeDriveHUD)?,
        clients: VolumeKitClients,
        stopTimeout: TimeInterval = 2,
        readinessTimeout: TimeInterval = 5,
        onDiagnostic: @escaping @Sendable (VolumeDriveDiagnostic) -> Void = { _ in }
    ) {
        self.target = target
        self.configuration = configuration
        self.stopTimeout = stopTimeout.isFinite ? max(0, stopTimeout) : 2
        self.clients = clients
        self.hud = hud
        self.readinessTimeout = readinessTimeout
        self.onDiagnostic = onDiagnostic
        let state = Locked(State())
        self.state = state
        readiness = ReadinessWatch(clock: clients.clock)
        buttons = VolumeButtonsEngine(
            configuration: configuration,
            clients: clients,
            onEvent: { event in VolumeDriveEngine.route(event, state: state, hud: hud) },
            onDiagnostic: { onDiagnostic(.capture($0)) }
        )
    }

    /// Whether ``start()`` was called without a matching ``stop(onStopped:)`` (and the target has not failed to start).
    public var isRunning: Bool { state.withLock { $0.isRunning } }

    /// The target's level (0…1) as it last reported it in this run, `nil` until it has started.
    public var targetLevel: Float? { state.withLock { $0.level } }

    /// Whether presses are being captured right now (see ``VolumeButtonsEngine/isCapturing``).
    public var isCapturing: Bool { buttons.isCapturing }

    /// Starts capture and the HUD, and the target in the background (see the type's rules). Throws a
    /// ``VolumeButtonsError`` when capture cannot start; nothing is left running then.
    public func start() throws {
        let generation = state.withLock { state -> Int? in
            guard !state.isRunning else { return nil }
            state.isRunning = true
            state.generation += 1
            state.level = nil
            state.hudHasLevel = false
            return state.generation
        }
        guard let generation else { return }
        let timeout = readinessTimeout
        let onDiagnostic = self.onDiagnostic
        readiness.start(timeout: timeout) { onDiagnostic(.captureNotReady(after: timeout)) }
        do {
            try buttons.start(onReady: { [readiness] in readiness.ready() })
        } catch {
            readiness.cancel()
            // Nothing of this run is left to finish: a later `stop(onStopped:)` calls back at once.
            let due = state.withLock { state -> [@Sendable () -> Void] in
                state.isRunning = false
                state.finishedGeneration = max(state.finishedGeneration, generation)
                state.captureStoppedGeneration = max(state.captureStoppedGeneration, generation)
                return state.takeDueCallbacks()
            }
            due.forEach { $0() }
            throw error
        }
        hud?.start()
        let (events, continuation) = AsyncStream<VolumeButtonEvent>.makeStream()
        let deadline = StopDeadline()
        state.withLock { state in
            let previous = state.run
            state.events = continuation
            state.deadline = deadline
            state.run = Task { [self] in
                await previous?.value
                await drive(events, deadline: deadline, generation: generation)
            }
        }
    }

    /// Stops capture (the user's volume comes back) and the HUD now, then stops the target once it has sent
    /// the last level it was asked for, or ``stopTimeout`` passed. `onStopped` runs once the target is
    /// stopped and capture has finished its own stop (at once when the drive is not running and nothing is
    /// finishing).
    public func stop(onStopped: (@Sendable () -> Void)? = nil) {
        let (wasRunning, idle, events, deadline, generation) = state.withLock {
            state -> (Bool, Bool, AsyncStream<VolumeButtonEvent>.Continuation?, StopDeadline?, Int) in
            let idle = state.isIdle
            if let onStopped, !idle { state.onStopped.append((state.generation, onStopped)) }
            guard state.isRunning else { return (false, idle, nil, nil, state.generation) }
            state.isRunning = false
            defer { state.events = nil; state.deadline = nil }
            return (true, false, state.events, state.deadline, state.generation)
        }
        if idle { onStopped?() }
        guard wasRunning else { return }
        // The bound runs from now, on the clients' clock, however late the run's task gets to it.
        deadline?.arm(after: stopTimeout, on: clients.clock)
        stopCaptureAndHUD(generation: generation)
        // The queued events are still handed to the target: presses made before stop count.
        events?.finish()
    }

    // MARK: - Routing

    /// An event from capture (clients' thread): to the HUD first, then queued for the target.
    private static func route(_ event: VolumeButtonEvent, state: Locked<State>, hud: (any VolumeDriveHUD)?) {
        let (events, known) = state.withLock { state -> (AsyncStream<VolumeButtonEvent>.Continuation?, Float?) in
            guard state.isRunning else { return (nil, nil) }
            var known: Float?
            // The HUD was not told the level on connecting: a press into the rail it sits at needs it for the bump.
            if event.phase != .released, !state.hudHasLevel, let level = state.level,
                isAtRail(level, toward: event.button)
            {
                state.hudHasLevel = true
                known = level
            }
            return (state.events, known)
        }
        guard let events else { return }
        if let hud {
            if let known { hud.show(level: known) }
            hud.handle(event)
        }
        events.yield(event)
    }

    private static func isAtRail(_ level: Float, toward button: VolumeButton) -> Bool {
        switch button {
        case .up: level >= 1 - VolumeHUDModel.railTolerance
        case .down: level <= VolumeHUDModel.railTolerance
        }
    }

    /// A level from the target, shown on the clients' thread (where the events reach the HUD too).
    private func received(_ level: Float, generation: Int) {
        _ = clients.clock.schedule(0) { [state, hud] in
            let show = state.withLock { state -> Bool in
                guard state.isRunning, state.generation == generation else { return false }
                let old = state.level
                state.level = level
                // The first level is where the target was on connecting: known, not shown.
                guard let old, old != level else { return false }
                state.hudHasLevel = true
                return true
            }
            if show { hud?.show(level: level) }
        }
    }

    // MARK: - One run

    private func drive(_ events: AsyncStream<VolumeButtonEvent>, deadline: StopDeadline, generation: Int) async {
        var following: Task<Void, Never>?
        do {
            try await target.start()
            let levels = await target.hudLevels()
            following = Task { [weak self] in
                for await level in levels { self?.received(level, generation: generation) }
            }
        } catch {
            targetFailed(error, generation: generation)
        }
        for await event in events where following != nil {
            await target.handle(event)
        }
        if following != nil { await settle(deadline) }
        await target.stop()
        following?.cancel()
        let finished = state.withLock { state -> [@Sendable () -> Void] in
            state.finishedGeneration = max(state.finishedGeneration, generation)
            return state.takeDueCallbacks()
        }
        finished.forEach { $0() }
    }

    /// Waits until the target has sent the last level asked for, or the stop deadline passed.
    private func settle(_ deadline: StopDeadline) async {
        while await target.isBusy {
            guard !deadline.hasExpired else {
                onDiagnostic(.lastLevelUnconfirmed(after: stopTimeout))
                return
            }
            await deadline.wait(VolumeDriveEngine.settleCheckInterval, on: clients.clock)
        }
    }

    /// The target of run `generation` could not start: the run's events end now (nothing reaches the
    /// target), then, on the clients' thread, capture and the HUD stop and the failure is reported — in that
    /// order, so a ``start()`` from the diagnostic (or any time after) starts a fresh run whose capture
    /// nothing stops behind its back. Until then the run still counts as running (``isRunning``).
    private func targetFailed(_ error: any Error, generation: Int) {
        let events = state.withLock { state -> AsyncStream<VolumeButtonEvent>.Continuation? in
            guard state.isRunning, state.generation == generation else { return nil }
            defer { state.events = nil }
            return state.events
        }
        guard let events else { return }
        events.finish()
        let reason = String(describing: error)
        // Capture and the HUD are touched on the clients' thread, as everywhere else.
        _ = clients.clock.schedule(0) { [self] in
            let (stops, reports) = state.withLock { state -> (Bool, Bool) in
                // A `stop()` in between stopped capture itself; a newer run is not this one's to report on.
                guard state.generation == generation else { return (false, false) }
                guard state.isRunning else { return (false, true) }
                state.isRunning = false
                state.deadline = nil
                return (true, true)
            }
            if stops { stopCaptureAndHUD(generation: generation) }
            if reports { onDiagnostic(.targetUnavailable(reason)) }
        }
    }

    /// Stops capture and the HUD of run `generation`; the run's `stop` callbacks also wait for capture's own
    /// stop (a restore iOS refused during a held press lands only after the release).
    private func stopCaptureAndHUD(generation: Int) {
        readiness.cancel()
        buttons.stop(onStopped: { [state] in
            let due = state.withLock { state -> [@Sendable () -> Void] in
                state.captureStoppedGeneration = max(state.captureStoppedGeneration, generation)
                return state.takeDueCallbacks()
            }
            due.forEach { $0() }
        })
        hud?.stop()
    }
}

/// The bound on how long a stopping drive waits for its target: armed by `stop()`, it wakes the waiting run
/// when it expires.
private final class StopDeadline: Sendable {
    private struct State {
        var hasExpired = false
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextID = 0
    }

    private let state = Locked(State())

    /// Whether the deadline passed.
    var hasExpired: Bool { state.withLock { $0.hasExpired } }

    /// Expires `seconds` from now on `clock`.
    func arm(after seconds: TimeInterval, on clock: ClockClient) {
        _ = clock.schedule(seconds) { [self] in expire() }
    }

    private func expire() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.hasExpired = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        waiters.forEach { $0.resume() }
    }

    /// Waits `seconds` on `clock`, or until the deadline expires if that comes first.
    func wait(_ seconds: TimeInterval, on clock: ClockClient) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let id = state.withLock { state -> Int? in
                guard !state.hasExpired else { return nil }
                state.nextID += 1
                state.waiters[state.nextID] = continuation
                return state.nextID
            }
            guard let id else { return continuation.resume() }
            _ = clock.schedule(seconds) { [self] in
                state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
            }
        }
    }
}
