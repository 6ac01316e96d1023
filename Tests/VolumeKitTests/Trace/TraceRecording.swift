import Foundation
import VolumeKitCore
import VolumeKitTesting

/// A simulated run recorded through the clients' decorator: a `SimulatedDevice`, a `VolumeButtonsEngine`
/// on the device's clients wrapped by `recording(to:feature:)`, and what the app saw.
final class TraceRecording: @unchecked Sendable {
    let device: SimulatedDevice
    let recorder: TraceRecorder
    let engine: VolumeButtonsEngine
    private let seen = Locked([VolumeButtonEvent]())

    init(_ configuration: SimulatedDevice.Configuration = .init(), buttons: VolumeButtonsConfiguration = .init()) {
        device = SimulatedDevice(configuration)
        let recorder = TraceRecorder(header: .simulator(device, buttons: buttons, note: "test"), clock: device.clock)
        self.recorder = recorder
        let seen = self.seen
        engine = VolumeButtonsEngine(
            configuration: buttons,
            clients: device.clients.recording(to: recorder, feature: "buttons"),
            onEvent: { event in
                seen.withLock { $0.append(event) }
                recorder.buttonEvent(event)
            }
        )
    }

    /// The button events the app received.
    var events: [VolumeButtonEvent] { seen.current }

    func start() throws {
        recorder.appCalled("start", on: "buttons")
        try engine.start()
        device.advance(by: 1.5)
    }

    func stop() {
        recorder.appCalled("stop", on: "buttons")
        engine.stop()
        device.advance(by: 1)
    }

    func press(_ button: VolumeButton, wait: TimeInterval = 0.5) {
        recorder.gesture(.press(button))
        device.press(button)
        device.advance(by: wait)
    }

    func hold(_ button: VolumeButton, for seconds: TimeInterval, wait: TimeInterval = 0.8) {
        recorder.gesture(.hold(button, seconds: seconds))
        device.hold(button, for: seconds)
        device.advance(by: seconds + wait)
    }

    func connect(_ route: AudioRoute, wait: TimeInterval = 1) {
        recorder.gesture(.other("route \(route.rawValue)"))
        device.connect(route)
        device.advance(by: wait)
    }

    /// A session exercising every rule the fitter estimates: taps both ways, holds both ways, a Control
    /// Center change away from the grid, routes there and back, and a stop.
    static func standardSession(
        _ configuration: SimulatedDevice.Configuration = .init(),
        buttons: VolumeButtonsConfiguration = .init()
    ) throws -> TraceRecording {
        let run = TraceRecording(configuration, buttons: buttons)
        // Capture events reach only an app whose camera runs (DeviceBehaviour.captureEventsGate).
        if buttons.strategy == .captureEvents { run.device.startCamera() }
        try run.start()
        run.press(.up)
        run.press(.up)
        run.press(.down)
        run.hold(.up, for: 1.6)
        run.hold(.down, for: 1.3)
        run.recorder.gesture(.other("Control Center slider to 0.3"))
        run.device.controlCenterSlider(0.3)
        run.device.advance(by: 1)
        run.press(.up)
        run.press(.down)
        run.connect(.headphones)
        run.press(.up)
        run.connect(.speaker)
        run.press(.down)
        run.stop()
        return run
    }
}
