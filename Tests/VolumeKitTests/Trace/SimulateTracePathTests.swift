import Foundation
import TestSupport
import Testing

/// `volumekit simulate --trace FILE SCRIPT` refuses a trace file that is the script itself (review item 7):
/// writing the trace there would destroy the script.
@Suite("simulate --trace onto the script")
struct SimulateTracePathTests {
    /// Runs `volumekit` with `arguments`; its exit status and standard error.
    static func run(_ arguments: [String]) async throws -> (status: Int32, error: String) {
        let outcome = try await runChildProcess(volumekitExecutable, arguments)
        return (outcome.status, outcome.error)
    }

    @Test("A trace path naming the script (the same path, another spelling, a link) exits 2 and leaves the script")
    func refusesTheScript() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: volumekitExecutable.path), "build volumekit first")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("simulate-trace-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = folder.appendingPathComponent("s.txt")
        let text = "start\npress up\nstop\n"
        try Data(text.utf8).write(to: script)
        let link = folder.appendingPathComponent("link.txt")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: script)
        let spellings = [script.path, folder.path + "/./s.txt", link.path]
        for trace in spellings {
            let result = try await Self.run(["simulate", "--trace", trace, script.path])
            #expect(result.status == 2, "\(trace)")
            #expect(result.error.contains("is the script itself"), "\(result.error)")
            #expect(try String(contentsOf: script, encoding: .utf8) == text, "\(trace)")
        }
        // Another file is fine.
        let trace = folder.appendingPathComponent("t.jsonl")
        #expect(try await Self.run(["simulate", "--trace", trace.path, script.path]).status == 0)
        #expect(FileManager.default.fileExists(atPath: trace.path))
    }
}
