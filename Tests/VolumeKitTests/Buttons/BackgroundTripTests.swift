import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Trips to the background — before the volume view is ready, during a hold, at a rail — while the user presses:
/// VolumeKit sets nothing while the app is away, and what the user did there is theirs.
@Suite("Trips to the background: nothing set there, the user's presses kept")
struct BackgroundTripTests {
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

    @Test("Background during a hold: the hold's nudges do not become the user's volume")
    func backgroundDuringHold() throws {
        let script = """
            ios 17.4
            volume 0.5
            start
            hold down 1.5 &
            wait 0.9
            background
            wait 1
            foreground
            wait 1
            stop
            """
        let result = try runScript(
            script,
            [
                "stepQuantization=rounded", "sliderLatency=0.0415", "kvoLatency=0.0273", "firstRepeatDelay=0.3",
                "repeatInterval=0.1474", "downPressRefusal=none", "suspensionDelay=4",
            ], strategy: .systemNotification)
        // The presses made while the app was in the background are the user's: whole steps from 0.5.
        let volume = result.runner.device.volume(on: .speaker)
        let steps = ((volume - 0.5) * 16).rounded()
        #expect(abs(volume - (0.5 + steps / 16)) < 1e-4, "speaker at \(volume), not whole steps from 0.5")
    }

    @Test(
        "A home gesture and straight back at 0 or 1: no phantom presses, the user's volume kept",
        arguments: [Float(0), 1])
    func homeAndBack(volume: Float) throws {
        let run = try CaptureRun([], volume: volume)
        run.device.background()
        run.device.foreground()
        run.device.advance(by: 0.5)
        let button: VolumeButton = volume == 0 ? .down : .up
        run.device.press(button)
        run.device.advance(by: 1)
        #expect(run.pressed == [button])
        #expect(run.engine.userVolume == volume)
        run.stop()
        #expect(run.device.volume == volume)
    }
}
