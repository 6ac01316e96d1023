import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// What VolumeKit believes of the volume while it cannot read it: a route change waiting for live reads, and a
/// set issued before the one taken as landed (issue 11, sn-9585, ov-8742).
@Suite("Correct across the envelope: beliefs while reads are stale")
struct StaleBeliefRegressionTests {
    @Test("A Control Center value on the route changed to during a call is the user's, not a press from the old one")
    func controlCenterOnRouteChangedDuringCall() throws {
        // A long down hold on the speaker (0.71) leaves VolumeKit's nudges below it when the call comes; the
        // restore is taken as landed with that leftover. During the call the audio moves to the headphones and
        // the user drags Control Center there to a value a whole step above the speaker's nudged volume.
        let run = try EnvelopeRegressionTests.Run(
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
        let run = try EnvelopeRegressionTests.Run(
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
}
