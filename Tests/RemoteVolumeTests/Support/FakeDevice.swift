import Foundation
import RemoteVolume
import VolumeKitCore

/// A network device in memory: answers at once, can be told to fail, and can emit change events.
actor FakeDevice: RemoteVolumeDevice {
    nonisolated let displayName = "Fake"
    nonisolated let volumeRange = 0...100
    private(set) var level: Int
    private(set) var muted = false
    private(set) var setCalls: [Int] = []
    var failNext: [RemoteVolumeError] = []
    private let events: AsyncStream<RemoteVolumeChange>
    private let emit: AsyncStream<RemoteVolumeChange>.Continuation

    init(level: Int) {
        self.level = level
        (events, emit) = AsyncStream<RemoteVolumeChange>.makeStream()
    }

    func volume() async throws -> Int { level }
    func setVolume(_ level: Int) async throws {
        setCalls.append(level)
        if !failNext.isEmpty { throw failNext.removeFirst() }
        self.level = level
    }
    func isMuted() async throws -> Bool { muted }
    func setMuted(_ muted: Bool) async throws { self.muted = muted }
    func changes() async throws -> AsyncStream<RemoteVolumeChange>? { events }
    func fail(_ errors: [RemoteVolumeError]) { failNext = errors }
    /// The device restarts at `level` (no event: a restart forgets the subscription).
    func restart(at level: Int) { self.level = level }
    /// Someone turns the device's own knob.
    func turnKnob(to level: Int) {
        self.level = level
        emit.yield(RemoteVolumeChange(volume: level))
    }
}
