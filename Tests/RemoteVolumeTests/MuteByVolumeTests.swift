import Foundation
import Testing
import VolumeKitCore

@testable import RemoteVolume

/// A device in memory whose mute is its volume at 0, as MPD's is, with a watcher the test drives by hand.
actor FakeVolumeMuteDevice: RemoteVolumeDevice, MutesByVolume {
    nonisolated let displayName = "Fake MPD"
    nonisolated let volumeRange = 0...100
    private(set) var level: Int
    private let events: AsyncStream<RemoteVolumeChange>
    private let emit: AsyncStream<RemoteVolumeChange>.Continuation

    init(level: Int) {
        self.level = level
        (events, emit) = AsyncStream<RemoteVolumeChange>.makeStream()
    }

    func volume() async throws -> Int { level }
    func setVolume(_ level: Int) async throws { self.level = level }
    func isMuted() async throws -> Bool { level == 0 }
    func setMuted(_ muted: Bool) async throws { level = muted ? 0 : max(level, 1) }
    func changes() async throws -> AsyncStream<RemoteVolumeChange>? { events }
    /// The watcher delivers a report of `level` (a read it made at some earlier moment).
    func report(_ level: Int) { emit.yield(RemoteVolumeChange(volume: level, muted: level == 0)) }
}

@Suite("A device muted by volume 0")
struct MuteByVolumeTests {
    @Test("a watcher's read of 0 from before our set, delivered after it landed, does not mute the controller")
    func staleZeroReport() async throws {
        let clock = ManualClock()
        let device = FakeVolumeMuteDevice(level: 0)
        let controller = RemoteVolumeController(device: device, clock: clock.client)
        try await controller.start()
        #expect(await controller.isMuted == true)
        await controller.press(.up)
        #expect(await settle { await device.level == 2 })
        #expect(await settle { await !controller.isBusy })
        #expect(await controller.isMuted == false)
        await device.report(0)  // read before the set landed, delivered after it
        await drain()
        #expect(await controller.isMuted == false)
        #expect(await controller.level == 2)
        for step in 1...20 {
            clock.advance(to: Double(step) * 0.1)
            await drain()
        }
        await controller.stop()
        #expect(await device.level == 2)
        #expect(await controller.isMuted == false)
    }

    @Test("someone else setting the device to 0 once things have settled mutes the controller")
    func realZeroReport() async throws {
        let clock = ManualClock()
        let device = FakeVolumeMuteDevice(level: 30)
        let controller = RemoteVolumeController(device: device, clock: clock.client)
        try await controller.start()
        #expect(await controller.isMuted == false)
        clock.advance(to: 5)
        try await device.setVolume(0)
        await device.report(0)
        #expect(await settle { await controller.isMuted == true })
        #expect(await controller.level == 0)
        await controller.stop()
    }
}
