import Foundation
import RemoteVolume
import Testing
import VolumeKitCore

/// A device whose SetVolume never answers (until its task is cancelled).
struct SilentSetDevice: RemoteVolumeDevice {
    let displayName = "Silent"
    let volumeRange = 0...100
    func volume() async throws -> Int { 20 }
    func setVolume(_ level: Int) async throws {
        while !Task.isCancelled { try await Task.sleep(nanoseconds: 10_000_000) }
        throw RemoteVolumeError.timedOut
    }
    func isMuted() async throws -> Bool { false }
    func setMuted(_ muted: Bool) async throws {}
}

@Suite("Stopping sends the last wanted level (issue 15, item 2)")
struct StopFlushTests {
    @Test(
        "stop() right after 5 fast presses sends the coalesced level before returning: the device ends at the level shown"
    )
    func stopSendsPendingLevel() async throws {
        let clock = ManualClock()
        let device = FakeDevice(level: 20)
        let controller = RemoteVolumeController(device: device, configuration: .init(step: 2), clock: clock.client)
        try await controller.start()
        for _ in 0..<5 { await controller.press(.up) }  // 22 goes out at once, 24…30 wait for the interval
        #expect(await settle { await device.setCalls.count >= 1 })
        #expect(await controller.level == 30)
        await controller.stop()  // The clock never moves: nothing waits for the 0.1 s interval.
        #expect(await device.level == 30)
        #expect(await device.setCalls == [22, 30])
    }

    @Test("stop() waits at most its flush timeout for a device that never answers")
    func stopIsBounded() async throws {
        let clock = ManualClock()
        let controller = RemoteVolumeController(device: SilentSetDevice(), clock: clock.client)
        try await controller.start()
        await controller.press(.up)
        await controller.press(.up)
        let stopped = Locked(false)
        let stopping = Task {
            await controller.stop(flushTimeout: 1.5)
            stopped.withLock { $0 = true }
        }
        await drain()
        #expect(!stopped.current, "still waiting for the request")
        clock.advance(to: 1.4)
        await drain()
        #expect(!stopped.current)
        clock.advance(to: 1.5)
        #expect(await settle { stopped.current })
        stopping.cancel()
    }

    @Test("stop(flushTimeout: 0) stops at once and sends nothing more")
    func stopAtOnce() async throws {
        let clock = ManualClock()
        let device = FakeDevice(level: 20)
        let controller = RemoteVolumeController(device: device, clock: clock.client)
        try await controller.start()
        for _ in 0..<3 { await controller.press(.up) }
        #expect(await settle { await device.setCalls.count >= 1 })
        await controller.stop(flushTimeout: 0)
        await drain()
        #expect(await device.setCalls == [22])
    }
}
