import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Each known session violation (``KnownSessionViolations``) has its reproducing script in `scenarios/known/`: the
/// randomized session replayed exactly by the scenario runner, so anyone can watch the defect with
/// `volumekit simulate --strategy STRATEGY --profile sample:K --strict scenarios/known/FILE`. A fix that clears a
/// violation fails here until its entry and its script leave together.
@Suite("Known violations replay from their scripts")
struct KnownViolationScriptsTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../scenarios/known").standardized

    static var keys: [String] {
        Set(KnownSessionViolations.events.keys).union(KnownSessionViolations.finalVolumes.keys).sorted()
    }

    /// "outputVolume 3042 24089598" → (strategy, sample, seed, "outputVolume-3042-24089598.txt").
    static func parse(_ key: String) throws -> (SimulatedStrategy, UInt64, UInt64, String) {
        let words = key.split(separator: " ")
        let strategy = try #require(words.first.flatMap { SimulatedStrategy(rawValue: String($0)) })
        let sample = try #require(words.dropFirst().first.flatMap { UInt64($0) })
        let seed = try #require(words.dropFirst(2).first.flatMap { UInt64($0) })
        return (strategy, sample, seed, words.joined(separator: "-") + ".txt")
    }

    @Test("Every known session violation has its script, and every script is a known violation's")
    func scriptsMatchTheList() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).filter {
            $0.hasSuffix(".txt")
        }
        #expect(Set(files) == Set(try Self.keys.map { try Self.parse($0).3 }))
    }

    @Test("Each script shows its known violation exactly, as the session did", arguments: Self.keys)
    func reproduces(key: String) throws {
        let (strategy, sample, _, file) = try Self.parse(key)
        let text = try String(contentsOf: Self.directory.appendingPathComponent(file), encoding: .utf8)
        let runner = ScenarioRunner(
            scenario: try Scenario(parsing: text), strategy: strategy, behaviour: .sample(sample))
        runner.run()
        let verdict = try #require(runner.verdict)
        if KnownSessionViolations.events[key] != nil {
            #expect(KnownSessionViolations.isKnown(key, events: verdict.violations), "\(verdict.violations)")
        } else {
            #expect(verdict.ok, "\(verdict.violations)")
        }
        // A final volume off: "bluetooth: volume 0.125, user's 0.25" — the route ends at that volume as the session
        // reads it (`endVolume(on:)`): what a saved record gives back the next time VolumeKit runs there, else the
        // device's — within half a nudge (1/4096), so that a fix that takes VolumeKit's nudges out shows.
        let records = PendingRestores.load(from: runner.device.clients.keyValueStore).byRoute
        for problem in KnownSessionViolations.finalVolumes[key].map({ $0.components(separatedBy: "; ") }) ?? [] {
            let words = problem.split(separator: " ")
            let route = try #require(AudioRoute(rawValue: String(words[0].dropLast())))
            let volume = try #require(Float(String(words[2].dropLast())))
            let actual = runner.device.volume(on: route)
            var reading = actual
            if let record = records[route],
                case .restore(let restored) = RecoveryRule.decide(
                    record, currentVolume: actual, uptime: runner.device.now)
            {
                reading = restored
            }
            #expect(
                abs(reading - volume) < VolumeStepMachine.nudge / 2,
                "\(route): the device \(actual), read as \(reading)")
        }
    }

    /// Writes each known session's script into `scenarios/known/` (run after the list changes):
    /// `VOLUMEKIT_WRITE_KNOWN_SCRIPTS=1 swift test --filter writeScripts`.
    @Test(
        "Write the known violations' scripts",
        .enabled(if: ProcessInfo.processInfo.environment["VOLUMEKIT_WRITE_KNOWN_SCRIPTS"] != nil))
    func writeScripts() throws {
        try FileManager.default.createDirectory(at: Self.directory, withIntermediateDirectories: true)
        for key in Self.keys {
            let (strategy, sample, seed, file) = try Self.parse(key)
            let session = RandomSession.replayed(strategy, sample: sample, seed: seed)
            let shows = [KnownSessionViolations.events[key], KnownSessionViolations.finalVolumes[key]].compactMap { $0 }
            let header = [
                "# A known violation (README, \"Known violations\"): the randomized session \(key), replayed exactly.",
                "# \(KnownSessionViolations.notes[key] ?? "Not analysed yet.")",
                "# It shows: \(shows.joined(separator: "; ")).",
                "# volumekit simulate --strategy \(strategy.rawValue) --profile sample:\(sample) --strict scenarios/known/\(file)",
            ]
            let lines = header + session.script.filter { !$0.hasPrefix("#") }
            try (lines.joined(separator: "\n") + "\n").write(
                to: Self.directory.appendingPathComponent(file), atomically: true, encoding: .utf8)
        }
    }
}
