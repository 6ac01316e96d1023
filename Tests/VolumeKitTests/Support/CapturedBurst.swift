import Foundation
import VolumeKitCore
import VolumeKitTesting

extension SimulatedDevice {
    /// Starts capture on this device with `configuration`, makes `count` presses of `button` 50 ms apart once it has
    /// settled (1.5 s), lets 2 s pass, stops, lets 1 s pass, and returns every event the app received.
    func capturedBurst(_ button: VolumeButton, count: Int, configuration: VolumeButtonsConfiguration = .init())
        throws -> [VolumeButtonEvent]
    {
        let events = Locked([VolumeButtonEvent]())
        let engine = VolumeButtonsEngine(configuration: configuration, clients: clients) { event in
            events.withLock { $0.append(event) }
        }
        try engine.start()
        advance(by: 1.5)
        for _ in 0..<count {
            press(button)
            advance(by: 0.05)
        }
        advance(by: 2)
        engine.stop()
        advance(by: 1)
        return events.current
    }
}
