import Foundation
import TestSupport
import Testing
import VolumeKitCore
import VolumeKitTesting

/// A scenario of the corpus with what an observer must see: the presses, and each route's volume at the end.
struct CorpusScenario: Sendable, CustomTestStringConvertible {
    var name: String
    var script: String
    /// The buttons of the `pressed` events, in order, with no `repeated` (or `nil` for a hold).
    var presses: [VolumeButton]?
    /// For a hold: the button; exactly one `pressed`, then only `repeated` of it.
    var held: VolumeButton?
    /// The speaker's volume at the end (the user's); every other route keeps the starting volume.
    var speakerVolume: Float
    /// The user keeps pressing after capture lets go (`# volume: V steps`): the speaker ends V plus whole
    /// steps — no nudge of VolumeKit's left in it.
    var wholeStepsFromSpeakerVolume = false
    var testDescription: String { name }

    /// The files in `scenarios/`, whose header lines say what to expect: `# presses: up down`, or
    /// `# hold: up`, and `# volume: V`.
    static func files() -> [CorpusScenario] {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../../scenarios"
        ).standardized
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".txt") }.sorted().compactMap { name in
            guard let text = try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8) else {
                return nil
            }
            var scenario = CorpusScenario(
                name: "scenarios/\(name)", script: text, presses: nil, held: nil, speakerVolume: -1)
            for line in text.split(separator: "\n") {
                if line.hasPrefix("# presses:") {
                    scenario.presses = line.dropFirst("# presses:".count).split(separator: " ").compactMap {
                        VolumeButton(rawValue: String($0))
                    }
                } else if line.hasPrefix("# hold:") {
                    scenario.held = VolumeButton(
                        rawValue: line.dropFirst("# hold:".count).trimmingCharacters(in: .whitespaces))
                } else if line.hasPrefix("# volume:") {
                    let words = line.dropFirst("# volume:".count).split(separator: " ")
                    scenario.speakerVolume = words.first.flatMap { Float(String($0)) } ?? -1
                    scenario.wholeStepsFromSpeakerVolume = words.dropFirst().first == "steps"
                }
            }
            return scenario.speakerVolume >= 0 && (scenario.presses != nil || scenario.held != nil) ? scenario : nil
        }
    }

    /// The tests' own capture scenarios (``CaptureCase``), as corpus entries.
    static func captureCases() -> [CorpusScenario] {
        CaptureCase.all.map { testCase in
            CorpusScenario(
                name: testCase.name, script: "volume \(testCase.volume)\nstart\n\(testCase.body)\nwait 1\nstop\n",
                presses: testCase.presses, held: nil, speakerVolume: testCase.userVolume)
        }
    }

    /// The files, then the capture cases whose script no file already runs: nine of the fourteen cases (single
    /// presses, the rails, the 50 ms down bursts, the headphones connected mid-session, …) are also `scenarios/`
    /// files, and a script run twice would count its runs, and its failures, twice in the corpus's rates.
    static let all: [CorpusScenario] = {
        let fileScenarios = CorpusScenario.files()
        let scripts = fileScenarios.compactMap(\.commands)
        return fileScenarios
            + captureCases().filter { testCase in testCase.commands.map { !scripts.contains($0) } ?? true }
    }()

    /// The script's commands as parsed (comments, blank lines and number spellings apart): what the simulated user
    /// does; `nil` for a script that does not parse (it stays in the corpus, where its runs say so).
    var commands: [Scenario.Command]? {
        (try? Scenario(parsing: script))?.lines.map(\.command)
    }

    /// `scenarios/calibrate.txt`: the learning run of a warm start.
    static let calibrate = try! String(
        contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../scenarios/calibrate.txt").standardized, encoding: .utf8)

    /// What a first session of use (`scenarios/calibrate.txt`) leaves in the store of a phone with `behaviour`.
    static func learn(strategy: SimulatedStrategy, behaviour: DeviceBehaviour, os: OSVersion) -> Data? {
        let text = calibrate.contains("\nios ") ? calibrate : "ios \(os)\n" + calibrate
        let runner = ScenarioRunner(scenario: try! Scenario(parsing: text), strategy: strategy, behaviour: behaviour)
        runner.run()
        return runner.storedCalibration
    }

    private func pendingRestores(_ device: SimulatedDevice) -> [AudioRoute: PendingRestore] {
        PendingRestores.load(from: device.clients.keyValueStore).byRoute
    }

    /// Runs the scenario and judges it: every event against the ground truth, and each route's final volume.
    /// `calibration`: the store a learning run left (``learn(strategy:behaviour:os:)``), for a warm start.
    func judge(strategy: SimulatedStrategy, behaviour: DeviceBehaviour, os: OSVersion, calibration: Data? = nil)
        -> Outcome
    {
        let text = script.contains("\nios ") || script.hasPrefix("ios ") ? script : "ios \(os)\n" + script
        guard let scenario = try? Scenario(parsing: text) else {
            return Outcome(violations: ["does not parse"], excused: [])
        }
        let runner = ScenarioRunner(scenario: scenario, strategy: strategy, behaviour: behaviour)
        runner.storedCalibration = calibration
        let offsets = Locked([AudioRoute: Float]())
        runner.finalVolumeCheck = { [self] device in
            finalVolumeProblems(device, scenario: scenario, runner: runner) { route, off in
                offsets.withLock { $0[route] = off }
            }
        }
        runner.run()
        // Every event against the ground truth (``PressOracle``); failures a limit proves are counted apart.
        let verdict = runner.verdict!
        return Outcome(
            violations: verdict.violations.map(\.summary),
            excused: verdict.excused, offsets: offsets.current)
    }

    /// What one corpus run found: the violations, and the failures proven limits excused.
    struct Outcome {
        var violations: [String]
        var excused: [Verdict.Excused]
        /// The final-volume offsets found, per route (for the known violations' predicates).
        var offsets: [AudioRoute: Float] = [:]
    }

    /// Known violations, listed in README with their counts and how to reproduce each: a defect not fixed yet,
    /// matched by a narrow predicate so that nothing else hides under it.
    /// - A hold carried into the background (`background-during-hold.txt`): with fast auto-repeats and a slow
    ///   slider, the speaker ends a few of VolumeKit's 1/4096 nudges below the user's volume (inaudible, 0.3 %);
    ///   reproduce with `volumekit simulate --profile sample:182 scenarios/background-during-hold.txt`.
    func knownViolation(_ outcome: Outcome) -> String? {
        guard name == "scenarios/background-during-hold.txt", outcome.violations.count == 1,
            outcome.violations[0].hasPrefix("finalVolume"), let off = outcome.offsets[.speaker],
            off < 0, -off < 16 * VolumeStepMachine.nudge, outcome.offsets.count == 1
        else { return nil }
        return "nudges left after a hold into the background"
    }

    /// Each route's volume at the end against the user's (the header's `# volume:` for the speaker, the starting
    /// volume elsewhere), with the documented rule for routes left while VolumeKit held them.
    private func finalVolumeProblems(
        _ device: SimulatedDevice, scenario: Scenario, runner: ScenarioRunner, offset: (AudioRoute, Float) -> Void
    ) -> [String] {
        var problems = [String]()
        let start =
            scenario.lines.compactMap { line -> Float? in
                if case .volume(let v) = line.command { return v } else { return nil }
            }.first ?? 0.5
        for route in AudioRoute.allCases {
            var wanted = route == .speaker ? speakerVolume : start
            let actual = device.volume(on: route)
            if route == .speaker, wholeStepsFromSpeakerVolume {
                wanted = min(1, max(0, speakerVolume + ((actual - speakerVolume) * 16).rounded() / 16))
            }
            if abs(actual - wanted) <= 1e-4 { continue }
            // A route left while VolumeKit held it gets the user's volume back when VolumeKit next runs there
            // (the documented rule: a route can only be set while it is current).
            if route != device.route, let record = pendingRestores(device)[route],
                abs(record.userVolume - wanted) < 1e-4,
                case .restore(let restored) = RecoveryRule.decide(
                    record, currentVolume: actual, uptime: runner.device.now),
                abs(restored - wanted) < 1e-4
            {
                continue
            }
            // Envelope limit (README): presses just after a route change without a notification, taken for the new
            // route's own volume (FinalVolumeLimit.missingRouteNotification).
            if FinalVolumeLimit.missingRouteNotification(
                route: route, off: actual - wanted, truth: runner.device.truth, diagnostics: runner.diagnostics,
                behaviour: runner.behaviour, userVolume: { _ in wanted })
            {
                continue
            }
            offset(route, actual - wanted)
            problems.append("\(route) at \(actual), the user's \(wanted)")
        }
        return problems
    }
}

/// How big the sweep is: `VOLUMEKIT_SWEEP_SAMPLES` (default 200) samples of the envelope, and
/// `VOLUMEKIT_SWEEP_SESSIONS` (default 2) random sessions per sample and strategy (`scripts/sweep.sh` raises both).
enum SweepSize {
    static var samples: Int { value("VOLUMEKIT_SWEEP_SAMPLES", 200) }
    /// The corpus's sample count (`VOLUMEKIT_SWEEP_CORPUS_SAMPLES`, default ``samples``; 0 skips the corpus).
    static var corpusSamples: Int { value("VOLUMEKIT_SWEEP_CORPUS_SAMPLES", samples) }
    static var sessions: Int { value("VOLUMEKIT_SWEEP_SESSIONS", 2) }
    static var first: Int { value("VOLUMEKIT_SWEEP_FIRST", 0) }
    /// Where to write every violation, one a line (`VOLUMEKIT_SWEEP_REPORT`), for investigation.
    static func report(_ lines: [String], _ label: String) {
        guard let path = ProcessInfo.processInfo.environment["VOLUMEKIT_SWEEP_REPORT"], !lines.isEmpty else { return }
        try? lines.joined(separator: "\n").write(toFile: path + "." + label, atomically: true, encoding: .utf8)
    }
    private static func value(_ name: String, _ fallback: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap(Int.init) ?? fallback
    }
    static let versions = [OSVersion(15, 0), OSVersion(16, 4), OSVersion(17, 4)]
}

@Suite("Correct across the envelope")
struct EnvelopeSweepTests {
    /// `VOLUMEKIT_SESSION="outputVolume 74 586007"` (strategy, sample, seed, as the report names them; several
    /// separated by `;`) replays those sessions and prints each whole timeline: each action, every device log
    /// entry (a volume change with whether VolumeKit held the volume at that instant), VolumeKit's events and
    /// diagnostics, and the verdict. With `VOLUMEKIT_NARRATE_DIR` each goes to its own file there instead.
    @Test(
        "Named sessions, narrated (for investigation)",
        .enabled(if: ProcessInfo.processInfo.environment["VOLUMEKIT_SESSION"] != nil))
    func narratedSessions() throws {
        let environment = ProcessInfo.processInfo.environment
        for named in (environment["VOLUMEKIT_SESSION"] ?? "").split(separator: ";") {
            let words = named.split(separator: " ")
            let strategy = try #require(words.first.flatMap { SimulatedStrategy(rawValue: String($0)) })
            let sample = try #require(words.dropFirst().first.flatMap { UInt64($0) })
            let seed = try #require(words.dropFirst(2).first.flatMap { UInt64($0) })
            let session = RandomSession(seed: seed, behaviour: .sample(sample), strategy: strategy)
            let lines = Locked([session.script[0]])
            session.narrate = { line in lines.withLock { $0.append(line) } }
            session.run(length: RandomSession.length)
            let limit = session.finalVolumeLimit.map { " (under the limit: \($0))" } ?? ""
            lines.withLock {
                $0.append("diagnostics: \(session.diagnostics.current)")
                $0.append("violations: \(session.violations())\(limit)")
                let verdict = session.eventVerdict()
                $0.append("event violations: \(verdict.violations.map(\.summary))")
                $0.append("excused: \(verdict.excused.map { "\($0.limit): \($0.violation.summary)" })")
                $0.append("truth: \(session.device.truth.map(\.text))")
                $0.append("events: \(session.observed.current.events.map { "\($0.time) \($0.button) \($0.phase)" })")
            }
            let text = lines.current.joined(separator: "\n") + "\n"
            if let directory = environment["VOLUMEKIT_SCRIPT_DIR"] {
                // The session as a script the scenario runner replays on the same timeline.
                try (session.script.joined(separator: "\n") + "\n").write(
                    toFile: "\(directory)/\(strategy.rawValue)-\(sample)-\(seed).txt", atomically: true, encoding: .utf8
                )
            }
            if let directory = environment["VOLUMEKIT_NARRATE_DIR"] {
                try text.write(
                    toFile: "\(directory)/\(strategy.rawValue)-\(sample)-\(seed).txt", atomically: true, encoding: .utf8
                )
            } else {
                print(text)
            }
        }
    }

    @Test("The corpus runs each script once: a capture case that is also a scenarios/ file is not counted twice")
    func corpusRunsEachScriptOnce() {
        let all = CorpusScenario.all
        let scripts = all.map(\.commands)
        for (index, scenario) in all.enumerated() {
            #expect(scripts[index] != nil, "\(scenario.name) does not parse")
            #expect(!scripts[..<index].contains(scripts[index]), "\(scenario.name) runs twice")
        }
        #expect(all.contains { $0.name == "scenarios/burst-at-zero.txt" })
        #expect(!all.contains { $0.name == "16 down presses 50 ms apart at 0" })
        #expect(all.contains { $0.name == "16 up presses 50 ms apart at 1" }, "a case no file runs stays")
    }

    @Test(
        "The scenario corpus under seeded samples of the envelope: every press once, no HUD, the user's volume back",
        arguments: [SimulatedStrategy.outputVolume, .systemNotification, .captureEvents], [false, true])
    func corpus(strategy: SimulatedStrategy, warm: Bool) async {
        let failures = await offThePool { () -> [String] in
            var runs = 0
            var failures = [String]()
            var excusedRuns = 0
            var apartRuns = 0
            var byLimit = [String: Int]()
            var excusedLines = [String]()
            var knownRuns = 0
            for k in SweepSize.first..<(SweepSize.first + SweepSize.corpusSamples) {
                let behaviour = DeviceBehaviour.sample(UInt64(k))
                let os =
                    strategy == .captureEvents ? OSVersion(17, 4) : SweepSize.versions[k % SweepSize.versions.count]
                // Warm: the phone was learned first, as a later launch finds it (issue 25's calibrated sweep).
                let calibration =
                    warm ? CorpusScenario.learn(strategy: strategy, behaviour: behaviour, os: os) : nil
                for scenario in CorpusScenario.all {
                    // A scenario pinned to an iOS version where the strategy does not exist does not apply.
                    if strategy == .captureEvents, scenario.script.contains("ios 14") { continue }
                    runs += 1
                    let outcome = scenario.judge(
                        strategy: strategy, behaviour: behaviour, os: os, calibration: calibration)
                    let line = "sample:\(k) iOS \(os) \(scenario.name): "
                    if let known = scenario.knownViolation(outcome) {
                        knownRuns += 1
                        excusedLines.append(line + "[known: \(known)] " + outcome.violations.joined(separator: "; "))
                    } else if !outcome.violations.isEmpty {
                        failures.append(line + outcome.violations.joined(separator: "; "))
                    } else if !outcome.excused.isEmpty {
                        // Every excused failure carries its limit's proof (the diagnostic, tied to the event).
                        if outcome.excused.allSatisfy(\.countedApart) { apartRuns += 1 } else { excusedRuns += 1 }
                        for item in outcome.excused { byLimit[item.limit, default: 0] += 1 }
                        excusedLines.append(
                            line
                                + outcome.excused.map {
                                    "[\($0.limit), \($0.diagnostic?.name ?? "unobservable")] \($0.violation.detail)"
                                }
                                .joined(separator: "; "))
                    }
                }
            }
            SweepSize.report(failures + excusedLines, "corpus-\(strategy.rawValue)\(warm ? "-warm" : "")")
            let limits = byLimit.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print(
                "envelope sweep (\(strategy.rawValue)\(warm ? ", warm" : "")): samples \(SweepSize.corpusSamples), scenarios \(CorpusScenario.all.count), runs \(runs), violations \(failures.count) (every event checked), known violations \(knownRuns); excused runs \(excusedRuns), ambiguous-step runs \(apartRuns); failures by limit: \(limits.isEmpty ? "none" : limits)"
            )
            // README's bound for known violations: at most 0.1 % of runs.
            return failures
                + (knownRuns * 1000 > runs ? ["\(knownRuns) known violations in \(runs) runs, over 0.1 %"] : [])
        }
        #expect(failures.isEmpty, "\(failures.count) violations, e.g.\n\(failures.prefix(8).joined(separator: "\n"))")
    }

    @Test(
        "Randomized user-volume sessions under seeded samples of the envelope keep the user's volume",
        arguments: [SimulatedStrategy.outputVolume, .systemNotification, .passive])
    func sessions(strategy: SimulatedStrategy) async {
        let (failures, _) = await offThePool { () -> ([String], [String]) in
            var runs = 0
            var failures = [String]()
            var limitFailures = [String]()
            var eventExcused = 0
            // Every event against the ground truth, and each route's final volume: a violation fails the test
            // unless it is a known one (``KnownSessionViolations``, listed in README with how to replay it).
            var eventFailures = [String]()
            var knownRuns = 0
            var knownSeen = Set<String>()
            var eventKinds = [String: Int]()
            var excusedByLimit = [String: Int]()
            for k in SweepSize.first..<(SweepSize.first + SweepSize.samples) {
                let behaviour = DeviceBehaviour.sample(UInt64(k))
                for index in 0..<SweepSize.sessions {
                    runs += 1
                    let seed = UInt64(k) &* 7919 &+ UInt64(index)
                    let session = RandomSession(seed: seed, behaviour: behaviour, strategy: strategy)
                    session.run(length: RandomSession.length)
                    // Every event against the ground truth; a failure a limit proves is counted apart.
                    let verdict = session.eventVerdict()
                    eventExcused += verdict.excused.count
                    for item in verdict.excused { excusedByLimit[item.limit, default: 0] += 1 }
                    let key = KnownSessionViolations.key(strategy, sample: k, seed: seed)
                    let problems = session.violations()
                    let knownEvents = KnownSessionViolations.isKnown(key, events: verdict.violations)
                    let knownVolumes = KnownSessionViolations.isKnown(key, finalVolumes: problems)
                    if knownEvents || knownVolumes {
                        knownRuns += 1
                        knownSeen.insert(key)
                    }
                    for violation in verdict.violations { eventKinds[violation.kind.rawValue, default: 0] += 1 }
                    if !verdict.ok, !knownEvents {
                        eventFailures.append(
                            "sample:\(k) seed \(seed): \(verdict.violations.map(\.summary).joined(separator: "; "))\n  "
                                + session.script.joined(separator: "\n  "))
                    }
                    guard !problems.isEmpty, !knownVolumes else { continue }
                    let line =
                        "sample:\(k) seed \(seed): \(problems.joined(separator: "; "))\n  "
                        + session.script.joined(separator: "\n  ")
                    // Envelope limits (README), each a predicate over the session's ground truth with the
                    // diagnostic VolumeKit raised for it where it can see it (`RandomSession.finalVolumeLimit`).
                    if let limit = session.finalVolumeLimit {
                        limitFailures.append("[\(limit)] " + line)
                    } else {
                        failures.append(line)
                    }
                }
            }
            SweepSize.report(failures + limitFailures, "sessions-\(strategy.rawValue)")
            SweepSize.report(eventFailures, "session-events-\(strategy.rawValue)")
            let kinds = eventKinds.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print(
                "envelope sweep session events (\(strategy.rawValue)): sessions \(runs), with event violations \(eventFailures.count) (every event checked), with known violations \(knownRuns) (events or final volumes); violations by kind, known included: \(kinds.isEmpty ? "none" : kinds); excused by limit: \(excusedByLimit.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))"
            )
            print(
                "envelope sweep sessions (\(strategy.rawValue)): samples \(SweepSize.samples), sessions \(runs), failing \(failures.count) (final volumes); event failures excused by proven limits \(eventExcused); final volumes under named limits (route change without a notification; press at a rail unseen; set landed across a route change; press after a crash onto a value of an unconfirmed set — diagnosed; another source a press's step; another source's change overwritten by a set in flight; Control Center value within a read of VolumeKit's; Control Center value VolumeKit last saw there, unobservable; another source's change hidden by a set in flight, unobservable) \(limitFailures.count)"
            )
            // README's bound for known violations: at most 0.1 % of runs.
            let overCap =
                knownRuns * 1000 > runs ? ["\(knownRuns) sessions with known violations in \(runs), over 0.1 %"] : []
            // A known violation this sweep ran and did not see is fixed (or changed): the list must say so.
            let stale = KnownSessionViolations.keys(
                strategy, samples: SweepSize.first..<(SweepSize.first + SweepSize.samples), sessions: SweepSize.sessions
            ).subtracting(knownSeen).sorted().map {
                "known violation \($0) no longer seen: remove it from KnownSessionViolations (and README)"
            }
            return (failures + eventFailures + overCap + stale, limitFailures)
        }
        #expect(failures.isEmpty, "\(failures.count) violations, e.g.\n\(failures.prefix(2).joined(separator: "\n"))")
    }
}
