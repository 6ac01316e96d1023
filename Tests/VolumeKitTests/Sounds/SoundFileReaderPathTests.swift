import Foundation
import Testing

@testable import VolumeKitCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `SoundFileReader.read(contentsOf:)` decides from one `stat` (issue 23: no owner and group name look-ups)
/// and reads with `pread`: symlinks are followed as before, each kind of path keeps its sentence, and the
/// headers read through a descriptor are the ones read from memory.
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
}
