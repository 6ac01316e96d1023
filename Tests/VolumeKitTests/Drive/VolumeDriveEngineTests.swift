import Foundation
import TestSupport
import Testing
import VolumeKitCore
import VolumeKitTesting

/// A speaker with 16 steps on the simulated device's clock: each level it is asked for reaches the device
/// `latency` seconds later (`nil`: never), so a level can still be on its way when the view goes away.
final class SteppedSpeaker: VolumeDriveTarget {
    struct State {
        var wanted: Int
        var confirmed: Int
        var handled: [VolumeButtonEvent] = []
        var calls: [String] = []
        var confirmedAtStop: Int?
        var wantedAtStop: Int?
        var stoppedAt: Instant?
        var startFailure: (any Error)?
        var gate: CheckedContinuation<Void, Never>?
        var isGated = false
        var levels: AsyncStream<Float>.Continuation?
    }

    let state: Locked<State>
    private let clock: ClockClient
    private let latency: TimeInterval?

    init(level: Int, clock: ClockClient, latency: TimeInterval? = 0.05) {
        state = Locked(State(wanted: level, confirmed: level))
        self.clock = clock
        self.latency = latency
    }

    var wanted: Int { state.current.wanted }
    var confirmed: Int { state.current.confirmed }
    var handled: [VolumeButtonEvent] { state.current.handled }
    var calls: [String] { state.current.calls }

    /// The next `start()` waits until ``openGate()`` (a slow connection).
    func closeGate() { state.withLock { $0.isGated = true } }
    func openGate() {
        let gate = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.isGated = false
            defer { state.gate = nil }
            return state.gate
        }
        gate?.resume()
    }
    func failNextStart(_ error: any Error) { state.withLock { $0.startFailure = error } }

    func start() async throws {
        state.withLock { $0.calls.append("start") }
        if state.current.isGated {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state -> Bool in
                    guard state.isGated else { return true }
                    state.gate = continuation
                    return false
                }
                if open { continuation.resume() }
            }
        }
        let failure = state.withLock { state -> (any Error)? in
            defer { state.startFailure = nil }
            return state.startFailure
        }
        if let failure { throw failure }
    }

    func handle(_ event: VolumeButtonEvent) async {
        guard event.phase != .released else { return }
        let (level, changed) = state.withLock { state -> (Int, Bool) in
            state.handled.append(event)
            let next = min(16, max(0, state.wanted + (event.button == .up ? 1 : -1)))
            defer { state.wanted = next }
            return (next, next != state.wanted)
        }
        guard changed else { return }
        state.current.levels?.yield(Float(level) / 16)
        guard let latency else { return }
        _ = clock.schedule(latency) { [state] in state.withLock { $0.confirmed = level } }
    }

    func hudLevels() async -> AsyncStream<Float> {
        let (stream, continuation) = AsyncStream<Float>.makeStream()
        state.withLock { state in
            state.levels = continuation
            continuation.yield(Float(state.wanted) / 16)
        }
        return stream
    }

    var isBusy: Bool { get async { state.withLock { $0.wanted != $0.confirmed } } }

    func stop() async {
        let now = clock.now()
        let levels = state.withLock { state -> AsyncStream<Float>.Continuation? in
            state.calls.append("stop")
            state.confirmedAtStop = state.confirmed
            state.wantedAtStop = state.wanted
            state.stoppedAt = now
            defer { state.levels = nil }
            return state.levels
        }
        levels?.finish()
    }

    /// Someone turns the speaker's own knob.
    func turnKnob(to level: Int) {
        let levels = state.withLock { state -> AsyncStream<Float>.Continuation? in
            state.wanted = level
            state.confirmed = level
            return state.levels
        }
        levels?.yield(Float(level) / 16)
    }
}

struct SpeakerOffline: Error, CustomStringConvertible {
    var description: String { "connection refused" }
}

/// Lets the drive's own task run: yields until `condition` holds (bounded).
func settled(_ condition: @Sendable () -> Bool) async -> Bool {
    for _ in 0..<20_000 {
        if condition() { return true }
        await Task.yield()
    }
    return condition()
}

@Suite("The buttons drive a target, with the HUD, on the simulated device")
struct VolumeDriveEngineTests {
    private struct Setup {
        let device: SimulatedDevice
        let speaker: SteppedSpeaker
        let recorder: HUDRecorder
        let hud: VolumeHUDEngine
        let diagnostics: Locked<[VolumeDriveDiagnostic]>
        let drive: VolumeDriveEngine
    }

    private func setup(level: Int, latency: TimeInterval? = 0.05) -> Setup {
        let device = SimulatedDevice()
        let speaker = SteppedSpeaker(level: level, clock: device.clock, latency: latency)
        let recorder = HUDRecorder()
        let hud = recorder.engine(VolumeHUDOptions(levelSource: .external, language: .english), clients: device.clients)
        let diagnostics = Locked([VolumeDriveDiagnostic]())
        let drive = VolumeDriveEngine(target: speaker, hud: hud, clients: device.clients) { diagnostic in
            diagnostics.withLock { $0.append(diagnostic) }
        }
        return Setup(
            device: device, speaker: speaker, recorder: recorder, hud: hud, diagnostics: diagnostics, drive: drive)
    }

    @Test(
        "presses move the speaker one step each and the HUD shows its level; the phone's volume stays and no system HUD shows"
    )
    func pressesDriveSpeaker() async throws {
        let s = setup(level: 8)
        try s.drive.start()
        // At half volume capture makes no set: it claims the view VolumeViewReadiness.slowest after installing it.
        await pass(VolumeViewReadiness.slowest, on: s.device)
        #expect(await eventually(s.device) { s.drive.targetLevel != nil })
        #expect(s.drive.isCapturing)
        // Connecting is no change: the HUD does not pop up.
        #expect(s.recorder.shownLevels.isEmpty)
        for _ in 0..<3 {
            s.device.press(.up)
            await pass(0.3, on: s.device)
        }
        #expect(await eventually(s.device) { s.speaker.wanted == 11 })
        let sixteenths: [Float] = [9, 10, 11].map { $0 / 16 }
        #expect(await eventually(s.device) { s.recorder.shownLevels == sixteenths }, "\(s.recorder.shownLevels)")
        s.device.press(.down)
        await pass(0.3, on: s.device)
        #expect(await eventually(s.device) { s.speaker.wanted == 10 })
        #expect(
            await eventually(s.device) { s.recorder.last == VolumeHUDDisplay(isVisible: true, level: Float(10) / 16) },
            "\(String(describing: s.recorder.last))")
        #expect(s.device.systemHUDTimes.isEmpty)
        s.drive.stop()
        // The HUD hides at once; capture gives the user's own volume back.
        #expect(s.recorder.last?.isVisible == false)
        await pass(1, on: s.device)
        #expect(s.device.volume == 0.5)
        #expect(s.speaker.calls == ["start", "stop"])
    }

    @Test("a press into the rail the speaker sits at shows the bump, also as the very first press")
    func bumpAtRails() async throws {
        let s = setup(level: 16)
        try s.drive.start()
        await pass(0.5, on: s.device)
        #expect(await eventually(s.device) { s.drive.targetLevel != nil })
        s.device.press(.up)
        await pass(0.3, on: s.device)
        #expect(s.speaker.wanted == 16)
        #expect(
            await eventually(s.device) {
                s.recorder.last == VolumeHUDDisplay(isVisible: true, level: 1, bump: .maximum)
            }, "\(String(describing: s.recorder.last))")
        // Down, then back up to the rail: the press that reaches it is no bump, the next one is.
        s.device.press(.down)
        await pass(0.3, on: s.device)
        #expect(
            await eventually(s.device) { s.recorder.last == VolumeHUDDisplay(isVisible: true, level: Float(15) / 16) },
            "\(String(describing: s.recorder.last))")
        s.device.press(.up)
        await pass(0.3, on: s.device)
        #expect(
            await eventually(s.device) { s.recorder.last == VolumeHUDDisplay(isVisible: true, level: 1) },
            "\(String(describing: s.recorder.last))")
        s.device.press(.up)
        await pass(0.3, on: s.device)
        #expect(
            await eventually(s.device) {
                s.recorder.last == VolumeHUDDisplay(isVisible: true, level: 1, bump: .maximum)
            }, "\(String(describing: s.recorder.last))")
        s.drive.stop()
        await pass(0.5, on: s.device)
    }

    @Test("at the bottom rail the first press down shows the minimum bump")
    func bumpAtBottom() async throws {
        let s = setup(level: 0)
        try s.drive.start()
        await pass(0.5, on: s.device)
        #expect(await eventually(s.device) { s.drive.targetLevel != nil })
        s.device.press(.down)
        await pass(0.3, on: s.device)
        #expect(
            await eventually(s.device) {
                s.recorder.last == VolumeHUDDisplay(isVisible: true, level: 0, bump: .minimum)
            }, "\(String(describing: s.recorder.last))")
        #expect(s.recorder.announcements.current.last == "Volume 0 percent, minimum")
        s.drive.stop()
        await pass(0.5, on: s.device)
    }

    @Test("a change made on the speaker itself shows on the HUD")
    func deviceSideChange() async throws {
        let s = setup(level: 8)
        try s.drive.start()
        await pass(0.5, on: s.device)
        #expect(await eventually(s.device) { s.drive.targetLevel != nil })
        s.speaker.turnKnob(to: 4)
        await pass(0.1, on: s.device)
        #expect(await eventually(s.device) { s.recorder.shownLevels == [0.25] })
        s.drive.stop()
        await pass(0.5, on: s.device)
    }

    @Test("stop gives the buttons back at once, sends the last wanted level, then stops the speaker")
    func stopSendsLastLevel() async throws {
        let s = setup(level: 8, latency: 0.5)
        try s.drive.start()
        await pass(0.5, on: s.device)
        #expect(await eventually(s.device) { s.drive.targetLevel != nil })
        s.device.press(.up)
        await pass(0.01, on: s.device)
        #expect(await eventually(s.device) { s.speaker.wanted == 9 })
        #expect(s.speaker.confirmed == 8)
        let stopped = Locked(false)
        let stopInstant = s.device.now
        s.drive.stop(onStopped: { stopped.withLock { $0 = true } })
        #expect(!s.drive.isRunning)
        await pass(1, on: s.device, until: { stopped.current })
        #expect(stopped.current)
        let state = s.speaker.state.current
        #expect(state.confirmedAtStop == 9, "the speaker was stopped before its last level arrived")
        #expect(state.wantedAtStop == 9)
        #expect((state.stoppedAt ?? 0) - stopInstant < 0.6)
        // Everything is back: the user's volume, no volume view, presses are the phone's again.
        #expect(s.device.volume == 0.5)
        #expect(s.device.volumeViewCount == 0)
        #expect(s.recorder.last?.isVisible != true)
        s.device.press(.up)
        await pass(0.3, on: s.device)
        #expect(s.device.volume == 0.5625)
        #expect(s.speaker.wanted == 9)
        #expect(s.diagnostics.current.isEmpty)
    }

    @Test("stop waits at most stopTimeout for a speaker that never confirms, then stops it and says so")
    func stopIsBounded() async throws {
        let s = setup(level: 8, latency: nil)
        try s.drive.start()
        await pass(0.5, on: s.device)
        #expect(await eventually(s.device) { s.drive.targetLevel != nil })
        s.device.press(.down)
        await pass(0.01, on: s.device)
        #expect(await eventually(s.device) { s.speaker.wanted == 7 })
        let stopInstant = s.device.now
        let stopped = Locked(false)
        s.drive.stop(onStopped: { stopped.withLock { $0 = true } })
        await pass(1.5, on: s.device)
        #expect(!stopped.current)
        // To the timeout's instant, then wait in real time (virtual time still) for the drive's task to stop
        // the target: on a loaded 2-core machine that task may run well after the timer fired.
        await pass(s.drive.stopTimeout - 1.5 + 0.05, on: s.device)
        #expect(await eventually(s.device) { stopped.current })
        let stoppedAt = try #require(s.speaker.state.current.stoppedAt)
        #expect(abs(stoppedAt - stopInstant - s.drive.stopTimeout) < 0.1)
        #expect(s.diagnostics.current == [.lastLevelUnconfirmed(after: 2)])
        #expect(VolumeDriveDiagnostic.lastLevelUnconfirmed(after: 2).description.contains("2 s"))
    }

    @Test("a speaker that cannot start gives the buttons back to the phone and says why")
    func targetFails() async throws {
        let s = setup(level: 8)
        s.speaker.failNextStart(SpeakerOffline())
        try s.drive.start()
        await pass(0.5, on: s.device, until: { !s.diagnostics.current.isEmpty })
        await pass(0.5, on: s.device)
        #expect(!s.drive.isRunning)
        #expect(s.diagnostics.current == [.targetUnavailable("connection refused")])
        #expect(s.diagnostics.current.first?.description.contains("connection refused") == true)
        #expect(s.device.volumeViewCount == 0)
        s.device.press(.up)
        await pass(0.3, on: s.device)
        #expect(s.device.volume == 0.5625)
        #expect(s.speaker.handled.isEmpty)
        #expect(s.recorder.shownLevels.isEmpty)
    }

    @Test("presses made while the speaker connects reach it, in order, once it has started")
    func pressesQueueWhileConnecting() async throws {
        let s = setup(level: 8)
        s.speaker.closeGate()
        try s.drive.start()
        await pass(VolumeViewReadiness.slowest, on: s.device)
        #expect(s.drive.isCapturing)
        #expect(s.drive.targetLevel == nil)
        s.device.press(.up)
        await pass(0.3, on: s.device)
        s.device.press(.up)
        await pass(0.3, on: s.device)
        s.device.press(.down)
        await pass(0.3, on: s.device)
        #expect(s.speaker.handled.isEmpty)
        #expect(s.recorder.shownLevels.isEmpty)
        s.speaker.openGate()
        #expect(await eventually(s.device) { s.speaker.handled.filter { $0.phase != .released }.count == 3 })
        #expect(s.speaker.handled.filter { $0.phase != .released }.map(\.button) == [.up, .up, .down])
        #expect(s.speaker.wanted == 9)
        s.drive.stop()
        await pass(0.5, on: s.device)
    }

    @Test("showing the view again right after it went away stops the old run before the new one starts")
    func restart() async throws {
        let s = setup(level: 8, latency: 0.3)
        try s.drive.start()
        await pass(0.5, on: s.device)
        #expect(await eventually(s.device) { s.drive.targetLevel != nil })
        s.device.press(.up)
        await pass(0.01, on: s.device)
        #expect(await eventually(s.device) { s.speaker.wanted == 9 })
        s.drive.stop()
        try s.drive.start()
        await pass(1, on: s.device)
        #expect(s.speaker.calls == ["start", "stop", "start"])
        #expect(s.speaker.state.current.confirmedAtStop == 9)
        #expect(s.drive.isRunning)
        s.device.press(.up)
        await pass(0.3, on: s.device)
        #expect(await eventually(s.device) { s.speaker.wanted == 10 })
        #expect(await eventually(s.device) { s.recorder.shownLevels.last == Float(10) / 16 })
        s.drive.stop()
        await pass(0.5, on: s.device)
        #expect(s.speaker.calls == ["start", "stop", "start", "stop"])
    }

    @Test("capture that cannot start throws a typed error and leaves nothing running")
    func captureFails() async throws {
        let s = setup(level: 8)
        let drive = VolumeDriveEngine(
            target: s.speaker, configuration: VolumeButtonsConfiguration(strategy: .systemNotification), hud: s.hud,
            clients: s.device.clients
        )
        #expect(throws: VolumeButtonsError.privateAPINotAllowed) { try drive.start() }
        #expect(!drive.isRunning)
        await pass(0.5, on: s.device)
        #expect(s.speaker.calls.isEmpty)
        #expect(s.device.volumeViewCount == 0)
        #expect(
            VolumeDriveDiagnostic.captureUnavailable(.privateAPINotAllowed).description.contains("allowsPrivateAPI"))
    }

    @Test(
        "in the background the buttons are the phone's (the user's volume is back); back in front they drive the speaker again"
    )
    func backgroundAndBack() async throws {
        let s = setup(level: 8)
        try s.drive.start()
        await pass(0.5, on: s.device)
        #expect(await eventually(s.device) { s.drive.targetLevel != nil })
        s.device.press(.up)
        await pass(0.3, on: s.device)
        #expect(await eventually(s.device) { s.speaker.wanted == 9 })
        s.device.background()
        await pass(0.5, on: s.device)
        #expect(s.device.volume == 0.5)
        #expect(s.recorder.last?.isVisible == false)
        s.device.press(.down)
        await pass(0.3, on: s.device)
        #expect(s.device.volume == 0.4375)
        #expect(s.speaker.wanted == 9)
        s.device.foreground()
        await pass(0.5, on: s.device)
        s.device.press(.up)
        await pass(0.3, on: s.device)
        #expect(await eventually(s.device) { s.speaker.wanted == 10 })
        #expect(
            await eventually(s.device) { s.recorder.last == VolumeHUDDisplay(isVisible: true, level: Float(10) / 16) })
        s.drive.stop()
        await pass(1, on: s.device)
        #expect(s.device.volume == 0.4375)
    }

    @Test("a HUD elsewhere in the app that follows the phone's volume never shows capture's anchor")
    func holdIsReported() async throws {
        let s = setup(level: 8)
        let phoneHUD = HUDRecorder()
        let systemHUD = phoneHUD.engine(
            VolumeHUDOptions(activatesAudioSession: true, language: .english), clients: s.device.clients)
        systemHUD.start()
        try s.drive.start()
        await pass(0.5, on: s.device)
        #expect(await eventually(s.device) { s.drive.targetLevel != nil })
        for _ in 0..<4 {
            s.device.press(.up)
            await pass(0.3, on: s.device)
        }
        #expect(await eventually(s.device) { s.speaker.wanted == 12 })
        #expect(phoneHUD.shownLevels.isEmpty, "shown: \(phoneHUD.shownLevels)")
        s.drive.stop()
        await pass(0.5, on: s.device)
        systemHUD.stop()
    }
}
