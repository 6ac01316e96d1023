#if os(iOS)
import UIKit

/// The hardware volume buttons as input.
///
/// ```swift
/// let buttons = VolumeButtons()
/// try buttons.start()
/// let task = Task {
///     for await event in buttons.events() where event.phase == .pressed {
///         speaker.nudge(event.button == .up ? +1 : -1)
///     }
/// }
/// // later, when the screen goes away:
/// task.cancel()
/// buttons.stop()   // the user's own volume comes back
/// ```
///
/// While started, presses arrive as ``/VolumeKitCore/VolumeButtonEvent``s (even at volume 0 or 1), the system volume
/// HUD stays hidden, and the user's own volume is held and given back on ``stop()``, on resign-active and when
/// the app goes to the background. Presses are handled only while the app is active. The logic lives in
/// ``/VolumeKitCore/VolumeButtonsEngine`` (platform-free, tested on Linux against a simulated iPhone); this class
/// connects it to the real system.
@available(
    iOSApplicationExtension, unavailable, message: "needs the app (UIApplication): see the App extensions article"
)
@MainActor
public final class VolumeButtons {
    /// The configuration in force.
    public let configuration: VolumeButtonsConfiguration
    private let engine: VolumeButtonsEngine
    private let readiness: ReadinessWatch
    private let hub = EventHub()
    private var handlers: [UUID: (VolumeButtonEvent) -> Void] = [:]

    /// Called with problems that did not stop capture (a volume set that could not be confirmed, a session
    /// that could not be re-activated, an unreadable private notification).
    public var onDiagnostic: ((VolumeButtonsDiagnostic) -> Void)?
    /// Called when the user's own volume changes (Control Center, passive presses, another route).
    public var onUserVolumeChange: ((Float) -> Void)?
    /// Called when capture is still not ready ``readinessTimeout`` seconds after ``start()``: no window of the
    /// app's foreground scene could host the volume view yet (a launch into the background, a permission
    /// alert, Face ID). Capture begins by itself as soon as one exists.
    public var onNotReady: ((_ seconds: TimeInterval) -> Void)?
    /// How long ``start()`` may take to become ready before ``onNotReady`` is called (default 5 s).
    public var readinessTimeout: TimeInterval = 5

    /// Creates capture with `configuration`.
    /// - Parameters:
    ///   - configuration: strategy, mode, session, timing.
    ///   - captureView: for ``/VolumeKitCore/ButtonStrategy/captureEvents``, the camera screen's view (with the live
    ///     clients).
    ///   - clients: the system to run against; the live one by default (pass `SimulatedDevice.clients` to
    ///     drive capture from your app's tests).
    public init(
        _ configuration: VolumeButtonsConfiguration = VolumeButtonsConfiguration(),
        captureView: UIView? = nil,
        clients: VolumeKitClients? = nil
    ) {
        self.configuration = configuration
        let hub = self.hub
        let clients = clients ?? .live(captureView: captureView)
        readiness = ReadinessWatch(clock: clients.clock)
        engine = VolumeButtonsEngine(
            configuration: configuration,
            clients: clients,
            onEvent: { event in onMain { hub.send(event) } },
            onUserVolume: { volume in onMain { hub.sendVolume(volume) } },
            onDiagnostic: { diagnostic in onMain { hub.sendDiagnostic(diagnostic) } }
        )
        hub.onEvent = { [weak self] event in self?.handlers.values.forEach { $0(event) } }
        hub.onVolume = { [weak self] volume in self?.onUserVolumeChange?(volume) }
        hub.onDiagnostic = { [weak self] diagnostic in self?.onDiagnostic?(diagnostic) }
        hub.onNotReady = { [weak self] seconds in self?.onNotReady?(seconds) }
    }

    /// Stopping is part of letting go: an app that drops its `VolumeButtons` gets the user's volume back and
    /// the system HUD returned (the engine finishes its stop on its own).
    deinit {
        readiness.cancel()
        engine.stop()
    }

    /// Creates capture that calls `onEvent` for each event: the UIKit-friendly form.
    public convenience init(
        _ configuration: VolumeButtonsConfiguration = VolumeButtonsConfiguration(),
        captureView: UIView? = nil,
        clients: VolumeKitClients? = nil,
        onEvent: @escaping @MainActor (VolumeButtonEvent) -> Void
    ) {
        self.init(configuration, captureView: captureView, clients: clients)
        handlers[UUID()] = onEvent
    }

    /// Whether capture is running.
    public var isStarted: Bool { engine.isStarted }

    /// Whether presses are being captured right now: started, the app active, and the volume view proven ready — a
    /// set through it seen back, or (nothing to set) 1 s after it was installed (``/VolumeKitCore/VolumeViewReadiness``).
    public var isCapturing: Bool { engine.isCapturing }

    /// Starts capture; throws ``/VolumeKitCore/VolumeButtonsError`` when the strategy cannot run here.
    public func start() throws {
        guard !engine.isStarted else { return }
        let engine = self.engine
        let readiness = self.readiness
        let timeout = readinessTimeout
        readiness.start(timeout: timeout) { [hub] in onMain { hub.sendNotReady(timeout) } }
        do {
            try engine.start(onReady: { readiness.ready() })
        } catch {
            readiness.cancel()
            throw error
        }
    }

    /// Stops capture and returns everything to normal: the user's volume restored, the volume view
    /// removed, the session deactivated if VolumeKit activated it.
    public func stop() {
        readiness.cancel()
        engine.stop()
    }

    /// Stops capture as ``stop()`` does, and calls `onStopped` on the main actor once the user's volume is
    /// back and everything is torn down (the engine's ``/VolumeKitCore/VolumeButtonsEngine/stop(onStopped:)``). A
    /// deactivation the system refused is still retried after that, for up to
    /// ``/VolumeKitCore/AudioSessionLease/deactivationRetries`` ×
    /// ``/VolumeKitCore/AudioSessionLease/deactivationRetryDelay``. Not called when capture was not started.
    public func stop(onStopped: @escaping @MainActor @Sendable () -> Void) {
        readiness.cancel()
        // The engine's callback runs on whichever thread finished the teardown.
        engine.stop(onStopped: { onMain(onStopped) })
    }

    /// What capture has learned of this iPhone so far (round trip, hold rhythm, tap length, quantization), kept
    /// per model and iOS version on the phone itself and loaded at the next start (``/VolumeKitCore/CalibrationStore``).
    public var calibration: CalibrationMachine { engine.calibration }

    /// The calibration each time it learns something, until the task consuming it is cancelled (a field-check
    /// screen's "your iPhone", say). Values arrive on the engine's callback thread: hop to the main actor to show them.
    public func calibrationUpdates() -> AsyncStream<CalibrationMachine> { engine.calibrationUpdates() }

    /// Every event from now on, until the task consuming it is cancelled.
    public func events() -> AsyncStream<VolumeButtonEvent> {
        AsyncStream { continuation in
            let id = UUID()
            handlers[id] = { continuation.yield($0) }
            continuation.onTermination = { _ in
                Task { @MainActor [weak self] in self?.handlers[id] = nil }
            }
        }
    }

    /// Calls `handler` for each event until the returned token is cancelled.
    @discardableResult
    public func onEvent(_ handler: @escaping @MainActor (VolumeButtonEvent) -> Void) -> CancellationHandle {
        let id = UUID()
        handlers[id] = handler
        return CancellationHandle { Task { @MainActor [weak self] in self?.handlers[id] = nil } }
    }
}

/// Forwards events from the engine's callback to the shell on the main actor.
@MainActor
private final class EventHub: Sendable {
    var onEvent: ((VolumeButtonEvent) -> Void)?
    var onVolume: ((Float) -> Void)?
    var onDiagnostic: ((VolumeButtonsDiagnostic) -> Void)?
    var onNotReady: ((TimeInterval) -> Void)?
    func send(_ event: VolumeButtonEvent) { onEvent?(event) }
    func sendNotReady(_ seconds: TimeInterval) { onNotReady?(seconds) }
    func sendVolume(_ volume: Float) { onVolume?(volume) }
    func sendDiagnostic(_ diagnostic: VolumeButtonsDiagnostic) { onDiagnostic?(diagnostic) }
}
#endif
