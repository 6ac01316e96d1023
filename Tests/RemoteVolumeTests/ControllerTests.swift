import Foundation
import RemoteVolume
import Testing
import VolumeKitCore

@Suite("Remote volume controller")
struct RemoteVolumeControllerTests {
    @Test("presses reach the device coalesced, and the final level is exact")
    func burstReachesDevice() async throws {
        let clock = ManualClock()
        let device = FakeDevice(level: 30)
        let controller = RemoteVolumeController(device: device, clock: clock.client)
        try await controller.start()
        for index in 0..<16 {
            clock.advance(to: Double(index) * 0.025)
            await controller.press(.up)
            #expect(await settle { await device.setCalls.count >= 1 })
        }
        for step in 0...40 {
            clock.advance(to: 0.4 + Double(step) * 0.05)
            _ = await settle { await !controller.isBusy }
        }
        #expect(await device.level == 62)
        #expect(await device.setCalls.count <= 5)  // One per 0.1 s window at most.
        #expect(await controller.level == 62)
    }

    @Test("a failure that outlives the retries reaches the update stream as a typed error")
    func failureSurfaced() async throws {
        let clock = ManualClock()
        let device = FakeDevice(level: 10)
        await device.fail([.upnp(code: 402, description: "Invalid Args")])
        let controller = RemoteVolumeController(device: device, clock: clock.client)
        try await controller.start()
        let updates = await controller.updates()
        await controller.press(.up)
        var seen: [RemoteVolumeUpdate] = []
        for await update in updates {
            seen.append(update)
            if case .failed = update { break }
        }
        #expect(seen.contains(.failed(.upnp(code: 402, description: "Invalid Args"))))
        #expect(await controller.level == 10)
        await controller.stop()
    }

    @Test(
        "after retries end and the device restarts at 100, presses land on the level the user asked for (issue 12, defect 10)"
    )
    func reconnectAfterOutage() async throws {
        let clock = ManualClock()
        let device = FakeDevice(level: 36)
        let controller = RemoteVolumeController(
            device: device,
            configuration: .init(step: 2, minimumInterval: 0, maxAttempts: 3, initialBackoff: 0.1, maxBackoff: 0.2),
            clock: clock.client)
        try await controller.start()
        await device.fail(Array(repeating: .unreachable("Connection refused"), count: 3))
        let updates = await controller.updates()
        for _ in 0..<12 { await controller.press(.up) }  // 36 → 60 while the device is down
        for step in 1...20 {
            clock.advance(to: Double(step) * 0.1)
            await drain()
        }
        var failed = false
        for await update in updates {
            if case .failed = update { failed = true; break }
        }
        #expect(failed)
        #expect(await controller.level == 36)
        await device.restart(at: 100)
        for index in 0..<5 {
            clock.advance(to: 3 + Double(index) * 0.1)
            await controller.press(.up)
            await drain()
        }
        for step in 0...20 {
            clock.advance(to: 4 + Double(step) * 0.1)
            _ = await settle { await !controller.isBusy }
        }
        #expect(await device.level == 70)
        #expect(await controller.level == 70)
        await controller.stop()
    }

    @Test("a transient failure is retried when the controller's clock reaches the backoff, not before")
    func retryWaitsForClock() async throws {
        let clock = ManualClock()
        let device = FakeDevice(level: 10)
        await device.fail([.timedOut])
        let controller = RemoteVolumeController(
            device: device, configuration: .init(minimumInterval: 0, initialBackoff: 0.5), clock: clock.client)
        try await controller.start()
        await controller.press(.up)
        #expect(await settle { await device.setCalls.count == 1 })
        await drain()  // Let the failure land; the retry now waits on the clock.
        clock.advance(to: 0.4)
        await drain()
        #expect(await device.setCalls.count == 1)
        clock.advance(to: 0.5)
        #expect(await settle { await device.level == 12 })
        #expect(await device.setCalls == [12, 12])
    }

    @Test("a change made on the device itself reaches the HUD")
    func deviceEventReachesHUD() async throws {
        let clock = ManualClock()
        let device = FakeDevice(level: 10)
        let controller = RemoteVolumeController(device: device, clock: clock.client)
        try await controller.start()
        clock.advance(to: 5)
        await device.turnKnob(to: 77)
        #expect(await settle { await controller.level == 77 })
        await controller.press(.down)
        #expect(await settle { await device.level == 75 })
    }

    @Test("button events from a stream drive the device")
    func followsButtonStream() async throws {
        let clock = ManualClock()
        let device = FakeDevice(level: 50)
        let controller = RemoteVolumeController(device: device, configuration: .init(step: 5), clock: clock.client)
        try await controller.start()
        let (events, emit) = AsyncStream<VolumeButtonEvent>.makeStream()
        await controller.follow(events)
        emit.yield(VolumeButtonEvent(button: .down, phase: .pressed, time: 0))
        emit.yield(VolumeButtonEvent(button: .down, phase: .released, time: 0.1))
        #expect(await settle { await device.level == 45 })
        await controller.stop()
    }
}
