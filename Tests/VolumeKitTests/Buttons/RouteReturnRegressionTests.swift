import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Back to a route VolumeKit left at its anchor, while a reset made for the other route is still in flight
/// (issue 11, ov-665-5266135).
@Suite("Correct across the envelope: back to a route left at its anchor")
struct RouteReturnRegressionTests {
    @Test(
        "The route's KVO showing the anchor VolumeKit left there does not consume the echo of the anchor set again"
    )
    func routeKVOAtLeftAnchor() throws {
        // The speaker is at the top rail: VolumeKit holds it at the anchor 0.875 and leaves it there (with a
        // record) for the headphones. Back on the speaker, its KVO (0.875) comes before the route's notification
        // and before the headphones' reset, still in flight, lands there; VolumeKit sets the anchor 0.875 again.
        let run = try EnvelopeRegressionTests.Run(
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
}

/// A stop that comes before the volume view is ready (issue 11, ov-4706-37266815).
@Suite("Correct across the envelope: a stop before the view is ready")
struct EarlyStopRegressionTests {
    @Test("Stopped before its view is ready on a route an earlier run left at its anchor: the user's volume is back")
    func stopBeforeReadyRestoresTheRecord() throws {
        // The speaker is left at the anchor 0.125 (the user's 0 needs headroom) for the headphones, and the app
        // crashes there. After the launch recovery (headphones), the app starts, the audio moves to the speaker,
        // and the app stops before its own volume view is ready.
        let first = try EnvelopeRegressionTests.Run(
            ["volumeViewReadyDelay=0.7133", "routeNotification=afterKVO", "downPressRefusal=none"],
            volume: 0, headphones: 0.33)
        let device = first.device
        device.connect(.headphones)
        device.advance(by: 0.5)
        device.crash()
        device.launch()
        VolumeRecovery.recoverIfNeeded(device.clients) { _ in }
        device.advance(by: 1.5)
        #expect(device.volume(on: .speaker) == 0.125, "the earlier run left the speaker at its anchor")
        let engine = VolumeButtonsEngine(
            configuration: .init(), clients: device.clients, onEvent: { _ in }, onDiagnostic: { _ in })
        try engine.start()
        device.advance(by: 0.2)
        device.connect(.speaker)
        device.advance(by: 0.1)
        engine.stop()
        device.advance(by: 3)
        #expect(device.volume(on: .speaker) == 0, "the speaker is left at VolumeKit's anchor 0.125")
    }
}
