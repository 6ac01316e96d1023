import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Sets of VolumeKit's still on their way when the route changes, on the device behaviours the envelope sweep
/// found them failing on (issue 11, item 5): each route keeps its own volume, and no landing is a press.
@Suite("Correct across the envelope: a route change while sets are on their way")
struct RouteChangeInFlightTests {
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
        let result = try runScript(Self.headphones, Self.slowSliderKVOFirst)
        #expect(result.presses == [.up, .down, .up])
        #expect(!result.repeated)
    }

    @Test("A reset that landed silently does not swallow a later press landing on the same value")
    func silentLandingExpires() throws {
        let result = try runScript(
            Self.headphones,
            [
                "sliderLatency=0.0943", "kvoLatency=0.0288", "routeNotification=afterKVO", "stepQuantization=grid",
                "downPressRefusal=none", "repeatInterval=0.06",
            ])
        #expect(result.presses == [.up, .down, .up])
    }

    static let headphonesDuringResetScript = """
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
        let script = Self.headphonesDuringResetScript.replacingOccurrences(of: "press up\n", with: "")
        let result = try runScript(
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
        let result = try runScript(
            Self.headphonesDuringResetScript.replacingOccurrences(of: "ios 16.4", with: "ios 17.4"),
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
                Self.headphonesDuringResetScript.replacingOccurrences(of: "ios 16.4", with: "ios 15.0"), [.down, .up],
                ["sliderLatency=0.0053", "kvoLatency=0.0018", "routeNotificationGap=0.0111", "tapLength=0.15"]
            ),
        ])
    func routeKVOAfterNotification(script: String, presses: [VolumeButton], rules: [String]) throws {
        let result = try runScript(script, rules + ["routeNotification=beforeKVO", "downPressRefusal=none"])
        #expect(result.presses == presses)
    }

    @Test("A reset refused during a down press does not swallow the next up press landing on its value")
    func refusedResetExpires() throws {
        let result = try runScript(
            Self.headphones.replacingOccurrences(of: "ios 16.4", with: "ios 17.4"),
            [
                "sliderLatency=0.1332", "kvoLatency=0.03", "routeNotification=afterKVO", "routeNotificationGap=0.0086",
                "downPressRefusal=seedShape", "tapLength=0.0752", "stepQuantization=exact",
            ], strategy: .systemNotification)
        #expect(result.presses == [.up, .down, .up])
    }

    @Test(
        "A route change with no notification is reported (routeChangeNotNotified); one with its notification is not",
        arguments: ["missing", "afterKVO", "beforeKVO"])
    func unnotifiedRouteChangeIsReported(order: String) throws {
        let run = try CaptureRun(["routeNotification=\(order)"], volume: 0.5, headphones: 0.25)
        run.device.connect(.headphones)
        run.device.advance(by: 1)
        let reported = run.diagnostics.current.contains(.routeChangeNotNotified)
        #expect(reported == (order == "missing"), "\(run.diagnostics.current)")
        run.stop()
    }

    @Test(
        "Route KVO before the route notification (or none): no phantom presses, each route keeps the user's volume",
        arguments: ["afterKVO", "missing"])
    func routeKVOFirst(order: String) throws {
        let run = try CaptureRun(["routeNotification=\(order)"], volume: 0.875, headphones: 0.5)
        run.device.connect(.headphones)
        run.device.advance(by: 0.5)
        run.device.press(.up)
        run.device.advance(by: 0.5)
        #expect(run.pressed == [.up], "a 0.875 → 0.5 jump is not 6 down presses")
        run.stop()
        #expect(run.device.volume(on: .headphones) == 0.5)
        #expect(run.device.volume(on: .speaker) == 0.875)
    }

    @Test("Headphones plugged in while a reset is in flight: the speaker gets the user's volume back")
    func headphonesDuringReset() throws {
        let run = try CaptureRun(["kvoLatency=0", "sliderLatency=0.1"], volume: 0, headphones: 0.5)
        run.device.press(.down)
        run.device.advance(by: 0.02)
        run.device.connect(.headphones)
        run.device.advance(by: 0.5)
        run.device.connect(.speaker)
        run.device.advance(by: 0.5)
        run.stop()
        #expect(run.device.volume(on: .speaker) == 0)
        #expect(run.device.volume(on: .headphones) == 0.5)
    }

    @Test("A route change with no notification and no KVO (the new route at the held value) is followed at stop")
    func silentRouteChange() throws {
        // The speaker is held at 0.875 (the user's 1 less the headroom); the headphones are at 0.875 too.
        let run = try CaptureRun(["routeNotification=missing"], volume: 1, headphones: 0.875)
        run.device.connect(.headphones)
        run.device.advance(by: 0.5)
        run.stop()
        #expect(run.device.volume(on: .headphones) == 0.875, "the speaker's volume is not put on the headphones")
        run.device.connect(.speaker)
        let outcome = Locked<VolumeRecovery.Outcome?>(nil)
        VolumeRecovery.recoverIfNeeded(run.device.clients) { result in outcome.withLock { $0 = result } }
        run.device.advance(by: 0.6)
        #expect(run.device.volume(on: .speaker) == 1, "the speaker's record gives the user's volume back there")
    }

    @Test(
        "The route's KVO showing the anchor VolumeKit left there does not consume the echo of the anchor set again"
    )
    func routeKVOAtLeftAnchor() throws {
        // The speaker is at the top rail: VolumeKit holds it at the anchor 0.875 and leaves it there (with a
        // record) for the headphones. Back on the speaker, its KVO (0.875) comes before the route's notification
        // and before the headphones' reset, still in flight, lands there; VolumeKit sets the anchor 0.875 again.
        let run = try CaptureRun(
            [
                "routeNotification=afterKVO", "routeNotificationGap=0.0032", "sliderLatency=0.0614",
                "kvoLatency=0.0283", "downPressRefusal=none", "stepQuantization=rounded", "tapLength=0.15",
            ], volume: 1, headphones: 0.29)
        run.device.connect(.headphones)
        run.device.advance(by: 0.5)
        run.device.press(.down)
        run.device.advance(by: 0.425)
        run.device.connect(.speaker)
        run.device.advance(by: 0.5)
        run.stop()
        #expect(run.pressed == [.down])
        #expect(
            run.device.volume(on: .speaker) == 1,
            "the anchor set's own landing (0.875) is not the user's speaker volume")
        let records = PendingRestores.load(from: run.device.clients.keyValueStore).byRoute
        let headphones = records[.headphones]?.userVolume ?? run.device.volume(on: .headphones)
        #expect(abs(headphones - 0.29) < 1e-4, "headphones at \(headphones), not the user's 0.29")
    }

    @Test(
        "Headphones plugged in while a reset is in flight, the route's notification late or missing: the reset landing there is not taken for their volume",
        arguments: ["routeNotification=afterKVO", "routeNotification=missing"])
    func resetLandingOnNewRoute(order: String) throws {
        // sessions systemNotification-4191-33188529, -4560-36110640, -4373-34629787 (and 16 more)
        let behaviour = try DeviceBehaviour(rules: [
            order, "routeNotificationGap=0.02", "kvoLatency=0.005", "sliderLatency=0.1",
        ])
        let device = SimulatedDevice(.init(volume: 0.5, headphonesVolume: 0.25, behaviour: behaviour))
        let engine = VolumeButtonsEngine(configuration: .notification, clients: device.clients, onEvent: { _ in })
        try engine.start()
        device.advance(by: 1.2)
        device.press(.up)
        // The reset (issued 5 ms after the press) lands 100 ms later: plug in 10 ms before it lands.
        device.advance(by: 0.095)
        device.connect(.headphones)
        device.advance(by: 1)
        #expect(engine.userVolume == 0.25, "the headphones' own volume, not the speaker's reset landing there")
        engine.stop()
        device.advance(by: 2)
        #expect(device.volume(on: .headphones) == 0.25)
        device.connect(.speaker)
        recover(device, settle: 1.5)
        #expect(device.volume(on: .speaker) == 0.5, "the speaker's record gives the user's volume back there")
    }

    @Test("Headphones plugged in just after a nudge landed on the speaker, unseen yet: the speaker keeps its record")
    func nudgeInFlightAtRouteChange() throws {
        // session systemNotification-4807-38066634: the speaker left 2/4096 below the user's 0.33, its record gone
        let behaviour = try DeviceBehaviour(rules: ["kvoLatency=0.03", "sliderLatency=0.1", "downPressRefusal=none"])
        let device = SimulatedDevice(.init(volume: 0.5, headphonesVolume: 0.25, behaviour: behaviour))
        let engine = VolumeButtonsEngine(configuration: .notification, clients: device.clients, onEvent: { _ in })
        try engine.start()
        device.advance(by: 1.2)
        // Press 1's settle set (0.5) lands after press 2 is seen; press 2's nudge lands just before the route
        // change and is seen just after it.
        device.press(.down)
        device.advance(by: 0.40)
        device.press(.down)
        device.advance(by: 0.14)
        device.connect(.headphones)
        device.advance(by: 1)
        engine.stop()
        device.advance(by: 2)
        #expect(device.volume(on: .headphones) == 0.25)
        device.connect(.speaker)
        recover(device, settle: 1.5)
        #expect(device.volume(on: .speaker) == 0.5, "the speaker's record gives the user's volume back there")
    }

    @Test("Back on a route VolumeKit once left mid-reset, then a crash: a press to where it had left it is the user's")
    func staleLeftVolume() throws {
        // session systemNotification-2468-19544092: the headphones' record kept `leftVolume` 0 after VolumeKit
        // held them again; the user's presses to 0 after a crash were undone
        let behaviour = try DeviceBehaviour(rules: ["kvoLatency=0.005", "sliderLatency=0.1", "idleButtons=media"])
        let device = SimulatedDevice(.init(volume: 0.5, headphonesVolume: 0.0625, behaviour: behaviour))
        let engine = VolumeButtonsEngine(configuration: .notification, clients: device.clients, onEvent: { _ in })
        device.connect(.headphones)
        try engine.start()
        device.advance(by: 1.2)
        device.press(.down)
        device.advance(by: 0.05)
        device.connect(.speaker)
        device.advance(by: 1)
        device.connect(.headphones)
        device.advance(by: 1)
        #expect(device.volume(on: .headphones) == 0.0625)
        device.crash()
        device.advance(by: 0.1)
        device.press(.down)
        device.advance(by: 0.3)
        device.launch()
        recover(device, settle: 1.5)
        #expect(device.volume(on: .headphones) == 0, "the user's press to 0 after the crash stays")
    }
}
