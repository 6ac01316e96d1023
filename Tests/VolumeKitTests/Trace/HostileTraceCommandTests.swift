import Foundation
import TestSupport
import Testing

/// `volumekit trace replay|fit` against hostile files, as a person runs it (issue 23, items 1 and 6, and
/// `trace fit missing.jsonl`): each ends within a deadline with exit status 1 and one sentence.
@Suite("trace replay|fit on hostile files")
struct HostileTraceCommandTests {
    /// How long a refusal may take; the hangs these tests catch never ended at all.
    static let deadline: TimeInterval = 30

    /// Runs `volumekit` with `arguments` until it exits or the deadline passes (then it is killed):
    /// whether it exited in time, its status and its standard error.
    static func run(_ arguments: [String]) async throws -> (exited: Bool, status: Int32, error: String) {
        let outcome = try await runChildProcess(volumekitExecutable, arguments, deadline: deadline)
        return (outcome.exited, outcome.status, outcome.error)
    }

    /// A fresh folder for one test's files.
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-trace-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("Times at 2^53 s (a clock origin of 1e16, or records shifted by 1e16) are refused, not replayed forever")
    func hugeTimesEnd() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: volumekitExecutable.path))
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, text, line) in [
            ("origin.jsonl", HostileTraceTests.withOrigin("1e16"), 1),
            ("shifted.jsonl", HostileTraceTests.shifted(by: 1e16), 2),
        ] {
            let url = folder.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            let result = try await Self.run(["trace", "replay", url.path])
            #expect(result.exited, "\(name): still running after \(Self.deadline) s")
            #expect(result.status == 1, "\(name)")
            #expect(result.error.contains(": line \(line): the field"), "\(name): \(result.error)")
            #expect(result.error.contains("8589934592"), "\(name): \(result.error)")
        }
    }

    @Test("A FIFO is refused by its type for replay and fit, without waiting for a writer")
    func fifoIsRefused() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: volumekitExecutable.path))
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("trace.jsonl")
        try #require(mkfifo(fifo.path, 0o600) == 0)
        for action in ["replay", "fit"] {
            let result = try await Self.run(["trace", action, fifo.path])
            #expect(result.exited, "\(action): still blocked after \(Self.deadline) s")
            #expect(result.status == 1)
            #expect(
                result.error.hasSuffix(
                    "the file cannot be read (it is not a regular file but a FIFO, socket or device; to read a pipe, give - and send the trace to standard input).\n"
                ), "\(result.error)")
        }
    }

    @Test("simulate refuses a FIFO script by its type, and echoes a path's control characters cleaned")
    func simulateFIFOIsRefused() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: volumekitExecutable.path))
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("script.txt")
        try #require(mkfifo(fifo.path, 0o600) == 0)
        let result = try await Self.run(["simulate", fifo.path])
        #expect(result.exited, "still blocked after \(Self.deadline) s")
        #expect(result.status != 0)
        #expect(result.error.contains("not a regular file but a FIFO"), "\(result.error)")
        let hostile = try await Self.run(["simulate", folder.appendingPathComponent("a\u{1B}[2Jb").path])
        #expect(!hostile.error.contains("\u{1B}"), "\(hostile.error)")
        #expect(hostile.error.contains("there is no file at this path"), "\(hostile.error)")
    }

    @Test("A missing file is said in a sentence, not in Foundation's words")
    func missingFile() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: volumekitExecutable.path))
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appendingPathComponent("missing.jsonl").path
        let result = try await Self.run(["trace", "fit", missing])
        #expect(result.status == 1)
        #expect(
            result.error
                == "volumekit trace: \(missing): the file cannot be read (there is no file at this path; check the path).\n"
        )
    }

    @Test("The path is echoed cut and cleaned of control characters")
    func pathIsCleaned() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: volumekitExecutable.path))
        let path = "/nonexistent/\u{1B}]0;owned\u{7}" + String(repeating: "p", count: 5000)
        let result = try await Self.run(["trace", "replay", path])
        #expect(result.status == 1)
        #expect(result.error.contains(#"\u{1B}]0;owned\u{7}"#), "\(result.error.prefix(200))")
        #expect(!result.error.dropLast().unicodeScalars.contains { $0.value < 0x20 }, "\(result.error.prefix(200))")
        #expect(result.error.count < 400, "\(result.error.count) characters")
    }
}
