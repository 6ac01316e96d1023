import Foundation
import Testing

@testable import VolumeKitCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `SoundFileReader.read(contentsOf:)` decides from one `stat` (issue 23: no owner and group name look-ups)
/// and reads with `pread` through a 4 KiB window: symlinks are followed as before, each kind of path keeps its
/// sentence, the headers read through a descriptor are the ones read from memory, and a file whose headers
/// lie in its first 4 KiB costs one read.
@Suite("Sound files by path: one stat, symlinks followed, the same sentences (issue 23)")
struct SoundFileReaderPathTests {
    @Test("a symlink to a sound is read; to a folder, to a FIFO or to nothing, each gets its sentence")
    func symlinks() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vk-links-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sound = directory.appendingPathComponent("real.wav")
        try SoundFileErrorTests.wav.write(to: sound)
        let fifo = directory.appendingPathComponent("pipe")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        func link(_ name: String, to target: URL) throws -> URL {
            let url = directory.appendingPathComponent(name)
            try FileManager.default.createSymbolicLink(at: url, withDestinationURL: target)
            return url
        }
        let fromDisk = try SoundFileReader.read(contentsOf: try link("to-sound.wav", to: sound))
        #expect(fromDisk == (try SoundFileReader.read(SoundFileErrorTests.wav)))
        let cases: [(URL, String)] = [
            (try link("to-folder", to: directory), "is a folder"),
            (try link("to-fifo", to: fifo), "not a regular file"),
            (try link("dangling", to: directory.appendingPathComponent("gone.wav")), "there is no file"),
        ]
        for (url, expected) in cases {
            guard case .failure(let error) = soundResult({ try SoundFileReader.read(contentsOf: url) }) else {
                Issue.record("\(url.path) was read")
                continue
            }
            #expect(error.kind == "unreadable")
            #expect(error.description.contains(expected), "\(error)")
        }
    }

    @Test("an empty file and a file cut inside its header keep their errors when read from disk")
    func emptyAndCut() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vk-cut-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = directory.appendingPathComponent("empty.wav")
        try Data().write(to: empty)
        let cut = directory.appendingPathComponent("cut.wav")
        try SoundFileErrorTests.wav.prefix(30).write(to: cut)
        for url in [empty, cut] {
            let fromDisk = soundResult { try SoundFileReader.read(contentsOf: url) }
            let fromMemory = soundResult { try SoundFileReader.read(try Data(contentsOf: url)) }
            #expect("\(fromDisk)" == "\(fromMemory)")
        }
    }

    /// Reads `data` written to a file through the reader's descriptor source: the facts (or the error) and how
    /// many `pread` calls it took.
    private func readFromDisk(_ data: Data) throws -> (Result<SoundFileInfo, SoundFileError>, reads: Int) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vk-window-\(UUID().uuidString)")
        try data.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let file = try RegularFile.open(url.path, kind: "sound")
        defer { RegularFile.closeDescriptor(file.descriptor) }
        let source = DescriptorByteSource(fd: file.descriptor, byteCount: file.size)
        return (soundResult { try SoundFileReader.read(from: source) }, source.readCalls)
    }

    @Test("headers in the first 4 KiB cost one read; chunks past it one more each, never the whole file")
    func readsThroughAWindow() throws {
        for data in [SoundFileErrorTests.wav, SoundFileErrorTests.caf, SoundFileErrorTests.aiff] {
            let (result, reads) = try readFromDisk(data)
            #expect("\(result)" == "\(readResult(data))")
            #expect(reads == 1, "\(reads) reads")
        }
        // A 10,000-byte JUNK chunk before 'fmt ' (as some recorders write), and a LIST chunk after 100 KB of
        // samples: the walk reads a window at 0, one at 'fmt ', one past the data.
        let wav = SoundFileErrorTests.wav
        let junk = Array("JUNK".utf8) + le32(10_000) + [UInt8](repeating: 0, count: 10_000)
        var padded = Data(wav.prefix(12)) + Data(junk) + Data(wav.dropFirst(12))
        padded = patched(padded, at: 4, with: le32(UInt32(padded.count - 8)))
        let (paddedResult, paddedReads) = try readFromDisk(padded)
        #expect("\(paddedResult)" == "\(readResult(padded))")
        #expect(paddedReads == 2, "\(paddedReads) reads")
        let long = try SoundFileWriter.write(
            samples: sineSamples(frames: 50_000, channels: 1, sampleRate: 8_000),
            format: .init(container: .wav, sampleRate: 8_000))
        let list = Array("LIST".utf8) + le32(4) + Array("INFO".utf8)
        var tagged = long + Data(list)
        tagged = patched(tagged, at: 4, with: le32(UInt32(tagged.count - 8)))
        let (taggedResult, taggedReads) = try readFromDisk(tagged)
        guard case .success(let info) = taggedResult else {
            Issue.record("\(taggedResult)")
            return
        }
        #expect(info.frameCount == 50_000)
        #expect("\(taggedResult)" == "\(readResult(tagged))")
        #expect(taggedReads == 2, "\(taggedReads) reads of a \(tagged.count)-byte file")
    }
}
