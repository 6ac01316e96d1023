import Dispatch
import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Something the app may want to show or log, from a ``RemoteVolumeController``.
public enum RemoteVolumeUpdate: Sendable, Equatable, Hashable {
    /// The level the HUD should show (optimistic: includes presses not yet confirmed), in device units.
    case level(Int)
    /// The device's mute state, as last read, set or reported.
    case muted(Bool)
    /// A SetVolume request left for the device at this instant of the controller's clock.
    case requestSent(level: Int, at: Instant)
    /// A request failed for good (after the retries the configuration allows).
    case failed(RemoteVolumeError)
}

/// Runs a ``RemoteVolumeSync`` machine against a ``RemoteVolumeDevice``: the glue from any source of
/// up/down presses (e.g. VolumeKit's button events) to a network speaker, and from the speaker back to a HUD.
///
/// ```swift
/// let renderer = try await UPnPRenderer.connect(to: descriptionURL)
/// let controller = RemoteVolumeController(device: renderer)
/// try await controller.start()
/// Task { for await level in await controller.hudLevels() { hud.show(level: level) } }
/// await controller.press(.up)
/// ```
public actor RemoteVolumeController {
    /// The device this controller drives.
    public nonisolated let device: any RemoteVolumeDevice
    private let clock: ClockClient
    private var machine: RemoteVolumeSync
    /// The one timer, aimed at the machine's ``RemoteVolumeSync/nextDeadline``.
    private var timer = DeadlineTimer()
    private var subscribers: [Int: AsyncStream<RemoteVolumeUpdate>.Continuation] = [:]
    private var nextSubscriber = 0
    private var eventsTask: Task<Void, Never>?
    private var followTasks: [Task<Void, Never>] = []
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    /// The device's mute state as last known.
    public private(set) var isMuted: Bool?

    /// Creates a controller; `configuration.range` is replaced by the device's ``RemoteVolumeDevice/volumeRange``.
    public init(
        device: any RemoteVolumeDevice,
        configuration: RemoteVolumeSync.Configuration = .init(),
        clock: ClockClient = RemoteVolumeController.systemClock
    ) {
        self.device = device
        self.clock = clock
        var configuration = configuration
        configuration.range = device.volumeRange
        machine = RemoteVolumeSync(configuration: configuration)
    }

    /// A monotonic clock that runs scheduled actions on a global dispatch queue.
    public static let systemClock = ClockClient(
        now: { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 },
        schedule: { delay, action in
            let cancelled = Locked(false)
            DispatchQueue.global().asyncAfter(deadline: .now() + max(0, delay)) {
                if !cancelled.current { action() }
            }
            return CancellationHandle { cancelled.withLock { $0 = true } }
        }
    )

    /// The level the HUD should show, or `nil` before the first read.
    public var level: Int? { machine.optimisticLevel }
    /// The level the device last confirmed.
    public var confirmedLevel: Int? { machine.confirmedLevel }
    /// Whether requests are still pending.
    public var isBusy: Bool { machine.isBusy }

    /// A stream of updates; each call makes a new subscriber. It ends when ``stop(flushTimeout:)`` is called.
    public func updates() -> AsyncStream<RemoteVolumeUpdate> {
        let (stream, continuation) = AsyncStream<RemoteVolumeUpdate>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = nextSubscriber
        nextSubscriber += 1
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            guard let controller = self else { return }
            Task { await controller.unsubscribe(id) }
        }
        if let level = machine.optimisticLevel { continuation.yield(.level(level)) }
        if let isMuted { continuation.yield(.muted(isMuted)) }
        return stream
    }

    /// Reads the device's level and mute state and starts following the changes it reports.
    /// Throws ``RemoteVolumeError`` if the first read fails.
    public func start() async throws {
        let level = try await device.volume()
        apply(machine.volumeRead(level, at: clock.now()))
        if mutesByVolume {
            noteMutedByLevel()
        } else if let muted = try? await device.isMuted() {
            noteMuted(muted)
        }
        guard eventsTask == nil, let changes = try? await device.changes() else { return }
        eventsTask = Task { [weak self] in
            for await change in changes {
                await self?.deviceChanged(change)
            }
        }
    }

    /// The longest ``stop(flushTimeout:)`` waits by default for the last wanted level to land, in seconds.
    public static let defaultFlushTimeout: TimeInterval = 2

    /// Sends the last wanted level (a coalesced press not yet sent) and waits until it and any request on
    /// the wire have landed, at most `flushTimeout` seconds of the controller's clock; then stops following
    /// the device and ends every update stream. A level not delivered by then is dropped (the update
    /// streams end without a `.failed`). Pass 0 to stop at once.
    public func stop(flushTimeout: TimeInterval = RemoteVolumeController.defaultFlushTimeout) async {
        if machine.isBusy, flushTimeout > 0 {
            apply(machine.flush(at: clock.now()))
            if machine.isBusy {
                let timer = clock.schedule(flushTimeout) { [weak self] in
                    guard let controller = self else { return }
                    Task { await controller.resumeIdleWaiters() }
                }
                await withCheckedContinuation { idleWaiters.append($0) }
                timer.cancel()
            }
        }
        eventsTask?.cancel()
        eventsTask = nil
        followTasks.forEach { $0.cancel() }
        followTasks.removeAll()
        timer.reset()?.cancel()
        for continuation in subscribers.values { continuation.finish() }
        subscribers.removeAll()
        resumeIdleWaiters()
    }

    private func resumeIdleWaiters() {
        let waiters = idleWaiters
        idleWaiters.removeAll()
        waiters.forEach { $0.resume() }
    }

    /// One press of the up or down button.
    public func press(_ button: VolumeButton) {
        apply(machine.press(button, at: clock.now()))
    }

    /// A button event from VolumeKit (`released` does nothing).
    public func handle(_ event: VolumeButtonEvent) {
        guard event.phase != .released else { return }
        press(event.button)
    }

    /// Moves the device to an absolute level (clamped to its range), through the same coalescing and retries.
    public func setLevel(_ level: Int) {
        apply(machine.setLevel(level, at: clock.now()))
    }

    /// Feeds every event of `events` to ``handle(_:)`` until the stream ends or ``stop(flushTimeout:)`` is called.
    public func follow(_ events: AsyncStream<VolumeButtonEvent>) {
        followTasks.append(
            Task { [weak self] in
                for await event in events {
                    await self?.handle(event)
                }
            })
    }

    /// Mutes or unmutes the device now (not coalesced: mute is one request per user action).
    public func setMuted(_ muted: Bool) async throws {
        do {
            try await device.setMuted(muted)
            noteMuted(muted)
        } catch {
            let failure = error.asRemoteVolumeError
            publish(.failed(failure))
            throw failure
        }
    }

    // MARK: Carrying out the machine's actions

    private func apply(_ actions: [RemoteVolumeSync.Action]) {
        defer { if !machine.isBusy && !idleWaiters.isEmpty { resumeIdleWaiters() } }
        let change = timer.retarget(machine.nextDeadline, now: clock.now())
        let fire: @Sendable () -> Void = { [weak self] in
            guard let controller = self else { return }
            Task { await controller.tick() }
        }
        clock.apply(change, fire: fire, adopt: { timer.adopt($0) })
        for action in actions {
            switch action {
            case .setVolume(let level, let request):
                publish(.requestSent(level: level, at: clock.now()))
                let device = self.device
                Task { [weak self] in
                    do {
                        try await device.setVolume(level)
                        await self?.requestFinished(request, error: nil)
                    } catch {
                        await self?.requestFinished(request, error: error.asRemoteVolumeError)
                    }
                }
            case .readVolume:
                let device = self.device
                Task { [weak self] in
                    do {
                        let level = try await device.volume()
                        await self?.volumeRead(level)
                    } catch {
                        await self?.readFinished(error.asRemoteVolumeError)
                    }
                }
            case .showLevel(let level):
                publish(.level(level))
            case .failed(let error):
                publish(.failed(error))
            }
        }
    }

    private func requestFinished(_ request: Int, error: RemoteVolumeError?) {
        let now = clock.now()
        if let error {
            apply(machine.requestFailed(request, error: error, at: now))
        } else {
            apply(machine.requestSucceeded(request, at: now))
            noteMutedByLevel()
        }
    }

    private func readFinished(_ error: RemoteVolumeError) {
        apply(machine.readFailed(error, at: clock.now()))
    }

    private func volumeRead(_ level: Int) {
        apply(machine.volumeRead(level, at: clock.now()))
        noteMutedByLevel()
    }

    /// Whether the device's mute is its volume at 0 (``MPDDevice``), so every level read or set says it.
    private nonisolated var mutesByVolume: Bool { device is any MutesByVolume }

    private func deviceChanged(_ change: RemoteVolumeChange) {
        if let level = change.volume {
            apply(machine.deviceReported(level, at: clock.now(), isInitialState: change.isInitialState))
        }
        if mutesByVolume {
            noteMutedByLevel()
        } else if let muted = change.muted {
            noteMuted(muted)
        }
    }

    /// For a device whose mute is its volume at 0, the mute state follows the level the machine believes,
    /// not the raw report: a watcher's read from before our set, delivered after the set landed, is held for
    /// a read by the machine, and taking its `muted` at face value ended `up` from 0 as "volume 2, muted".
    private func noteMutedByLevel() {
        guard mutesByVolume, let level = machine.confirmedLevel else { return }
        noteMuted(level == 0)
    }

    private func tick() {
        timer.fired()
        apply(machine.tick(at: clock.now()))
    }

    private func noteMuted(_ muted: Bool) {
        guard muted != isMuted else { return }
        isMuted = muted
        publish(.muted(muted))
    }

    private func publish(_ update: RemoteVolumeUpdate) {
        for continuation in subscribers.values { continuation.yield(update) }
    }

    private func unsubscribe(_ id: Int) {
        subscribers[id] = nil
    }
}

/// A device whose mute is modelled as volume 0 (MPD has no mute of its own): for it, a level above 0 read
/// or set means "not muted" and 0 means "muted".
protocol MutesByVolume {}
