#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What button capture tells the HUD about the system volume it holds.
///
/// While ``VolumeButtonsEngine`` captures in ``ButtonCaptureMode/capture`` mode with a strategy that moves the
/// volume (``ButtonStrategy/outputVolume``, ``ButtonStrategy/systemNotification``), `outputVolume` is
/// VolumeKit's own anchor: it starts 2 steps (12.5 %) off the user's level and every press nudges it by 1/16
/// before it is put back. A HUD following `outputVolume` then shows levels the user never chose. This is
/// the hand-off that tells it so: who holds, and the user's own level meanwhile.
public enum VolumeHoldEvent: Sendable, Equatable {
    /// Capture began holding the volume. The user's level, when already known.
    case began(userVolume: Float?)
    /// The user's level is now `userVolume`. `byUser` is `true` for a change the user made (Control Center,
    /// another route's volume), `false` for a reading (capture became ready, a recovered volume).
    case userVolume(Float, byUser: Bool)
    /// Capture let go: `outputVolume` is the user's own again (the user's level is back on the device).
    case ended(userVolume: Float?)
}

/// The meeting point of button capture and the HUD within one app process: capture reports its hold with
/// ``publish(_:)``, the HUD follows it with ``observe(_:)`` and ``heldUserVolume``.
///
/// It is also where a ``VolumeRecovery`` run meets button capture: a capture that becomes ready while a
/// recovery gives an earlier run's volume back waits for it (``afterRecovery(_:)``) — each would take the
/// other's sets for presses — and a recovery never starts while capture holds the volume (``isHeld``).
///
/// One board per app process: it is ``VolumeKitClients/holdBoard``, shared by every bundle of clients of one
/// process (live or simulated), so a HUD and a capture created independently on the same clients meet
/// without any wiring by the app.
public final class VolumeHoldBoard: Sendable {
    private struct State {
        var holders = 0
        var pressCaptures = 0
        var userVolume: Float?
        var observers: [Int: @Sendable (VolumeHoldEvent) -> Void] = [:]
        var nextID = 0
        var recoveries = 0
        var afterRecovery: [Int: @Sendable () -> Void] = [:]
        var buttonEngines = 0
        /// The one watch of this process for routes whose records wait (``VolumeRecovery``), while armed.
        var recoveryWatch: CancellationHandle?
        var isArmingWatch = false
    }

    private let state = Locked(State())

    /// A board nobody holds.
    public init() {}

    /// Whether capture holds the volume now.
    public var isHeld: Bool { state.withLock { $0.holders > 0 } }

    /// Whether capture takes the presses as the app's input now (``ButtonCaptureMode/capture`` with any
    /// strategy, capture events included): a press then is no volume change, and no bump at a rail either.
    public var isCapturingPresses: Bool { state.withLock { $0.pressCaptures > 0 } }

    /// Capture began (`true`) or stopped (`false`) taking presses as input. Nests like holds.
    public func setCapturingPresses(_ capturing: Bool) {
        state.withLock { state in
            if capturing { state.pressCaptures += 1 } else if state.pressCaptures > 0 { state.pressCaptures -= 1 }
        }
    }

    /// The user's level while capture holds the volume and knows it; `nil` otherwise.
    public var heldUserVolume: Float? { state.withLock { $0.holders > 0 ? $0.userVolume : nil } }

    /// Reports what capture did. Holds nest: two captures both holding end after both ended.
    public func publish(_ event: VolumeHoldEvent) {
        let observers = state.withLock { state -> [@Sendable (VolumeHoldEvent) -> Void] in
            switch event {
            case .began(let volume):
                state.holders += 1
                if let volume { state.userVolume = volume }
            case .userVolume(let volume, _):
                guard state.holders > 0 else { return [] }
                state.userVolume = volume
            case .ended(let volume):
                guard state.holders > 0 else { return [] }
                state.holders -= 1
                if let volume { state.userVolume = volume }
                if state.holders == 0 { state.userVolume = nil }
            }
            return state.observers.sorted { $0.key < $1.key }.map(\.value)
        }
        for observer in observers { observer(event) }
    }

    /// Whether a ``VolumeRecovery`` run is giving an earlier run's volume back now.
    public var isRecovering: Bool { state.withLock { $0.recoveries > 0 } }

    /// A recovery run began. Nests: runs end after each ended.
    public func recoveryBegan() {
        state.withLock { $0.recoveries += 1 }
    }

    /// A recovery run ended (its volume view and subscriptions are gone): once none is left, what waited for
    /// the recoveries (``afterRecovery(_:)``) runs, in the order it was registered.
    public func recoveryEnded() {
        let waiting = state.withLock { state -> [@Sendable () -> Void] in
            guard state.recoveries > 0 else { return [] }
            state.recoveries -= 1
            guard state.recoveries == 0 else { return [] }
            defer { state.afterRecovery = [:] }
            return state.afterRecovery.sorted { $0.key < $1.key }.map(\.value)
        }
        for action in waiting { action() }
    }

    /// Runs `action` once no recovery run is left, and returns the handle that cancels it; returns `nil`, and
    /// runs nothing, when none is running now (the caller goes on at once).
    public func afterRecovery(_ action: @escaping @Sendable () -> Void) -> CancellationHandle? {
        let id = state.withLock { state -> Int? in
            guard state.recoveries > 0 else { return nil }
            state.nextID += 1
            state.afterRecovery[state.nextID] = action
            return state.nextID
        }
        guard let id else { return nil }
        return CancellationHandle { [weak self] in self?.state.withLock { _ = $0.afterRecovery.removeValue(forKey: id) }
        }
    }

    /// Whether a ``VolumeButtonsEngine`` runs in this process — any mode or strategy, a recovery run included
    /// (from its start until its teardown).
    public var hasButtonEngine: Bool { state.withLock { $0.buttonEngines > 0 } }

    /// A button engine started (`true`) or finished its teardown (`false`). Nests.
    public func setButtonEngineRunning(_ running: Bool) {
        state.withLock { state in
            if running { state.buttonEngines += 1 } else if state.buttonEngines > 0 { state.buttonEngines -= 1 }
        }
    }

    /// Arms the process's one watch for routes whose records wait (``VolumeRecovery``): `make` starts it and is
    /// called only when none is armed. The watch ends with ``endRecoveryWatch()``.
    public func armRecoveryWatch(_ make: () -> CancellationHandle) {
        let arms = state.withLock { state -> Bool in
            guard state.recoveryWatch == nil, !state.isArmingWatch else { return false }
            state.isArmingWatch = true
            return true
        }
        guard arms else { return }
        let watch = make()
        state.withLock { state in
            state.recoveryWatch = watch
            state.isArmingWatch = false
        }
    }

    /// Ends the watch for routes whose records wait, if armed (no record is left).
    public func endRecoveryWatch() {
        state.withLock { state -> CancellationHandle? in
            defer { state.recoveryWatch = nil }
            return state.recoveryWatch
        }?.cancel()
    }

    /// Calls `handler` with every event published from now on, until the handle is cancelled.
    public func observe(_ handler: @escaping @Sendable (VolumeHoldEvent) -> Void) -> CancellationHandle {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            state.observers[state.nextID] = handler
            return state.nextID
        }
        return CancellationHandle { [weak self] in self?.state.withLock { _ = $0.observers.removeValue(forKey: id) } }
    }
}

/// Reports one ``VolumeButtonsEngine``'s hold on the system volume to its process's ``VolumeHoldBoard``.
///
/// Every ``VolumeButtonsEngine`` owns one and calls it itself — ``started()`` once capture's subscriptions are in
/// place, ``ready(userVolume:)`` when the volume view is ready, ``userVolumeChanged(_:)`` with each change of
/// the user's volume, ``stopped(userVolume:)`` at teardown — so an app wires nothing. For configurations that never hold the volume (passive mode, capture events) it reports
/// no hold, so a HUD keeps following `outputVolume` — there the user's own presses move it (passive mode) or
/// nothing moves it (capture events); in capture mode it reports that presses are input
/// (``VolumeHoldBoard/isCapturingPresses``), so a HUD on the user's volume shows no bump for them.
public final class VolumeHoldReporter: Sendable {
    private let board: VolumeHoldBoard
    private let holdsVolume: Bool
    private let capturesPresses: Bool
    private let isHolding = Locked(false)
    private let isRunning = Locked(false)

    /// A reporter for an engine with `configuration` running on `clients`.
    public init(configuration: VolumeButtonsConfiguration, clients: VolumeKitClients) {
        board = clients.holdBoard
        holdsVolume = VolumeHoldReporter.holdsVolume(configuration)
        capturesPresses = configuration.mode == .capture
    }

    /// Whether an engine with `configuration` moves the system volume away from the user's while it captures.
    public static func holdsVolume(_ configuration: VolumeButtonsConfiguration) -> Bool {
        configuration.mode == .capture && configuration.strategy != .captureEvents
    }

    /// The engine started (its volume may move from now on).
    public func started() {
        guard
            isRunning.withLock({ running in
                defer { running = true }; return !running
            })
        else { return }
        board.setButtonEngineRunning(true)
        if capturesPresses { board.setCapturingPresses(true) }
        guard holdsVolume else { return }
        isHolding.withLock { $0 = true }
        board.publish(.began(userVolume: nil))
    }

    /// The engine became ready; `userVolume` is its ``VolumeButtonsEngine/userVolume`` then.
    public func ready(userVolume: Float) {
        guard isHolding.current else { return }
        board.publish(.userVolume(userVolume, byUser: false))
    }

    /// The engine reported a change of the user's own volume.
    public func userVolumeChanged(_ volume: Float) {
        guard isHolding.current else { return }
        board.publish(.userVolume(volume, byUser: true))
    }

    /// The engine finished stopping (the user's volume is back), or failed to start.
    public func stopped(userVolume: Float? = nil) {
        guard
            isRunning.withLock({ running in
                defer { running = false }; return running
            })
        else { return }
        board.setButtonEngineRunning(false)
        if capturesPresses { board.setCapturingPresses(false) }
        guard
            isHolding.withLock({ holding in
                defer { holding = false }; return holding
            })
        else { return }
        board.publish(.ended(userVolume: userVolume))
    }
}
