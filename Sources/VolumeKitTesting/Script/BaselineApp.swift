import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The approach most anchor libraries ship, run on the same simulated device for comparison
/// (JPSVolumeButtonHandler and its ports; seed 000's sample): KVO on `outputVolume`, a synchronous reset to
/// 0.00001 / 0.99999 inside the callback when a press reaches a rail, callbacks equal to those values
/// skipped, direction from `new > old`, no echo handling, no release, no restore on stop.
///
/// It is given primed output (as if the app had played audio) so that the comparison shows the capture
/// logic, not seed 001's stale-volume pitfall.
final class BaselineApp: Sendable {
    static let minVolume: Float = 0.00001
    static let maxVolume: Float = 0.99999

    private struct State {
        var last: Float = 0
        var isActive = true
        var subscriptions: [CancellationHandle] = []
        var view: CancellationHandle?
    }

    private let clients: VolumeKitClients
    private let onEvent: @Sendable (VolumeButtonEvent) -> Void
    private let state = Locked(State())

    init(clients: VolumeKitClients, onEvent: @escaping @Sendable (VolumeButtonEvent) -> Void) {
        self.clients = clients
        self.onEvent = onEvent
    }

    func start() {
        try? clients.audioSession.setConfiguration(.playbackMixing)
        try? clients.audioSession.setActive(true, false)
        clients.audioSession.primeOutput()
        let view = clients.systemVolume.installVolumeView {}
        let initial = clients.systemVolume.outputVolume()
        // JPS `setInitialVolume`: move off the rails at once (before the view is ready, so often lost).
        if initial > Self.maxVolume { clients.systemVolume.setVolume(Self.maxVolume) }
        if initial < Self.minVolume { clients.systemVolume.setVolume(Self.minVolume) }
        let kvo = clients.systemVolume.observeOutputVolume { [weak self] value in self?.volumeChanged(value) }
        let lifecycle = clients.lifecycle.observe { [weak self] event in self?.lifecycle(event) }
        state.withLock {
            $0.last = initial
            $0.subscriptions = [kvo, lifecycle]
            $0.view = view
        }
    }

    func stop() {
        let (subscriptions, view) = state.withLock { ($0.subscriptions, $0.view) }
        subscriptions.forEach { $0.cancel() }
        view?.cancel()
    }

    private func volumeChanged(_ new: Float) {
        let (old, active) = state.withLock { state -> (Float, Bool) in
            defer { state.last = new }
            return (state.last, state.isActive)
        }
        guard active else { return }
        if new == Self.minVolume || new == Self.maxVolume { return }
        if new == 0 { clients.systemVolume.setVolume(Self.minVolume) }
        if new == 1 { clients.systemVolume.setVolume(Self.maxVolume) }
        onEvent(VolumeButtonEvent(button: new > old ? .up : .down, phase: .pressed, time: clients.clock.now()))
    }

    private func lifecycle(_ event: AppLifecycleEvent) {
        switch event {
        case .willResignActive: state.withLock { $0.isActive = false }
        case .didBecomeActive: state.withLock { $0.isActive = true }
        case .interruptionEnded, .mediaServicesWereReset: try? clients.audioSession.setActive(true, false)
        default: break
        }
    }
}
