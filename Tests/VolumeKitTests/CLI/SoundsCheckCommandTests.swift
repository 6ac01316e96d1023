import Foundation
import TestSupport
import Testing

@testable import VolumeKitCore

/// `volumekit sounds check` prints one line a file (and a warning for a misleading extension) without making a
/// URL of each path or formatting through Foundation (issue 23: its per-file cost): the lines are the ones a
/// person read before — durations as `%.3f` wrote them, the extension `URL` would find.
@Suite("volumekit sounds check: its lines")
struct SoundsCheckCommandTests {
    @Test("each file's line and warning, for relative and absolute paths, with durations as %.3f writes them")
    func lines() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: volumekitExecutable.path))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sounds-check-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // 1,999 frames at 8 kHz: 0.249875 s, which rounds up to 0.250.
        let samples = sineSamples(frames: 1_999, channels: 1, sampleRate: 8_000)
        let wav = try SoundFileWriter.write(samples: samples, format: .init(container: .wav, sampleRate: 8_000))
        let caf = try SoundFileWriter.write(
            samples: samples + samples, format: .init(container: .caf, sampleRate: 16_000, channels: 2))
        try wav.write(to: folder.appendingPathComponent("ok.wav"))
        try wav.write(to: folder.appendingPathComponent("named.M4A"))
        try caf.write(to: folder.appendingPathComponent("stereo.caf"))
        let absolute = folder.appendingPathComponent("stereo.caf").path
        // `sounds check` runs in the test's folder: relative paths go through `..` from there.
        let relative = relativePath(to: folder.appendingPathComponent("ok.wav").path)
        let result = try await runChildProcess(
            volumekitExecutable,
            ["sounds", "check", relative, folder.appendingPathComponent("named.M4A").path, absolute])
        let wavLine = "ok WAV, linear PCM (integer, little-endian), 8000 Hz, 1 ch, 16 bit, 1999 frames, 0.250 s"
        #expect(
            result.output.split(separator: "\n").map(String.init) == [
                "\(relative): \(wavLine)",
                "\(folder.path)/named.M4A: \(wavLine)",
                "\(folder.path)/named.M4A: warning: the name ends in .m4a but the content is WAV; rename it to .wav "
                    + "(the content decides the check, but AudioServices asks for a .caf, .aif or .wav file)",
                "\(absolute): ok CAF, linear PCM (integer, big-endian), 16000 Hz, 2 ch, 16 bit, 1999 frames, 0.125 s",
            ], "\(result.output)\(result.error)")
        #expect(result.status == 0)
    }

    @Test("a duration's three decimals are the ones %.3f writes")
    func thousandthsAsFormatWrites() {
        // Exact ties (500 frames at 8 kHz: 0.0625 s) go to even; near ties (36 frames: 0.0045 s, a little
        // under in binary) go the way the binary value lies.
        var values: [Double] = [0, 0.0004, 0.0005, 0.0015, 0.0625, 0.1875, 0.1, 0.125, 0.2499, 0.249875, 1, 29.9995]
        values += [30, 3_600.123, 1e11 + 0.0005, -0.0625, -0.0004]
        for rate in [8_000.0, 11_025, 16_000, 22_050, 44_100, 48_000] {
            values += (1...4_000).map { Double($0) / rate }
        }
        let differing = values.filter { SoundFileInfo.seconds($0) != String(format: "%.3f", $0) }
        #expect(differing.isEmpty, "\(differing.prefix(5).map { "\($0): \(SoundFileInfo.seconds($0))" })")
    }

    @Test("the extension is the one URL finds")
    func extensionAsURLFinds() {
        for path in [
            "a.wav", "/x/y.WAV", "dir.d/file", ".hidden", "a.", "a.b.c", "noext", "/", "", "x/.caf", "a..wav",
            "../up.aif", "beep.\u{1B}[2J",
        ] {
            #expect(
                SoundContainer.pathExtension(of: path) == URL(fileURLWithPath: path).pathExtension,
                "\(path.debugDescription)")
        }
    }

    /// `path` relative to the current folder.
    private func relativePath(to path: String) -> String {
        let here = FileManager.default.currentDirectoryPath.split(separator: "/")
        let there = path.split(separator: "/")
        let common = zip(here, there).prefix { $0 == $1 }.count
        return (Array(repeating: "..", count: here.count - common) + there.dropFirst(common).map(String.init))
            .joined(separator: "/")
    }
}
