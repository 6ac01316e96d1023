import Foundation
import RemoteVolume
import Testing
import VolumeKitCore

/// A device whose SetVolume waits until the test lets it answer, so the optimistic level can be seen
/// before the device has it; its range is not 0…100, so fractions must use it.
actor GatedDevice: RemoteVolumeDevice {
    nonisolated let displayName = "Gated"
    nonisolated let volumeRange: ClosedRange<Int>
    private(set) var level: Int
    private(set) var setCalls: [Int] = []
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private let events: AsyncStream<RemoteVolumeChange>
    private let emit: AsyncStream<RemoteVolumeChange>.Continuation

    init(level: Int, range: ClosedRange<Int>) {
        self.level = level
        volumeRange = range
        (events, emit) = AsyncStream<RemoteVolumeChange>.makeStream()
    }

    func volume() async throws -> Int { level }
    func setVolume(_ level: Int) async throws {
        setCalls.append(level)
        await withCheckedContinuation { waiting.append($0) }
        self.level = level
    }
    func isMuted() async throws -> Bool { false }
    func setMuted(_ muted: Bool) async throws {}
    func changes() async throws -> AsyncStream<RemoteVolumeChange>? { events }
    var pendingRequests: Int { waiting.count }
    /// Lets every SetVolume waiting so far answer.
    func answer() {
        let answering = waiting
        waiting.removeAll()
        answering.forEach { $0.resume() }
    }
    /// Someone turns the device's own knob.
    func turnKnob(to level: Int) {
        self.level = level
        emit.yield(RemoteVolumeChange(volume: level))
    }
}

/// Collects a stream's elements in the background so tests can wait for them without sleeping.
final class Collector<Element: Sendable>: Sendable {
    private let state = Locked([Element]())
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<Element>) {
        let state = self.state
        task = Task { for await element in stream { state.withLock { $0.append(element) } } }
    }
    var elements: [Element] { state.current }
    func cancel() { task.cancel() }
}

struct StreamFailed: Error, Equatable {}

@Suite("Buttons drive a remote device")
struct RemoteVolumeButtonsTests {
    private func event(_ button: VolumeButton, _ phase: ButtonPhase, at time: Instant) -> VolumeButtonEvent {
        VolumeButtonEvent(button: button, phase: phase, time: time)
    }

    @Test("a burst of 16 presses from a button stream sends at most 5 SetVolume and lands on the exact level")
    func burstOfSixteen() async throws {
        let clock = ManualClock()
        let device = FakeDevice(level: 30)
        let controller = RemoteVolumeController(device: device, clock: clock.client)
        try await controller.start()
        let (events, emit) = AsyncStream<VolumeButtonEvent>.makeStream()
        let driving = Task { await controller.drive(with: events) }
        for index in 0..<16 {
            let time = Double(index) * 0.025  // 16 presses in 400 ms
            clock.advance(to: time)
            emit.yield(event(.up, .pressed, at: time))
            #expect(await settle { await controller.level == 30 + 2 * (index + 1) })
        }
        emit.finish()
        await driving.value  // drive(with:) returns when the sequence ends
        for step in 0...40 {
            clock.advance(to: 0.4 + Double(step) * 0.05)
            _ = await settle { await !controller.isBusy }
        }
        #expect(await device.level == 62)
        #expect(await device.setCalls.count <= 5)  // One per 0.1 s window (issue 23; 3 with 0.2 s).
        #expect(await device.setCalls.last == 62)
        #expect(await controller.hudLevel == 0.62)
    }

    @Test("repeated events of a held button move the level like presses")
    func repeatsCount() async throws {
        let clock = ManualClock()
        let device = FakeDevice(level: 50)
        let controller = RemoteVolumeController(
            device: device, configuration: .init(minimumInterval: 0), clock: clock.client)
        try await controller.start()
        let (events, emit) = AsyncStream<VolumeButtonEvent>.makeStream()
        emit.yield(event(.down, .pressed, at: 0))
        for index in 1...4 { emit.yield(event(.down, .repeated, at: 0.45 + Double(index) * 0.2)) }
        emit.yield(event(.down, .released, at: 1.5))
        emit.finish()
        await controller.drive(with: events)
        #expect(await settle { await device.level == 40 })
        #expect(await settle { await !controller.isBusy })
        #expect(await controller.level == 40)
    }

    @Test("released events move nothing and send nothing")
    func releasedIgnored() async throws {
        let clock = ManualClock()
        let device = FakeDevice(level: 50)
        let controller = RemoteVolumeController(
            device: device, configuration: .init(minimumInterval: 0), clock: clock.client)
        try await controller.start()
        let released = [event(.up, .released, at: 0), event(.down, .released, at: 0.1), event(.up, .released, at: 0.2)]
        await controller.drive(
            with: AsyncStream { continuation in
                released.forEach { continuation.yield($0) }
                continuation.finish()
            })
        await drain()
        #expect(await device.setCalls.isEmpty)
        #expect(await controller.level == 50)

        let press = [event(.up, .pressed, at: 1), event(.up, .released, at: 1.1), event(.up, .released, at: 1.2)]
        await controller.drive(
            with: AsyncStream { continuation in
                press.forEach { continuation.yield($0) }
                continuation.finish()
            })
        #expect(await settle { await device.level == 52 })
        await drain()
        #expect(await device.setCalls == [52])
    }

    @Test("the HUD level follows the optimistic level, then the level the device reports")
    func hudFollowsOptimisticThenDevice() async throws {
        let clock = ManualClock()
        let device = GatedDevice(level: 40, range: 0...50)
        let controller = RemoteVolumeController(device: device, configuration: .init(step: 1), clock: clock.client)
        try await controller.start()
        let hud = Collector(await controller.hudLevels())
        #expect(await settle { hud.elements == [0.8] })  // where the speaker is, on connecting

        await controller.drive(
            with: AsyncStream { continuation in
                continuation.yield(event(.up, .pressed, at: 0))
                continuation.finish()
            })
        // Shown at once, while the device has not answered yet.
        #expect(await settle { hud.elements == [0.8, 0.82] })
        #expect(await settle { await device.pendingRequests == 1 })
        #expect(await device.level == 40)
        #expect(await controller.hudLevel == 0.82)

        await device.answer()
        #expect(await settle { await !controller.isBusy })
        #expect(await device.level == 41)

        // Later someone turns the speaker's own knob: the HUD follows the device.
        clock.advance(to: 5)
        await drain()
        await device.turnKnob(to: 25)
        #expect(await settle { hud.elements == [0.8, 0.82, 0.5] })
        #expect(await controller.hudLevel == 0.5)
        await controller.stop()
        hud.cancel()
    }

    @Test("drive(with:) stops when its task is cancelled")
    func cancellationStops() async throws {
        let clock = ManualClock()
        let device = FakeDevice(level: 50)
        let controller = RemoteVolumeController(
            device: device, configuration: .init(minimumInterval: 0), clock: clock.client)
        try await controller.start()
        let (events, emit) = AsyncStream<VolumeButtonEvent>.makeStream()
        let driving = Task { await controller.drive(with: events) }
        emit.yield(event(.up, .pressed, at: 0))
        #expect(await settle { await device.level == 52 })
        driving.cancel()
        await driving.value
        emit.yield(event(.up, .pressed, at: 1))
        await drain()
        #expect(await controller.level == 52)
        #expect(await device.setCalls == [52])
    }

    @Test("an error from the event source reaches the caller; presses before it stay in effect")
    func sourceErrorRethrown() async throws {
        let clock = ManualClock()
        let device = FakeDevice(level: 50)
        let controller = RemoteVolumeController(
            device: device, configuration: .init(minimumInterval: 0), clock: clock.client)
        try await controller.start()
        let events = AsyncThrowingStream<VolumeButtonEvent, any Error> { continuation in
            continuation.yield(VolumeButtonEvent(button: .down, phase: .pressed, time: 0))
            continuation.finish(throwing: StreamFailed())
        }
        await #expect(throws: StreamFailed.self) { try await controller.drive(with: events) }
        #expect(await settle { await device.level == 48 })
    }

    @Test("fractions use the device's own range, clamped; fraction and level round-trip")
    func fractions() {
        let tenToTwenty = GatedDevice(level: 10, range: 10...20)
        #expect(tenToTwenty.fraction(ofLevel: 10) == 0)
        #expect(tenToTwenty.fraction(ofLevel: 15) == 0.5)
        #expect(tenToTwenty.fraction(ofLevel: 20) == 1)
        #expect(tenToTwenty.fraction(ofLevel: 3) == 0)
        #expect(tenToTwenty.fraction(ofLevel: 99) == 1)
        #expect(tenToTwenty.level(forFraction: 0.5) == 15)
        #expect(tenToTwenty.level(forFraction: 0.04) == 10)
        #expect(tenToTwenty.level(forFraction: 2) == 20)
        #expect(tenToTwenty.level(forFraction: .nan) == 10)
        for level in 10...20 { #expect(tenToTwenty.level(forFraction: tenToTwenty.fraction(ofLevel: level)) == level) }
        #expect(GatedDevice(level: 7, range: 7...7).fraction(ofLevel: 7) == 0)
    }
}
