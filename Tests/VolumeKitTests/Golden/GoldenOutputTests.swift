import Foundation
import TestSupport
import Testing
import VolumeKitCore
import VolumeKitTesting

/// The behaviour the buttons core must keep while it is refactored (issue 24): for every script in
/// `scenarios/` (and `scenarios/known/`), every VolumeKit strategy and samples 1–50 of the envelope, the bytes
/// `volumekit simulate --json --profile sample:K --trace T SCRIPT` prints and writes — every event, diagnostic,
/// truth and verdict record, and in the trace every set VolumeKit made, every observation and its time —
/// hashed per run into `golden/outputs.txt`.
///
/// A run whose hash differs names the command that prints its output, so the change can be read. A deliberate
/// change of behaviour regenerates the file in a commit of its own that says why:
/// `VOLUMEKIT_GOLDEN=write swift test --filter GoldenOutputTests` (or `scripts/golden.sh --write`).
@Suite("Golden outputs: the buttons core's behaviour, run by run")
struct GoldenOutputTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../.."
    )
    .standardized
    static let goldenFile = root.appendingPathComponent("golden/outputs.txt")
    static let samples = 1...50
    static let strategies: [SimulatedStrategy] = [.outputVolume, .systemNotification, .captureEvents, .passive]

    /// The scripts, by path relative to the package, sorted.
    static func scripts() -> [String] {
        let manager = FileManager.default
        return ["scenarios", "scenarios/known"].flatMap { folder in
            ((try? manager.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? [])
                .filter { $0.hasSuffix(".txt") }.map { "\(folder)/\($0)" }
        }.sorted()
    }

    /// One run's output and trace, as the CLI prints and writes them.
    static func output(script path: String, strategy: SimulatedStrategy, sample k: Int) throws -> String {
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        let behaviour = try DeviceBehaviour(profile: "sample:\(k)")
        let scenario = try Scenario(parsing: text)
        let runner = ScenarioRunner(scenario: scenario, strategy: strategy, behaviour: behaviour)
        let trace = Locked([String]())
        let name = URL(fileURLWithPath: path).lastPathComponent
        runner.traceOptions = ScenarioTraceOptions(
            note:
                "volumekit simulate --profile sample:\(k) \(name); rules: \(behaviour.assignments.joined(separator: " "))",
            keepsRecords: false, onLine: { line in trace.withLock { $0.append(line) } })
        var lines = [String]()
        do {
            try runner.run { record in
                if case .command = record.kind { return }
                lines.append(record.json)
            }
        } catch {
            lines.append(ScenarioRecord(time: nil, kind: .error(String(describing: error))).json)
        }
        return (lines + ["--trace"] + trace.current).joined(separator: "\n")
    }

    /// FNV-1a, 64 bits: stable across runs and platforms (Swift's `Hasher` is seeded per process).
    static func hash(_ text: String) -> String {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x100_0000_01b3
        }
        return String(value, radix: 16)
    }

    /// Every run's line: `SCRIPT STRATEGY sample:K HASH`.
    static func lines() throws -> [String] {
        try scripts().flatMap { script in
            try strategies.flatMap { strategy in
                try samples.map { k in
                    "\(script) \(strategy.rawValue) sample:\(k) \(hash(try output(script: script, strategy: strategy, sample: k)))"
                }
            }
        }
    }

    @Test("every scenario × strategy × samples 1–50 prints and traces what it did when the golden was recorded")
    func outputsUnchanged() async throws {
        let current = try await offThePool { Result { try Self.lines() } }.get()
        if ProcessInfo.processInfo.environment["VOLUMEKIT_GOLDEN"] == "write" {
            try FileManager.default.createDirectory(
                at: Self.goldenFile.deletingLastPathComponent(), withIntermediateDirectories: true)
            try (current.joined(separator: "\n") + "\n").write(to: Self.goldenFile, atomically: true, encoding: .utf8)
            return
        }
        let recorded = try String(contentsOf: Self.goldenFile, encoding: .utf8).split(separator: "\n").map(String.init)
        // A line's run: everything but its hash.
        func run(_ line: String) -> String { line.split(separator: " ").dropLast().joined(separator: " ") }
        let recordedKeys = Set(recorded.map(run))
        let currentKeys = Set(current.map(run))
        #expect(recordedKeys == currentKeys, "the runs differ: a script was added or removed; regenerate the golden")
        let changed = Set(current).subtracting(recorded).filter { recordedKeys.contains(run($0)) }.sorted()
        let commands = changed.prefix(10).map { line -> String in
            let words = line.split(separator: " ")
            return
                "swift run volumekit simulate --json --strategy \(words[1]) --profile \(words[2]) --trace /tmp/t.jsonl \(words[0])"
        }
        let unchanged = changed.isEmpty
        #expect(
            unchanged,
            "\(changed.count) of \(current.count) runs changed; see the first with:\n\(commands.joined(separator: "\n"))"
        )
    }
}
