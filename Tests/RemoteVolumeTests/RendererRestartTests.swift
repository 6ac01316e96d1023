import Foundation
import RemoteVolume
import Testing
import VolumeKitCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Restarts and the CLI (issue 15). An extension of the serialized gmediarender suite, so these tests never
/// overlap the others that set, restart or drive the same renderer (running beside them, a drive test's
/// presses landed in the CLI test's level).
extension RendererIntegrationTests {
    @Test("after a restart (kill -9), a device-side volume change is reported within 2 s and the mute label is re-read")
    func restartNoticed() async throws {
        let renderer = try await UPnPRenderer.connect(to: UPnPPeer.location)
        try await renderer.setVolume(30)
        try await renderer.setMuted(true)
        let controller = RemoteVolumeController(device: renderer)
        try await controller.start()
        let updates = await controller.updates()
        #expect(await controller.isMuted == true)
        #expect(try await UPnPPeer.peer("restart-renderer") == 0)  // comes back unmuted
        // Another control point changes the volume on the device.
        let other = try await UPnPRenderer.connect(to: UPnPPeer.location)
        try await other.setVolume(57)
        let changedAt = Date()
        let seen = await first(of: updates, within: 2) { $0 == .level(57) }
        #expect(seen != nil, "the change was not reported within 2 s")
        #expect(Date().timeIntervalSince(changedAt) < 2)
        #expect(await controller.isMuted == false, "the mute state after the restart was re-read")
        await controller.stop()
    }

    @Test(
        "remote control with 5 fast ups then q, piped: the device ends at the level shown, and no escape codes are printed"
    )
    func cliQuitFlushes() async throws {
        let binary = UPnPPeer.script.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug/volumekit").path
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build the CLI first (swift build)")
        let renderer = try await UPnPRenderer.connect(to: UPnPPeer.location)
        try await renderer.setVolume(20)
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vk-control-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: output) }
        let status = try await shell(
            "printf '+\\n+\\n+\\n+\\n+\\nq\\n' | '\(binary)' remote control '\(UPnPPeer.location.absoluteString)' > '\(output.path)'"
        )
        #expect(status == 0)
        let text = try String(contentsOf: output, encoding: .utf8)
        #expect(!text.contains("\u{1B}") && !text.contains("\r"), "\(text.debugDescription)")
        let last = text.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasSuffix("volume 30"), "\(text)")
        #expect(try await renderer.volume() == 30)
    }

    @Test("remote discover --first prints the renderer and exits long before --timeout")
    func cliDiscoverFirst() async throws {
        let binary = UPnPPeer.script.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug/volumekit").path
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build the CLI first (swift build)")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vk-discover-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: output) }
        let start = Date()
        #expect(try await shell("'\(binary)' remote discover --first --timeout 5 > '\(output.path)'") == 0)
        let elapsed = Date().timeIntervalSince(start)
        // gmediarender answers within ~0.1 s here (MX 2 allows up to 2 s); the command ends 0.5 s after at most.
        #expect(elapsed < 1, "took \(elapsed) s")
        let text = try String(contentsOf: output, encoding: .utf8)
        #expect(text == "\(UPnPPeer.location.absoluteString)\tVolumeKitTest\n")
    }
}
