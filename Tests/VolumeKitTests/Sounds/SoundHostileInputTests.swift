import Dispatch
import Foundation
import Testing
import VolumeKitTesting

@testable import VolumeKitCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 12 defect 8 and issue 16's papercuts: hostile or odd files a user hands `sounds check`.
@Suite("Hostile and odd sound files")
struct SoundHostileInputTests {
    static let caf = SoundFileErrorTests.caf
    static let aiff = SoundFileErrorTests.aiff

    @Test("a sample rate of 5e-324 (or anything below 1 Hz) is an invalid field, not an infinite duration")
    func tinySampleRate() throws {
        for rate in [Double.leastNonzeroMagnitude, Double.leastNormalMagnitude, 0.5] {
            #expect(
                readResult(patched(Self.caf, at: 20, with: be64(rate.bitPattern)))
                    == .failure(.invalidField(.sampleRate, value: "\(rate)", at: .init(chunk: "desc", offset: 8))))
        }
        // AIFF's 80-bit extended rate: the smallest denormal-ish exponent.
        let comm = try #require(offset(of: "COMM", in: Self.aiff))
        let tiny = patched(Self.aiff, at: comm + 16, with: [0x00, 0x01, 0x80, 0, 0, 0, 0, 0, 0, 0])
        guard case .failure(.invalidField(.sampleRate, _, _)) = readResult(tiny) else {
            Issue.record("a tiny AIFF rate was read: \(readResult(tiny))")
            return
        }
        // 1 Hz still reads, and its duration is finite.
        let info = try readResult(patched(Self.caf, at: 20, with: be64(1.0.bitPattern))).get()
        #expect(info.duration == 800)
    }

    @Test("a CAF lpcm mBytesPerPacket of 0xFFFFFFFE is an invalid field, not 'ok, 0 frames'")
    func hugeBytesPerPacket() {
        // desc payload starts at 20: rate(8) formatID(4) flags(4) bytesPerPacket(4) at 36.
        for value: UInt32 in [0xFFFF_FFFE, 0xFFFF_FFFF, 9, 1_000] {
            #expect(
                readResult(patched(Self.caf, at: 36, with: be32(value)))
                    == .failure(
                        .invalidField(
                            .bytesPerPacket, value: "\(value) (must be 2…8)", at: .init(chunk: "desc", offset: 8))))
        }
    }

    @Test("sox's 24-bit CAF with a pad byte after its odd-sized data chunk passes (issue 16)")
    func soxPaddedCAF() throws {
        let url = try SoundFixtureTests.url("sox-pcm24-odd-padded.caf")
        let info = try SystemSoundValidator.check(contentsOf: url)
        #expect(info.container == .caf && info.encoding == .linearPCM(isFloat: false, isBigEndian: true))
        #expect(info.bitsPerSample == 24 && info.sampleRate == 8_000 && info.frameCount == 7)
    }

    @Test("a CAF with trailing zero padding is read; a trailing non-zero byte or a cut chunk header is still truncated")
    func cafTrailingBytes() throws {
        // The writer's CAF ends with its data chunk.
        let base = try readResult(Self.caf).get()
        for pad in 1...11 {
            #expect(try readResult(Self.caf + Data(count: pad)).get() == base)
        }
        guard case .failure(.truncated) = readResult(Self.caf + Data([0x01])) else {
            Issue.record("a non-zero trailing byte was accepted")
            return
        }
        guard case .failure(.truncated) = readResult(Self.caf + Data("free".utf8)) else {
            Issue.record("a cut chunk header was accepted")
            return
        }
    }

    @Test("a FIFO is refused by its type at once instead of blocking forever")
    func fifoRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vk-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("sound.caf")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let result = Locked<Result<SoundFileInfo, SoundFileError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            result.withLock { $0 = soundResult { try SoundFileReader.read(contentsOf: fifo) } }
            done.signal()
        }.start()
        if done.wait(timeout: .now() + 2) == .timedOut {
            Issue.record("reading a FIFO blocked")
            let writer = open(fifo.path, O_WRONLY | O_NONBLOCK)  // Unblock the reader so the test can end.
            if writer >= 0 { close(writer) }
            done.wait()
            return
        }
        guard case .failure(.unreadable(let reason))? = result.current else {
            Issue.record("\(String(describing: result.current))")
            return
        }
        #expect(reason.contains("not a regular file"))
    }

    @Test("a folder or a missing file is a sentence, not 'NSCocoaErrorDomain error 256'")
    func folderAndMissingFile() {
        let folder = FileManager.default.temporaryDirectory
        let missing = folder.appendingPathComponent("no-such-sound-\(UUID().uuidString).caf")
        for (url, expected) in [(folder, "is a folder"), (missing, "there is no file")] {
            guard case .failure(let error) = soundResult({ try SoundFileReader.read(contentsOf: url) }) else {
                Issue.record("\(url.path) was read")
                continue
            }
            #expect(error.kind == "unreadable")
            #expect(error.description.contains(expected), "\(error)")
            #expect(!error.description.contains("NSCocoaErrorDomain") && !error.description.contains("error 256"))
        }
    }

    @Test("the content decides; a mismatched extension is a warning naming the right one (issue 16)")
    func extensionRule() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vk-ext-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let misnamed = directory.appendingPathComponent("alert.m4a")
        try SoundFileErrorTests.wav.write(to: misnamed)
        let info = try SystemSoundValidator.check(contentsOf: misnamed)  // content decides: it passes
        #expect(info.container == .wav)
        let warning = try #require(info.container.extensionWarning(for: misnamed))
        #expect(warning.contains(".m4a") && warning.contains("rename it to .wav"))
        #expect(SoundContainer.wav.extensionWarning(for: URL(fileURLWithPath: "/a/b.WAV")) == nil)
        #expect(SoundContainer.aiff.extensionWarning(for: URL(fileURLWithPath: "/a/b.aif")) == nil)
        #expect(SoundContainer.aiffc.extensionWarning(for: URL(fileURLWithPath: "/a/b.aiff")) == nil)
        #expect(
            SoundContainer.caf.extensionWarning(for: URL(fileURLWithPath: "/a/b"))?.contains("has no extension") == true
        )
    }
}
