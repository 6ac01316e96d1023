import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Calls and interruptions, while VolumeKit cannot read the volume live (issue 11, sn-9585, ov-8742): what the
/// user changes meanwhile is theirs, and VolumeKit's restores are neither lost nor undone by a late echo.
@Suite("Correct across the envelope: calls and interruptions")
struct CallAndInterruptionTests {
    @Test("A Control Center value on the route changed to during a call is the user's, not a press from the old one")
    func controlCenterOnRouteChangedDuringCall() throws {
        // A long down hold on the speaker (0.71) leaves VolumeKit's nudges below it when the call comes; the
        // restore is taken as landed with that leftover. During the call the audio moves to the headphones and
        // the user drags Control Center there to a value a whole step above the speaker's nudged volume.
        let run = try CaptureRun(
            [
                "firstRepeatDelay=0.466", "repeatInterval=0.0847", "stepQuantization=rounded",
                "downPressRefusal=seedShape", "kvoLatency=0.0298", "sliderLatency=0.1087",
                "routeNotification=afterKVO", "routeNotificationGap=0.015",
            ], volume: 0.71, headphones: 0.9375,
            configuration: .init(strategy: .systemNotification, allowsPrivateAPI: true))
        run.device.hold(.down, for: 1.3)
        run.device.advance(by: 1.4)
        let nudged =
            run.device.log.compactMap { entry -> Float? in
                if case .programmaticSet(_, let value) = entry { value } else { nil }
            }.last ?? 0.71
        #expect(abs(nudged - 0.71) > 0.002, "the hold left VolumeKit's nudges (\(nudged)) when the call comes")
        run.device.phoneCall(began: true)
        run.device.advance(by: 0.5)
        run.device.connect(.headphones)
        run.device.advance(by: 0.3)
        let choice = nudged + VolumeStepMachine.step
        run.device.controlCenterSlider(choice)
        run.device.advance(by: 0.5)
        run.device.phoneCall(began: false)
        run.device.advance(by: 1)
        run.stop()
        let headphones = run.device.volume(on: .headphones)
        #expect(abs(headphones - choice) < 2e-4, "headphones at \(headphones), not the user's \(choice)")
        #expect(abs(run.device.volume(on: .speaker) - 0.71) < 2e-4)
    }

    @Test("An interruption right after an up press: the anchor's late echo does not undo the restore taken as landed")
    func lateAnchorEchoAfterInterruption() throws {
        // The user's 0.9375 needs headroom: VolumeKit holds the headphones at the anchor 0.875. An up press; its
        // resets (beside the anchor, then the anchor) are observed just after an interruption begins, when the
        // user's 0.9375 given back has been taken as landed. Two down presses meanwhile are the user's: 0.8125.
        let run = try CaptureRun(
            [
                "stepQuantization=exact", "downPressRefusal=none", "kvoLatency=0.03", "sliderLatency=0.15",
                "tapLength=0.1", "routeNotification=afterKVO",
            ], volume: 0.5, headphones: 0.9375)
        run.device.connect(.headphones)
        run.device.advance(by: 1)
        run.device.press(.up)
        // The press's KVO (0.03) comes, its resets are issued and land 0.15 s later; their KVO 0.03 after that.
        run.device.advance(by: 0.03 + 0.15 + 0.01)
        run.device.interruption(began: true)
        run.device.advance(by: 0.2)
        run.device.press(.down)
        run.device.advance(by: 0.25)
        run.device.press(.down)
        run.device.advance(by: 0.1)
        run.device.interruption(began: false)
        run.device.advance(by: 1)
        run.stop()
        #expect(run.device.volume(on: .headphones) == 0.8125, "two presses down from the user's 0.9375")
    }

    @Test(
        "An interruption that never ends while the app stays in front: capture comes back by itself",
        arguments: ["idleButtons=media", "idleButtons=ringer"])
    func interruptionWithoutEnd(rule: String) throws {
        let run = try CaptureRun([rule])
        run.device.alarm(for: 2, sendsEnd: false)
        run.device.advance(by: 4)
        run.device.press(.up)
        run.device.advance(by: 1)
        #expect(run.pressed == [.up])
        #expect(run.pressHUDs == 0)
        run.stop()
        #expect(run.device.volume == 0.5)
    }

    @Test("A call right after returning from the background: the restore is not dropped by a stale slider cache")
    func restoreAtCallNotDropped() throws {
        // The slider's cache learns late of the landing of the background's restore (1.0) and still holds it when
        // the call comes: a lone set of 1.0 is dropped, leaving the anchor (0.875) as if it were the user's.
        let run = try CaptureRun(
            ["downPressRefusal=cachedEqualSetDrop", "volumeCacheDelay=0.1", "sliderLatency=0.15"], volume: 1)
        run.device.background()
        run.device.advance(by: 0.2)
        run.device.foreground()
        run.device.advance(by: 0.1)
        run.device.phoneCall(began: true)
        run.device.advance(by: 1)
        run.device.phoneCall(began: false)
        run.device.advance(by: 2)
        run.stop()
        #expect(run.device.volume == 1)
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

    @Test(
        "A Control Center value set during a call, a few thousandths from whole steps, is the user's as it is",
        arguments: [Float(0.126), 0.374, 0.251])
    func controlCenterDuringCall(value: Float) throws {
        let device = try simulatedDevice([], volume: 0.5)
        let engine = quietEngine(on: device)
        try engine.start()
        device.advance(by: 1.2)
        device.phoneCall(began: true)
        device.advance(by: 0.3)
        device.controlCenterSlider(value)
        device.advance(by: 0.8)
        device.phoneCall(began: false)
        device.advance(by: 1)
        engine.stop()
        device.advance(by: 2)
        #expect(abs(device.volume - value) < 1e-4)
    }
}
