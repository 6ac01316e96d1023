import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// The recovery run at launch (``VolumeRecovery``) after a crash, when the route or the user moves before it is
/// done (issue 11).
@Suite("A launch recovery while the route or the user moves")
struct RecoveryRunRegressionTests {
    /// A run on `device`'s speaker that crashed holding the anchor, `afterStart` seconds after its start
    /// (`beforeCrash` runs then, e.g. a press).
    private static func crashedRun(
        _ device: SimulatedDevice, afterStart: TimeInterval = 1.5, beforeCrash: (SimulatedDevice) -> Void = { _ in }
    ) throws {
        let engine = VolumeButtonsEngine(
            configuration: VolumeButtonsConfiguration(strategy: .outputVolume), clients: device.clients,
            onEvent: { _ in })
        try engine.start()
        device.advance(by: afterStart)
        beforeCrash(device)
        device.crash()
        device.advance(by: 0.3)
    }

    @Test("The route moves a moment before the recovery's view is ready: the old route's record is kept")
    func routeMovesJustBeforeReady() throws {
        // session outputVolume-13527-107120313: the speaker's record {user 0.0, held 0.125}; the recovery's view
        // became ready 9 ms after the output moved to the headphones (0.9375), before that route's KVO: the read
        // (the headphones' volume) was judged against the speaker's record, which was discarded — the speaker
        // stayed at VolumeKit's 0.125 for good
        let behaviour = DeviceBehaviour.sample(13527)
        let device = SimulatedDevice(.init(volume: 0.0, headphonesVolume: 0.9375, behaviour: behaviour))
        try Self.crashedRun(device)
        #expect(device.volume(on: .speaker) == 0.125)
        device.launch()
        VolumeRecovery.recoverIfNeeded(device.clients) { _ in }
        device.advance(by: behaviour.volumeViewReadyDelay - 0.01)
        device.connect(.headphones)
        device.advance(by: 1.5)
        #expect(device.volume(on: .headphones) == 0.9375)
        // Back on the speaker, the next recovery gives the user's 0.0 back.
        device.connect(.speaker)
        device.advance(by: 0.5)
        VolumeRecovery.recoverIfNeeded(device.clients) { _ in }
        device.advance(by: 1.5)
        #expect(device.volume(on: .speaker) == 0.0)
        #expect(device.volume(on: .headphones) == 0.9375)
    }

    @Test("A press from a crashed run's anchor while the recovery puts the volume back is the press's value")
    func pressFromCrashedAnchorDuringRecovery() throws {
        // session outputVolume-12073-95606087 (presses snap to the 1/16 grid): the user's 0.12 (Control Center),
        // VolumeKit's anchor 0.125, a crash just after its nudge 0.12476 below it. The recovery (no anchor of its
        // own) was putting 0.12 back when the user pressed down: 0.12476 → 0.0625, what a press from their 0.12
        // gives too. VolumeKit counted the press from the user's 0.12 (0.00476 away, "give or take a nudge") and
        // set 0.0575 over it
        let behaviour = DeviceBehaviour.sample(12073)
        let device = SimulatedDevice(.init(volume: 0.12, behaviour: behaviour))
        try Self.crashedRun(device) { device in
            device.press(.down)
            device.advance(by: 0.25)
        }
        let left = device.volume
        device.launch()
        VolumeRecovery.recoverIfNeeded(device.clients) { _ in }
        device.advance(by: 0.5)
        device.background()
        device.advance(by: behaviour.volumeViewReadyDelay - 0.5 + 0.05)
        device.press(.down)
        device.advance(by: 1.5)
        #expect(left > 0.12 + VolumeStepMachine.residueTolerance && left < 0.125)
        #expect(device.volume == 0.0625)
    }
}
