import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Capture taken away — the session by another component, capture events by a camera that is not running: VolumeKit
/// takes it back, or says why it cannot.
@Suite("Correct across the envelope: capture taken away is taken back or said")
struct CaptureTakenAwayTests {
    @Test(
        "Another component takes the session over: VolumeKit re-takes it and says so",
        arguments: SessionComponent.allCases)
    func takeover(component: SessionComponent) throws {
        let run = try CaptureRun([])
        run.device.takeOverSession(by: component)
        run.device.advance(by: 0.5)
        run.device.press(.down)
        run.device.advance(by: 1)
        #expect(run.pressed == [.down])
        #expect(run.pressHUDs == 0)
        #expect(run.diagnostics.current.contains(.sessionTakenOver(component.configuration.category)))
        #expect(run.device.sessionConfiguration == component.configuration, "the component keeps the category it needs")
        run.stop()
        #expect(run.device.volume == 0.5)
    }

    @Test("Capture events without a running camera: VolumeKit detects and reports it")
    func captureEventsWithoutCamera() throws {
        let run = try CaptureRun([], configuration: .init(strategy: .captureEvents))
        // Capture events take no session: a press is seen moving the volume only through the app's own live one.
        try run.device.configureAppSession(.playbackMixing)
        run.device.clients.audioSession.primeOutput()
        run.device.press(.up)
        run.device.advance(by: 0.5)
        #expect(run.diagnostics.current.contains(.captureEventsNotDelivered))
        let camera = try CaptureRun([], configuration: .init(strategy: .captureEvents), camera: true)
        camera.device.press(.up)
        camera.device.advance(by: 0.5)
        #expect(camera.pressed == [.up])
        #expect(!camera.diagnostics.current.contains(.captureEventsNotDelivered))
    }
}
