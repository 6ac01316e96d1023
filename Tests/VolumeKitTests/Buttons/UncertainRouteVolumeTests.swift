import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// The envelope limit "a set landed across a route change" (issue 11, ov-1362, ov-14309): a reset of
/// VolumeKit's made on the speaker reaches the system after the headphones took over, over their own volume,
/// which equalled the speaker's (so the change shows no KVO of its own). To the app that world looks exactly like
/// one where the reset landed on the speaker just before the change and the headphones had that value themselves.
@Suite("Correct across the envelope: a set landing across a route change")
struct UncertainRouteVolumeTests {
    /// A press up on the speaker at 0.5, then the headphones plugged in `routeAfter` seconds later; returns
    /// the run after a second (the engine still capturing).
    func world(headphones: Float, routeAfter: TimeInterval, gap: Double) throws -> CaptureRun {
        let run = try CaptureRun(
            [
                "sliderLatency=0.1", "kvoLatency=0.03", "routeNotification=afterKVO",
                "routeNotificationGap=\(gap)", "stepQuantization=grid",
            ], volume: 0.5, headphones: headphones)
        run.device.press(.up)
        run.device.advance(by: routeAfter)
        run.device.connect(.headphones)
        run.device.advance(by: 1)
        return run
    }

    @Test("Both worlds give the app the same timeline, so VolumeKit answers the same and reports routeVolumeUncertain")
    func twoWorldsOneTimeline() throws {
        // The press lands at once, its KVO at 0.03 s; the reset to 0.5 is issued then and lands at 0.13 s.
        // Landed on the headphones (own 0.5625, as the speaker then): plugged in at 0.12 s, notification 0.17 s.
        let across = try world(headphones: 0.5625, routeAfter: 0.12, gap: 0.02)
        // Landed on the speaker, the headphones' own 0.5: plugged in at 0.14 s, before the landing's KVO (0.16 s).
        let before = try world(headphones: 0.5, routeAfter: 0.14, gap: 0)
        for run in [across, before] {
            #expect(run.pressed == [.up])
            #expect(run.diagnostics.current.contains(.routeVolumeUncertain), "\(run.diagnostics.current)")
        }
        across.stop()
        before.stop()
        let answers = [across, before].map { $0.device.volume(on: .headphones) }
        #expect(abs(answers[0] - answers[1]) < 1e-4, "one timeline, one answer: \(answers)")
        // Right in one world only: no design can be right in both.
        #expect(abs(answers[1] - 0.5) < 1e-4, "\(answers)")
    }

    @Test("A route change after VolumeKit's sets have landed is not reported")
    func settledRouteChangeIsNotReported() throws {
        let run = try world(headphones: 0.5625, routeAfter: 0.6, gap: 0.02)
        #expect(!run.diagnostics.current.contains(.routeVolumeUncertain), "\(run.diagnostics.current)")
        run.stop()
        #expect(abs(run.device.volume(on: .headphones) - 0.5625) < 1e-4)
    }
}
