import Foundation
import Testing

@testable import VolumeKitCore

/// A fake AudioServices that records every call; plays finish when the test says so.
final class FakeSystemSounds: Sendable {
    enum Call: Equatable {
        case create(String)
        case play(SystemSoundID, alert: Bool)
        case setIsUISound(SystemSoundID, Bool)
        case dispose(SystemSoundID)
    }
    let calls = Locked<[Call]>([])
    let pending = Locked<[@Sendable () -> Void]>([])
    let nextID = Locked<SystemSoundID>(100)
    let createStatus = Locked<Int32?>(nil)
    let finishImmediately: Bool

    init(finishImmediately: Bool = false) { self.finishImmediately = finishImmediately }

    var client: SystemSoundClient {
        SystemSoundClient(
            create: { url in
                self.calls.withLock { $0.append(.create(url.lastPathComponent)) }
                if let status = self.createStatus.current { throw SystemSoundError(status: status) }
                return self.nextID.withLock { id in
                    defer { id += 1 }; return id
                }
            },
            play: { id, alert, completion in
                self.calls.withLock { $0.append(.play(id, alert: alert)) }
                if self.finishImmediately { completion() } else { self.pending.withLock { $0.append(completion) } }
            },
            setIsUISound: { id, value in self.calls.withLock { $0.append(.setIsUISound(id, value)) } },
            dispose: { id in self.calls.withLock { $0.append(.dispose(id)) } }
        )
    }

    /// Finishes every play started so far.
    func finishAll() {
        for completion in pending.withLock({ list in
            defer { list.removeAll() }; return list
        }) { completion() }
    }
}

@Suite("SystemSoundPlayerCore checks, caches, plays and disposes")
final class SystemSoundPlayerCoreTests {
    let folder: URL
    let good: URL
    let long: URL
    let mp3: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("volumekit-player-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        good = folder.appendingPathComponent("ping.caf")
        try SoundFileWriter.silence(duration: 0.1, container: .caf).write(to: good)
        long = folder.appendingPathComponent("long.wav")
        try SoundFileWriter.write(
            samples: [Float](repeating: 0, count: 8_000 * 31),
            format: .init(container: .wav, encoding: .linearPCM(bits: 8, isFloat: false), sampleRate: 8_000)
        ).write(to: long)
        mp3 = folder.appendingPathComponent("song.mp3")
        try Data(Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 0]).write(to: mp3)
    }

    // Each test's folder goes with it (a struct suite left one in the temporary directory per test and run).
    deinit { try? FileManager.default.removeItem(at: folder) }

    @Test("a file is checked, created once, and reused")
    func cachesCreatedSounds() throws {
        let fake = FakeSystemSounds(finishImmediately: true)
        let player = SystemSoundPlayerCore(client: fake.client)
        try player.play(.file(good))
        try player.play(.file(folder.appendingPathComponent("./ping.caf")))
        #expect(fake.calls.current == [.create("ping.caf"), .play(100, alert: false), .play(100, alert: false)])
        #expect(player.preparedFiles.map(\.lastPathComponent) == ["ping.caf"])
    }

    @Test("an invalid file is refused before AudioServices sees it, saying why")
    func refusesInvalidFiles() {
        let fake = FakeSystemSounds()
        let player = SystemSoundPlayerCore(client: fake.client)
        #expect(throws: SystemSoundPlayerError.invalidFile(path: long.path, .tooLong(seconds: 31, limit: 30))) {
            try player.play(.file(long))
        }
        #expect(throws: SystemSoundPlayerError.invalidFile(path: mp3.path, .unsupportedContainer("MP3 (ID3 tag)"))) {
            try player.play(.file(mp3))
        }
        #expect(fake.calls.current.isEmpty)
    }

    @Test("a create failure carries AudioServices' status and its name")
    func createFailure() {
        let fake = FakeSystemSounds()
        fake.createStatus.withLock { $0 = 1_718_449_215 }
        let player = SystemSoundPlayerCore(client: fake.client)
        #expect(throws: SystemSoundPlayerError.createFailed(path: good.path, SystemSoundError(status: 1_718_449_215))) {
            try player.play(.file(good))
        }
        #expect(SystemSoundError(status: 1_718_449_215).description.contains("'fmt?'"))
        #expect(player.preparedFiles.isEmpty)
    }

    @Test("the three modes of seed 003, and the system alert")
    func modes() throws {
        let fake = FakeSystemSounds(finishImmediately: true)
        let player = SystemSoundPlayerCore(client: fake.client)
        try player.play(.system(.triTone), mode: .soundOnly)
        try player.play(.system(.triTone), mode: .vibrateOnly)
        try player.play(.system(.triTone), mode: .soundAndVibrate)
        try player.play(.system(.triTone), mode: .alert)
        #expect(
            fake.calls.current == [
                .play(1007, alert: false),
                .play(4095, alert: false),  // vibration through PlaySystemSound, never the alert API
                .play(1007, alert: false), .play(4095, alert: false),
                .play(1007, alert: true),
            ])
    }

    @Test("vibrate-only never opens the file")
    func vibrateOnlyIgnoresFile() throws {
        let fake = FakeSystemSounds(finishImmediately: true)
        try SystemSoundPlayerCore(client: fake.client).play(.file(mp3), mode: .vibrateOnly)
        #expect(fake.calls.current == [.play(4095, alert: false)])
    }

    @Test("sound and vibrate completes only when both have finished")
    func joinedCompletion() throws {
        let fake = FakeSystemSounds()
        let player = SystemSoundPlayerCore(client: fake.client)
        let done = Locked(0)
        try player.play(.system(.glass), mode: .soundAndVibrate) { done.withLock { $0 += 1 } }
        let completions = fake.pending.current
        #expect(completions.count == 2)
        completions[0]()
        #expect(done.current == 0)
        completions[1]()
        #expect(done.current == 1)
    }

    @Test("async play returns after the completion, and throws for a bad file")
    func asyncPlay() async throws {
        let fake = FakeSystemSounds(finishImmediately: true)
        let player = SystemSoundPlayerCore(client: fake.client)
        try await player.play(.file(good), mode: .soundAndVibrate)
        #expect(fake.calls.current.count == 3)
        await #expect(throws: SystemSoundPlayerError.self) { try await player.play(.file(mp3)) }
    }

    @Test("IsUISound is turned off only when asked")
    func isUISound() throws {
        let fake = FakeSystemSounds(finishImmediately: true)
        try SystemSoundPlayerCore(client: fake.client, isUISound: false).prepare(good)
        #expect(fake.calls.current.contains(.setIsUISound(100, false)))
        let other = FakeSystemSounds()
        try SystemSoundPlayerCore(client: other.client).prepare(good)
        #expect(!other.calls.current.contains { if case .setIsUISound = $0 { true } else { false } })
    }

    @Test("dispose frees one sound, disposeAll and deinit free the rest")
    func disposal() throws {
        let fake = FakeSystemSounds()
        let second = folder.appendingPathComponent("two.wav")
        try SoundFileWriter.silence(duration: 0.05, container: .wav).write(to: second)
        var player: SystemSoundPlayerCore? = SystemSoundPlayerCore(client: fake.client)
        try player?.prepare(good)
        try player?.prepare(second)
        player?.dispose(good)
        #expect(fake.calls.current.last == .dispose(100))
        player?.dispose(good)  // already gone: nothing happens
        #expect(fake.calls.current.filter { if case .dispose = $0 { true } else { false } }.count == 1)
        player = nil
        #expect(fake.calls.current.last == .dispose(101))
    }
}
