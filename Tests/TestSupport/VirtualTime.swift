import Foundation
import VolumeKitTesting

/// Lets the tasks under test run without moving `device`'s virtual clock (what they schedule for "now" runs)
/// until `condition` holds; `false` after 5 s of wall time.
public func eventually(_ device: SimulatedDevice, _ condition: @Sendable () async -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(5)
    repeat {
        device.advance(by: 0)
        if await condition() { return true }
        await Task.yield()
    } while Date() < deadline
    return await condition()
}

/// Moves `device`'s virtual time forward by `seconds` in 10 ms steps, letting the tasks under test catch up
/// after each one; returns early once `condition`, when given, holds after a step.
public func pass(_ seconds: TimeInterval, on device: SimulatedDevice, until condition: (@Sendable () -> Bool)? = nil)
    async
{
    let end = device.now + seconds
    while device.now < end - 1e-9 {
        device.advance(to: min(end, device.now + 0.01))
        for _ in 0..<50 { await Task.yield() }
        if let condition, condition() { return }
    }
}
