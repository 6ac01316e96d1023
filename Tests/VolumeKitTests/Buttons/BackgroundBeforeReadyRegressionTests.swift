import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// The app goes to the background before the volume view is ready, and the user presses meanwhile (issue 11).
@Suite("Background before the view is ready")
struct BackgroundBeforeReadyRegressionTests {
    @Test("Presses in the background before the view is ready: VolumeKit sets nothing until the app is active")
    func noSetsInBackgroundAtViewReady() throws {
        // session outputVolume-5576-44156344: backgrounded at 0.4 s, the user pressed down from 0.33 to 0; at view
        // ready VolumeKit started and suspended at once — it set its anchor 0.125 and "the user's" 0.08 (a read
        // taken before the last presses landed) over the user's 0, in the background; the user's 0 was lost
        let device = SimulatedDevice(.init(volume: 0.33, behaviour: .sample(5576)))
        let away = Locked(false)
        let unexpected = failOnUnexpectedCall("VolumeKit sets nothing while the app is in the background")
        let clients = device.clients.reportingCalls { call in
            if away.current, call == "systemVolume.setVolume" { unexpected(call) }
        }
        let engine = VolumeButtonsEngine(
            configuration: VolumeButtonsConfiguration(strategy: .outputVolume), clients: clients,
            onEvent: { _ in })
        try engine.start()
        device.advance(by: 0.4)
        away.withLock { $0 = true }
        device.background()
        device.advance(by: 0.2)
        for _ in 0..<6 {
            device.press(.down)
            device.advance(by: 0.055)
        }
        device.advance(by: 1.0)
        #expect(device.volume == 0)
        away.withLock { $0 = false }
        device.foreground()
        device.advance(by: 1.0)
        engine.stop()
        device.advance(by: 1.0)
        #expect(device.volume == 0)
    }
}
