import Foundation
import Testing
import VolumeKitCore

@testable import RemoteVolume

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The real MPD started by `scripts/mpd-peer.sh up` (loopback, null output, software mixer, a password).
enum MPDPeer {
    static let url = ProcessInfo.processInfo.environment["VOLUMEKIT_MPD_URL"]
    static let isAvailable = url != nil
    static let skipReason: Comment =
        "needs a real MPD: run scripts/mpd-peer.sh up, then VOLUMEKIT_MPD_URL=mpd://vk-secret@127.0.0.1:16600 swift test"

    static func device(requestTimeout: TimeInterval = 2) throws -> MPDDevice {
        guard let url, case .mpd(let host, let port, let password) = try RemoteDeviceURL.parse(url) else {
            throw RemoteVolumeError.invalidURL("VOLUMEKIT_MPD_URL is not an mpd:// URL")
        }
        return try MPDDevice(host: host, port: port, password: password, requestTimeout: requestTimeout)
    }
}

@Suite("MPD integration", .serialized, .enabled(if: MPDPeer.isAvailable, MPDPeer.skipReason))
struct MPDIntegrationTests {
    @Test("volume is read and set; mute sets 0 and unmute restores the level")
    func roundTrips() async throws {
        let mpd = try MPDPeer.device()
        try await mpd.setVolume(17)
        #expect(try await mpd.volume() == 17)
        try await mpd.setVolume(64)
        #expect(try await mpd.volume() == 64)
        try await mpd.setMuted(true)
        #expect(try await mpd.isMuted())
        #expect(try await mpd.volume() == 0)
        try await mpd.setMuted(false)
        #expect(try await mpd.isMuted() == false)
        #expect(try await mpd.volume() == 64)
    }

    @Test("the command line's one command list: set and get land on the real MPD; a wrong password sets nothing")
    func oneShotCommandList() throws {
        let mpd = try MPDPeer.device()
        func level(_ password: String?, setting level: Int?) throws -> Int {
            try MPDDevice.levelBlocking(host: mpd.host, port: mpd.port, password: password, setting: level)
        }
        guard case .mpd(_, _, let password?) = try RemoteDeviceURL.parse(try #require(MPDPeer.url)) else {
            Issue.record("VOLUMEKIT_MPD_URL names no password")
            return
        }
        #expect(try level(password, setting: 23) == 23)
        #expect(try level(password, setting: nil) == 23)
        #expect(throws: RemoteVolumeError.self) { _ = try level("not-it", setting: 71) }
        // This server lets anyone read, and control only with the password: MPD ran nothing after the refusal.
        #expect(try level(password, setting: nil) == 23)
        #expect(throws: RemoteVolumeError.self) { _ = try level(nil, setting: 71) }
        #expect(try level(nil, setting: nil) == 23)
    }

    @Test("without the password, setvol is refused with an error that says to give one")
    func needsPassword() async throws {
        let real = try MPDPeer.device()
        let anonymous = try MPDDevice(host: real.host, port: real.port, requestTimeout: 2)
        _ = try await anonymous.volume()  // Reading is allowed to anyone on this server.
        do {
            try await anonymous.setVolume(30)
            Issue.record("setvol without a password succeeded")
        } catch let error as RemoteVolumeError {
            #expect(error.isTransient == false)
            #expect(error.description.contains("mpd://PASSWORD@HOST"), "\(error)")
        }
        let wrong = try MPDDevice(host: real.host, port: real.port, password: "not-it", requestTimeout: 2)
        await #expect(throws: RemoteVolumeError.self) { _ = try await wrong.volume() }
    }

    @Test("a change made by another client is reported through idle mixer within 1 s")
    func reportsDeviceSideChanges() async throws {
        let mpd = try MPDPeer.device()
        try await mpd.setVolume(40)
        let changes = try #require(try await mpd.changes())
        #expect(await first(of: changes, within: 2) { $0.volume == 40 } != nil)  // The level it found.
        let other = try MPDPeer.device()
        let started = Date()
        try await other.setVolume(23)
        let event = await first(of: changes, within: 1) { $0.volume == 23 }
        #expect(event == RemoteVolumeChange(volume: 23, muted: false), "after \(Date().timeIntervalSince(started)) s")
    }

    @Test("a 16-press burst reaches MPD in one setvol per interval (3 for 400 ms), exactly")
    func burst() async throws {
        let mpd = try MPDPeer.device()
        try await mpd.setVolume(20)
        let result = try await pressBurst(mpd)
        #expect(result.idle)
        #expect(result.sent <= result.allowed)
        #expect(try await mpd.volume() == 52)
    }

    @Test("MPD killed mid-burst (SIGKILL) then restarted: retries land the final level, changes resume")
    func survivesRestart() async throws {
        let mpd = try MPDPeer.device(requestTimeout: 1)
        try await mpd.setVolume(10)
        let controller = RemoteVolumeController(
            device: mpd, configuration: .init(step: 1, maxAttempts: 10, maxBackoff: 1))
        try await controller.start()
        let updates = await controller.updates()
        var restart: Task<Int32, any Error>?
        for press in 0..<40 {
            if press == 10 { #expect(try await runPeerScript("mpd-peer.sh", "kill") == 0) }
            if press == 25 { restart = Task.detached { try await runPeerScript("mpd-peer.sh", "start") } }
            await controller.press(.up)
            try await Task.sleep(nanoseconds: 25_000_000)
        }
        #expect(try await restart?.value == 0)
        #expect(await waitUntilIdle(controller, seconds: 15))
        #expect(try await mpd.volume() == 50)
        var failures: [RemoteVolumeError] = []
        // After the restart, a change from elsewhere still reaches the controller (the watcher reconnected).
        try await MPDPeer.device().setVolume(33)
        let deadline = Date().addingTimeInterval(3)
        while Date() < deadline, await controller.confirmedLevel != 33 { try await Task.sleep(nanoseconds: 20_000_000) }
        let confirmed = await controller.confirmedLevel
        await controller.stop()
        for await update in updates {
            if case .failed(let error) = update { failures.append(error) }
        }
        #expect(failures.isEmpty)
        #expect(confirmed == 33)
    }
}
