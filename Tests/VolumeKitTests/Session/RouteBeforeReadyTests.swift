import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// A route change made before the volume view is ready is in the fresh read capture starts from: a first press
/// that lands back on the route's own volume is a press, not that route change's KVO arriving late.
@Suite("A route change before capture starts: the first press counts")
struct RouteBeforeReadyTests {
    @Test(
        "Headphones plugged in before the volume view is ready, at the speaker's volume: the first up press is reported"
    )
    func firstPressAfterRouteChangeBeforeReady() throws {
        let behaviour = try DeviceBehaviour(rules: ["volumeViewReadyDelay=0.57", "routeNotification=afterKVO"])
        let device = SimulatedDevice(.init(volume: 0.9375, headphonesVolume: 0.9375, behaviour: behaviour))
        let events = Locked([VolumeButtonEvent]())
        let engine = VolumeButtonsEngine(
            configuration: .init(), clients: device.clients, onEvent: { event in events.withLock { $0.append(event) } })
        try engine.start()
        device.advance(by: 0.4)
        device.connect(.headphones)
        device.advance(by: 0.3)
        // The anchor (two steps below the user's 15/16) has landed; the press puts the volume back on 15/16.
        device.press(.up)
        device.advance(by: 1)
        #expect(events.current.filter { $0.button == .up && $0.phase == .pressed }.count == 1)
        // Captured, the press leaves the user's volume as it was.
        engine.stop()
        device.advance(by: 1)
        #expect(abs(device.volume - 0.9375) < 1e-4)
    }
}
