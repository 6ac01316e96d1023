import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Sets of VolumeKit's still on their way when something else happens — a route change, a background trip
/// during a hold — on the device behaviours the envelope sweep found them failing on (issue 11, item 5).
@Suite("Correct across the envelope: sets in flight")
struct InFlightSetRegressionTests {
    /// Runs `script` on a device with `rules` ("name=value") and returns the presses, whether any press
    /// repeated, and the runner (for the device's volumes).
    func run(
        _ script: String, _ rules: [String], strategy: SimulatedStrategy = .outputVolume
    ) throws -> (presses: [VolumeButton], repeated: Bool, runner: ScenarioRunner) {
        let behaviour = try DeviceBehaviour(rules: rules)
        let runner = ScenarioRunner(scenario: try Scenario(parsing: script), strategy: strategy, behaviour: behaviour)
        let events = runner.run().compactMap { record -> (VolumeButton, ButtonPhase)? in
            if case .button(let button, let phase) = record.kind { return (button, phase) }
            return nil
        }
        return (events.filter { $0.1 == .pressed }.map(\.0), events.contains { $0.1 == .repeated }, runner)
    }

    /// A slow slider: the resets after a press land on the headphones plugged in meanwhile.
    static let slowSliderKVOFirst = [
        "sliderLatency=0.15", "kvoLatency=0.0271", "routeNotification=afterKVO", "stepQuantization=grid",
        "downPressRefusal=none",
    ]

    static let headphones = """
        ios 16.4
        volume 0.5
        start
        press up
        route headphones
        wait 0.1
        press down
        press up
        wait 1
        stop
        """

    @Test("Resets landing on the new route are not read as presses (a re-set while they fly is counted too)")
    func resetsLandOnNewRoute() throws {
        let result = try run(Self.headphones, Self.slowSliderKVOFirst)
        #expect(result.presses == [.up, .down, .up])
        #expect(!result.repeated)
    }

    @Test("A reset that landed silently does not swallow a later press landing on the same value")
    func silentLandingExpires() throws {
        let result = try run(
            Self.headphones,
            [
                "sliderLatency=0.0943", "kvoLatency=0.0288", "routeNotification=afterKVO", "stepQuantization=grid",
                "downPressRefusal=none", "repeatInterval=0.06",
            ])
        #expect(result.presses == [.up, .down, .up])
    }

    static let headphonesDuringReset = """
        ios 16.4
        volume 0
        start
        press down x1 every 0.05
        route headphones
        wait 0.5
        press up
        route speaker
        wait 0.5
        stop
        """

    @Test("Headphones plugged in while a reset flies: their volume is the route's own, not the landed reset")
    func newRouteVolumeIsNotTheLandedReset() throws {
        let script = Self.headphonesDuringReset.replacingOccurrences(of: "press up\n", with: "")
        let result = try run(
            script,
            [
                "sliderLatency=0.0406", "kvoLatency=0.0282", "routeNotification=afterKVO", "stepQuantization=grid",
                "downPressRefusal=none",
            ])
        #expect(result.presses == [.down])
        // Headphones keep the user's 0 (restored now or, the route being left, by the saved record).
        let records = PendingRestores.load(from: result.runner.device.clients.keyValueStore).byRoute
        let headphones = records[.headphones]?.userVolume ?? result.runner.device.volume(on: .headphones)
        #expect(headphones == 0, "the reset that landed there (0.12476) is not the user's headphones volume")
    }

    @Test("A reset from before the route change landing on the old route does not turn its KVO into a press")
    func oldRouteLandingIsNotAPress() throws {
        let result = try run(
            Self.headphonesDuringReset.replacingOccurrences(of: "ios 16.4", with: "ios 17.4"),
            [
                "sliderLatency=0.1199", "kvoLatency=0.0257", "routeNotification=afterKVO", "stepQuantization=exact",
                "downPressRefusal=seedShape", "tapLength=0.072",
            ])
        #expect(result.presses == [.down, .up])
    }

    @Test(
        "The new route's KVO after its notification is the route's volume, not a landing of ours or a press",
        arguments: [
            // A slow slider: the route's KVO would consume the echo of a reset still flying there.
            (
                Self.headphones.replacingOccurrences(of: "ios 16.4", with: "ios 15.0"), [VolumeButton.up, .down, .up],
                ["stepQuantization=rounded", "sliderLatency=0.15", "kvoLatency=0.0215", "routeNotificationGap=0.0193"]
            ),
            // A fast slider: the reset after the notification lands before the route's KVO, read as 2 presses.
            (
                Self.headphonesDuringReset.replacingOccurrences(of: "ios 16.4", with: "ios 15.0"), [.down, .up],
                ["sliderLatency=0.0053", "kvoLatency=0.0018", "routeNotificationGap=0.0111", "tapLength=0.15"]
            ),
        ])
    func routeKVOAfterNotification(script: String, presses: [VolumeButton], rules: [String]) throws {
        let result = try run(script, rules + ["routeNotification=beforeKVO", "downPressRefusal=none"])
        #expect(result.presses == presses)
    }

    @Test("A reset refused during a down press does not swallow the next up press landing on its value")
    func refusedResetExpires() throws {
        let result = try run(
            Self.headphones.replacingOccurrences(of: "ios 16.4", with: "ios 17.4"),
            [
                "sliderLatency=0.1332", "kvoLatency=0.03", "routeNotification=afterKVO", "routeNotificationGap=0.0086",
                "downPressRefusal=seedShape", "tapLength=0.0752", "stepQuantization=exact",
            ], strategy: .systemNotification)
        #expect(result.presses == [.up, .down, .up])
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
        let result = try run(
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
        "A route change with no notification is reported (routeChangeNotNotified); one with its notification is not",
        arguments: ["missing", "afterKVO", "beforeKVO"])
    func unnotifiedRouteChangeIsReported(order: String) throws {
        let run = try EnvelopeRegressionTests.Run(["routeNotification=\(order)"], volume: 0.5, headphones: 0.25)
        run.device.connect(.headphones)
        run.device.advance(by: 1)
        let reported = run.diagnostics.current.contains(.routeChangeNotNotified)
        #expect(reported == (order == "missing"), "\(run.diagnostics.current)")
        run.stop()
    }

    @Test("A Control Center drag whose values come about a step apart is the user's values, not presses")
    func dragNearWholeSteps() throws {
        let behaviour = try DeviceBehaviour(rules: [
            "controlCenterDrag=series", "stepQuantization=rounded", "sliderLatency=0.0061", "kvoLatency=0.0144",
        ])
        let device = SimulatedDevice(.init(osVersion: OSVersion(16, 4), volume: 0.68, behaviour: behaviour))
        let engine = VolumeButtonsEngine(
            configuration: SimulatedStrategy.systemNotification.configuration!, clients: device.clients,
            onEvent: { _ in })
        try engine.start()
        device.advance(by: 0.5)
        device.interruption(began: true)
        device.advance(by: 0.2)
        // 0.68 → 0.99 in five values 0.062 apart, close to a step (0.0625) each.
        device.controlCenterDrag(0.99)
        device.advance(by: 1)
        #expect(abs(device.volume - 0.99) < 1e-4, "the drag's end is the user's volume, not 0.68 + 5 steps")
        device.interruption(began: false)
        device.advance(by: 0.5)
        engine.stop()
        device.advance(by: 1)
        #expect(abs(device.volume - 0.99) < 1e-4)
    }
}
