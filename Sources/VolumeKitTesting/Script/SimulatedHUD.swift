import Foundation
import VolumeKitCore

/// The simulated app's custom volume HUD: a ``VolumeHUDModel`` fed with the user's volume, button events and
/// the app's active state, its hide timer on the device's virtual clock. Each display change is reported.
final class SimulatedHUD: Sendable {
    private struct State {
        var model: VolumeHUDModel
        var timer: CancellationHandle?
    }

    private let clients: VolumeKitClients
    private let onDisplay: @Sendable (VolumeHUDDisplay, Instant) -> Void
    private let state: Locked<State>
    private let lifecycle: Locked<CancellationHandle?> = Locked(nil)

    init(clients: VolumeKitClients, level: Float, onDisplay: @escaping @Sendable (VolumeHUDDisplay, Instant) -> Void) {
        self.clients = clients
        self.onDisplay = onDisplay
        state = Locked(State(model: VolumeHUDModel(level: level, hideDelay: VolumeHUDStyle.classic.autoHideDelay)))
        let subscription = clients.lifecycle.observe { [weak self] event in
            guard let self else { return }
            switch event {
            case .willResignActive: self.apply { $0.appResignedActive(at: $1) }
            case .didBecomeActive: self.apply { $0.appBecameActive(at: $1) }
            default: break
            }
        }
        lifecycle.withLock { $0 = subscription }
    }

    /// The user's volume changed.
    func level(_ value: Float) { apply { $0.levelChanged(value, at: $1) } }

    /// A button event arrived.
    func handle(_ event: VolumeButtonEvent) { apply { model, _ in model.handle(event) } }

    /// Stops following the app.
    func stop() {
        lifecycle.current?.cancel()
        state.current.timer?.cancel()
    }

    private func apply(_ input: (inout VolumeHUDModel, Instant) -> [VolumeHUDAction]) {
        let now = clients.clock.now()
        let actions = state.withLock { input(&$0.model, now) }
        for action in actions {
            switch action {
            case .display(let display):
                onDisplay(display, now)
            case .scheduleTick(let due):
                let timer = clients.clock.schedule(max(0, due - now)) { [weak self] in
                    self?.apply { $0.tick(at: $1) }
                }
                let old = state.withLock { state -> CancellationHandle? in
                    defer { state.timer = timer }
                    return state.timer
                }
                old?.cancel()
            case .cancelTick:
                state.withLock { $0.timer }?.cancel()
            case .announce:
                break
            }
        }
    }
}
