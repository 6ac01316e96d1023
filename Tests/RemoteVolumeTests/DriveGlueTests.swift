import Foundation
import RemoteVolume
import TestSupport
import Testing
import VolumeKitCore
import VolumeKitTesting

/// What the drive's HUD showed.
private final class ShownLevels: Sendable {
    let displays = Locked([VolumeHUDDisplay]())
    var visible: [VolumeHUDDisplay] { displays.current.filter(\.isVisible) }

    func engine(clients: VolumeKitClients) -> VolumeHUDEngine {
        VolumeHUDEngine(
            options: VolumeHUDOptions(levelSource: .external, language: .english),
            clients: clients,
            onDisplay: { [displays] display, _ in displays.withLock { $0.append(display) } }
        )
    }
}

@Suite("The buttons drive a RemoteVolumeController (VolumeDriveEngine on the simulated device)")
struct DriveGlueTests {
    @Test(
        "presses on the simulated iPhone reach the speaker coalesced; leaving right after the last still lands its level"
    )
    func burstThenLeave() async throws {
        let device = SimulatedDevice()
        let speaker = FakeDevice(level: 30)
        // The controller runs on the device's virtual clock too, so its coalescing window is exact here.
        let controller = RemoteVolumeController(device: speaker, clock: device.clock)
        let shown = ShownLevels()
        let drive = VolumeDriveEngine(
            target: controller, hud: shown.engine(clients: device.clients), clients: device.clients)
        try drive.start()
        await pass(0.5, on: device)
        #expect(await eventually(device) { drive.targetLevel == 0.3 })
        for press in 0..<8 {
            device.press(.up)
            await pass(0.01, on: device)  // KVO reaches capture 5 ms after the press
            let level = Float(32 + 2 * press) / 100
            #expect(await eventually(device) { shown.visible.last?.level == level })
            await pass(press < 7 ? 0.04 : 0.01, on: device)
        }
        // The view goes away 20 ms after the last press: its level waits for the next 0.1 s window.
        #expect(await controller.isBusy)
        let stopped = Locked(false)
        drive.stop(onStopped: { stopped.withLock { $0 = true } })
        for _ in 0..<100 where !stopped.current { await pass(0.02, on: device) }
        #expect(stopped.current)
        #expect(await speaker.level == 46)
        let calls = await speaker.setCalls
        #expect(calls.last == 46)
        // 8 presses in 400 ms: the first at once, then one per 0.1 s window.
        #expect(calls.count <= 5, "SetVolume calls: \(calls)")
        #expect(shown.visible.map(\.level) == [32, 34, 36, 38, 40, 42, 44, 46].map { Float($0) / 100 })
        #expect(device.volume == 0.5)
        // The controller was stopped: its streams ended, a later press reaches nothing.
        device.press(.up)
        await pass(0.3, on: device)
        #expect(await speaker.level == 46)
        #expect(device.volume == 0.5625)
    }

    @Test(
        "leaving while a down press is still held: when the drive says it stopped, the phone is back at the user's volume",
        arguments: [0.0, 0.01, 0.02, 0.04]
    )
    func stopDuringHeldDownPress(delay: TimeInterval) async throws {
        let device = SimulatedDevice()
        let speaker = FakeDevice(level: 60)
        let controller = RemoteVolumeController(device: speaker, clock: device.clock)
        let drive = VolumeDriveEngine(target: controller, hud: nil, clients: device.clients)
        try drive.start()
        await pass(0.5, on: device)
        #expect(await eventually(device) { drive.targetLevel == 0.6 })
        // Three quick taps down: the last is still held when the view goes away, and iOS (11+) refuses the
        // restore to the user's 0.5 until it is released.
        for _ in 0..<3 {
            device.press(.down)
            await pass(0.03, on: device)
        }
        await pass(delay, on: device)
        let stopped = Locked(false)
        drive.stop(onStopped: { stopped.withLock { $0 = true } })
        // Small steps: the callback must not come before the restore has landed.
        for _ in 0..<3000 where !stopped.current { await pass(0.001, on: device) }
        #expect(stopped.current)
        #expect(device.volume == 0.5)
    }

    @Test("at 100 the speaker does not move and the HUD shows the bump; a knob turned on the speaker shows")
    func railAndKnob() async throws {
        let device = SimulatedDevice()
        let speaker = FakeDevice(level: 100)
        let controller = RemoteVolumeController(device: speaker, clock: device.clock)
        let shown = ShownLevels()
        let drive = VolumeDriveEngine(
            target: controller, hud: shown.engine(clients: device.clients), clients: device.clients)
        try drive.start()
        await pass(0.5, on: device)
        #expect(await eventually(device) { drive.targetLevel == 1 })
        device.press(.up)
        await pass(0.01, on: device)
        #expect(
            await eventually(device) {
                shown.visible.last == VolumeHUDDisplay(isVisible: true, level: 1, bump: .maximum)
            })
        await pass(0.3, on: device)
        #expect(await speaker.setCalls.isEmpty)
        await pass(2, on: device)
        await speaker.turnKnob(to: 25)
        #expect(await eventually(device) { shown.visible.last == VolumeHUDDisplay(isVisible: true, level: 0.25) })
        drive.stop()
        await pass(0.5, on: device)
    }
}

/// Part of the renderer suite, so that it never runs while another test sets the renderer's volume or
/// restarts it (the suite is serialized and skipped without a peer).
extension RendererIntegrationTests {
    @Test(
        "buttons drive: simulated presses reach the real renderer, its own changes show on the HUD, and leaving lands the last level"
    )
    func drivesRenderer() async throws {
        let renderer = try await UPnPRenderer.connect(to: UPnPPeer.location)
        try await renderer.setVolume(20)
        let device = SimulatedDevice()
        // Real time for the network side, virtual time for the phone.
        let controller = RemoteVolumeController(device: renderer, configuration: .init(step: 1))
        let shown = ShownLevels()
        let drive = VolumeDriveEngine(
            target: controller, hud: shown.engine(clients: device.clients), clients: device.clients)
        try drive.start()
        await pass(0.5, on: device)
        #expect(drive.isCapturing)
        #expect(await waitReal(seconds: 5, device: device) { drive.targetLevel == 0.2 })

        for _ in 0..<5 {
            device.press(.up)
            await pass(0.03, on: device)
        }
        #expect(await waitReal(seconds: 2, device: device) { await controller.level == 25 })
        // Someone else turns the renderer: the HUD follows its event within 2 s.
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(await waitReal(seconds: 2, device: device) { await !controller.isBusy })
        let other = try await UPnPRenderer.connect(to: UPnPPeer.location)
        try await other.setVolume(60)
        #expect(await waitReal(seconds: 2, device: device) { shown.visible.last?.level == 0.6 })

        // Three presses down and away at once.
        for _ in 0..<3 {
            device.press(.down)
            await pass(0.03, on: device)
        }
        let stopped = Locked(false)
        drive.stop(onStopped: { stopped.withLock { $0 = true } })
        #expect(await waitReal(seconds: 5, device: device) { stopped.current })
        #expect(try await renderer.volume() == 57)
        #expect(device.volume == 0.5)
    }
}

/// Waits in real time (bounded) while the simulated phone's clock keeps pace, until `condition` holds.
private func waitReal(seconds: Double, device: SimulatedDevice, _ condition: @Sendable () async -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if await condition() { return true }
        try? await Task.sleep(nanoseconds: 10_000_000)
        device.advance(by: 0.01)
    }
    return await condition()
}
