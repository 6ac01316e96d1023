import Foundation
import TestSupport
import Testing
import VolumeKitCore
import VolumeKitTesting

/// The fitter's test (issue 14): `volumekit simulate --profile sample:K --trace t.jsonl scenarios/field-check.txt`,
/// then `volumekit trace fit t.jsonl` must give back sample K's rules within the tolerances of `docs/trace.md`,
/// and `volumekit trace replay t.jsonl` must print the run's button events again — for 50 samples.
@Suite("Fitting the field check's simulated traces")
struct FieldCheckFitTests {
    static let script: String = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../scenarios/field-check.txt").standardized
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }()

    /// One simulated run of the field check, recorded as `simulate --trace` writes it (the JSON Lines text),
    /// with the button events as `simulate --json` prints them.
    struct Run: @unchecked Sendable {
        var text: String
        var buttonJSON: [String]
        var muteJSON: [String]
        var device: SimulatedDevice
    }

    /// `os`, when given, is the script's `ios` line (the field check's own runs on iOS 17.4).
    static func simulate(_ behaviour: DeviceBehaviour, strategy: SimulatedStrategy = .outputVolume, os: String? = nil)
        throws -> Run
    {
        let text = os.map { "ios \($0)\n" + script } ?? script
        let runner = ScenarioRunner(scenario: try Scenario(parsing: text), strategy: strategy, behaviour: behaviour)
        let lines = Locked([String]())
        runner.traceOptions = ScenarioTraceOptions(
            keepsRecords: false, onLine: { line in lines.withLock { $0.append(line) } })
        let records = runner.run()
        let buttons = records.filter { if case .button = $0.kind { true } else { false } }.map(\.json)
        let mute = records.filter { if case .mute = $0.kind { true } else { false } }.map(\.json)
        return Run(
            text: lines.current.map { $0 + "\n" }.joined(), buttonJSON: buttons, muteJSON: mute, device: runner.device)
    }

    /// What a fit of a trace of `behaviour` must give, rule by rule (docs/trace.md, "Matching
    /// `DeviceBehaviour`'s rules"); `nil`: the trace cannot show the rule under this behaviour. Rules in
    /// ``mayBeUndetermined`` may also be left undetermined (VolumeKit's sets seldom give them an occasion).
    static func truth(_ behaviour: DeviceBehaviour, strategy: SimulatedStrategy) -> [String: RuleEstimate.Value?] {
        if strategy == .captureEvents {
            // Capture events leave the volume alone: only the tap length shows.
            return [
                "tapLength": .seconds(behaviour.tapLength), "roundTrip": nil, "stepQuantization": nil,
                "firstRepeatDelay": nil,
            ]
        }
        let gap = behaviour.routeNotificationGap
        var truth: [String: RuleEstimate.Value?] = [
            "stepQuantization": .variant(behaviour.stepQuantization.rawValue),
            "roundTrip": .seconds(behaviour.sliderLatency + behaviour.kvoLatency),
            "volumeViewReadyDelay": .seconds(behaviour.volumeViewReadyDelay),
            "firstRepeatDelay": .seconds(behaviour.firstRepeatDelay),
            "repeatInterval": .seconds(behaviour.repeatInterval),
            "tapLength": nil,
            "routeNotification": .variant(behaviour.routeNotification.rawValue),
            "downPressRefusal": .variant(behaviour.downPressRefusal.rawValue),
            "volumeCacheDelay": behaviour.downPressRefusal == .cachedEqualSetDrop
                ? .seconds(behaviour.volumeCacheDelay) : nil,
        ]
        switch behaviour.routeNotification {
        case .beforeKVO:
            // Bounded only: the route change shows kvoLatency + routeNotificationGap.
            truth["routeNotificationGap"] = .seconds(gap)
            truth["kvoLatency"] = .seconds(behaviour.kvoLatency)
            truth["sliderLatency"] = .seconds(behaviour.sliderLatency)
        case .afterKVO:
            truth["routeNotificationGap"] = .seconds(gap)
            truth["kvoLatency"] = .some(nil)
            truth["sliderLatency"] = .some(nil)
        case .missing:
            for rule in ["routeNotificationGap", "kvoLatency", "sliderLatency"] { truth[rule] = .some(nil) }
        }
        return truth
    }

    /// The rules a fit may leave undetermined although the sample has a value: the refusal variant and the cache's
    /// delay show only when a set of VolumeKit's meets them (docs/trace.md, "Tolerances"), the volume view's
    /// readiness only when a set made through it was lost first (a view slower than the host's timer, with a set to
    /// make).
    static let mayBeUndetermined: Set<String> = ["downPressRefusal", "volumeCacheDelay", "volumeViewReadyDelay"]

    /// The widest tolerance a rule's estimate may claim in a simulated trace (no delivery jitter;
    /// docs/trace.md, "Tolerances"): 2 ms for a time measured directly. A rule the trace only bounds
    /// (``RuleEstimate/isBound``) may claim half the width its bounds can have: the other rule's envelope plus
    /// the spread of the sum (2 ms), and the round trip's for the slider.
    static func toleranceCap(_ rule: String, bound: Bool) -> Double {
        guard bound else { return 0.002 }
        switch rule {
        case "kvoLatency": return (0.02 + 0.002) / 2
        case "routeNotificationGap": return (0.03 + 0.002) / 2
        case "sliderLatency": return (0.02 + 0.004) / 2
        default: return 0.1
        }
    }

    /// The sample's true rules, as the trace's header note lists them (`…; rules: firstRepeatDelay=0.43 …`).
    static func rules(fromNote trace: Trace) throws -> DeviceBehaviour {
        let note = trace.header.note ?? ""
        guard let rules = note.components(separatedBy: "rules: ").last, note.contains("rules: ") else {
            throw DeviceBehaviourError.notAnAssignment(note)
        }
        var behaviour = DeviceBehaviour()
        for assignment in rules.split(separator: " ") {
            // A rule put outside its envelope (`--outside`) is listed as it is.
            if (try? behaviour.set(String(assignment))) == nil { try behaviour.setOutside(String(assignment)) }
        }
        return behaviour
    }

    /// Every way a fit of `run` misses the truth of `behaviour`.
    static func misses(_ report: TraceFitReport, _ run: Run, _ behaviour: DeviceBehaviour, strategy: SimulatedStrategy)
        -> [String]
    {
        var misses: [String] = []
        for (rule, expected) in truth(behaviour, strategy: strategy).sorted(by: { $0.key < $1.key }) {
            guard let estimate = report[rule] else {
                misses.append("\(rule): missing from the report")
                continue
            }
            switch (expected, estimate.value) {
            case (nil, nil): break
            case (nil, let value?): misses.append("\(rule): \(value) fitted, but the trace cannot show it")
            case (_?, nil) where mayBeUndetermined.contains(rule):
                if report.reason(estimate) == nil { misses.append("\(rule): undetermined without a reason") }
            case (let expected?, nil): misses.append("\(rule): not observed (\(estimate.how)), true \(expected)")
            case (.variant(let name)?, let value?):
                if value != .variant(name) { misses.append("\(rule): \(value), true \(name) (\(estimate.how))") }
            case (let expected?, let value?):
                // The estimate's own interval, but never wider than docs/trace.md's cap: a fitter that
                // widened its interval would otherwise pass.
                let cap = toleranceCap(rule, bound: estimate.isBound)
                let tolerance = min(estimate.tolerance ?? 0, cap)
                if (estimate.tolerance ?? 0) > cap + 1e-9 {
                    misses.append("\(rule): tolerance \(estimate.tolerance ?? 0) wider than the cap \(cap)")
                }
                if let truth = expected.number, let fitted = value.number, abs(truth - fitted) > tolerance + 1e-9 {
                    misses.append("\(rule): \(fitted) ± \(tolerance), true \(truth) (\(estimate.how))")
                }
            }
        }
        for estimate in report.estimates {
            let verdict = report.verdict(estimate)
            // Every sample lies inside the envelope: no rule it shows may be judged outside.
            if verdict == .outside {
                misses.append("\(estimate.rule): judged outside the envelope (\(String(describing: estimate.value)))")
            }
            // An undetermined rule says why; a rule with a verdict rests on enough observations.
            if verdict == .undetermined, report.reason(estimate) == nil {
                misses.append("\(estimate.rule): undetermined without a reason")
            }
            if verdict != .undetermined, estimate.samples < (TraceFit.rule(named: estimate.rule)?.minimumSamples ?? 1) {
                misses.append("\(estimate.rule): a verdict on \(estimate.samples) observations")
            }
        }
        // The late "began": the sample's variant where the device sent one (iOS 10.3 to 15, the app suspended in
        // the background), and not observed otherwise — a fit never claims it from a trace without one.
        let sent = run.device.log.contains { if case .lateInterruptionBegan = $0 { true } else { false } }
        let late = report["lateInterruptionBegan"]
        let expected: RuleEstimate.Value? = sent ? .variant(behaviour.lateInterruptionBegan.rawValue) : nil
        if late?.value != expected {
            misses.append(
                "lateInterruptionBegan: \(late?.value.map { "\($0)" } ?? "not observed"), true \(expected.map { "\($0)" } ?? "not sent") (\(late?.how ?? "missing"))"
            )
        }
        guard strategy != .captureEvents else { return misses }
        // Dropped sets: exactly the sets the device refused (downPressRefusal) or ignored (no ready view, no slider)
        // that would have moved the volume — a dropped set of the value the volume already has changes nothing a
        // trace can show (a slider dropping a set equal to its cache, when the volume is there too).
        var volume = run.device.configuration.volume
        var lost = 0
        for entry in run.device.log {
            switch entry {
            case .volume(_, _, let value, _): volume = value
            case .setRefused(_, let value), .setIgnored(_, let value, _): if abs(value - volume) > 1e-6 { lost += 1 }
            default: break
            }
        }
        if let dropped = report.droppedSets {
            if dropped.dropped != lost {
                misses.append("dropped sets: \(dropped.dropped) of \(dropped.of), the device lost \(lost)")
            }
        } else {
            misses.append("dropped sets: not judged")
        }
        // The sound probe: skipped completions within the simulator's range, played ones later than every skip.
        let latency = run.device.soundLatency
        if let skipped = report["soundSkippedDelay"]?.value?.number {
            if !latency.skipped.contains(skipped) {
                misses.append("soundSkippedDelay: \(skipped), outside \(latency.skipped)")
            }
        } else {
            misses.append("soundSkippedDelay: not observed (the script turns the switch to silent)")
        }
        if let played = report["soundPlayedDelay"]?.value?.number {
            if played <= latency.skipped.upperBound {
                misses.append("soundPlayedDelay: \(played), no later than a skip")
            }
        } else {
            misses.append("soundPlayedDelay: not observed")
        }
        return misses
    }

    /// Simulates, writes and reads back, fits and replays one sample; returns what went wrong.
    static func check(_ k: Int, strategy: SimulatedStrategy, os: String? = nil) -> [String] {
        let behaviour = DeviceBehaviour.sample(UInt64(k))
        do {
            let run = try simulate(behaviour, strategy: strategy, os: os)
            let trace = try Trace(jsonLines: Data(run.text.utf8))
            guard trace.header.source == .simulator else { return ["sample:\(k): the header does not say simulator"] }
            // The true rules as the trace's header note lists them.
            let listed = try rules(fromNote: trace)
            guard listed == behaviour else { return ["sample:\(k): the header note does not list the sample's rules"] }
            var problems = misses(TraceFit.fit(trace), run, listed, strategy: strategy).map {
                "sample:\(k) \(strategy.rawValue): \($0)"
            }
            let report = try TraceReplay.run(trace)
            if !report.setDifferences.isEmpty || report.undeliveredInputs != 0 {
                problems.append(
                    "sample:\(k) \(strategy.rawValue): replay's sets differ \(report.setDifferences.count) times, \(report.undeliveredInputs) inputs undelivered"
                )
            }
            let replay = report.jsonLines
            let replayed = replay.filter { $0.contains("\"type\":\"button\"") }
            // The mute monitor's Ring/Silent states replay too — unless the app was suspended during the script's
            // 1 s in the background: a trace does not show suspension, so a replay runs the probe's timers on
            // time where the suspended app ran them late (docs/trace.md, Replay).
            let muted = replay.filter { $0.contains("\"type\":\"mute\"") }
            if behaviour.suspensionDelay >= 1, muted != run.muteJSON || muted.isEmpty {
                problems.append(
                    "sample:\(k) \(strategy.rawValue): replay's mute states \(muted), the run's \(run.muteJSON)")
            }
            if replayed != run.buttonJSON {
                let first = zip(replayed, run.buttonJSON).first { $0 != $1 }
                problems.append(
                    "sample:\(k) \(strategy.rawValue): replay gives \(replayed.count) button events, the run \(run.buttonJSON.count); first difference \(first.map { "\($0) vs \($1)" } ?? "at the end")"
                )
            }
            if run.buttonJSON.count < 20 { problems.append("sample:\(k): only \(run.buttonJSON.count) button events") }
            return problems
        } catch {
            return ["sample:\(k) \(strategy.rawValue): \(error)"]
        }
    }

    @Test(
        "simulate --trace, then trace fit gives back each of 50 samples' rules and trace replay the run's button events"
    )
    func fitsFiftySamples() async {
        let problems = await offThePool { (1...50).flatMap { Self.check($0, strategy: .outputVolume) } }
        #expect(problems.isEmpty, "\(problems.count) misses:\n\(problems.joined(separator: "\n"))")
    }

    @Test(
        "The other strategies' traces fit and replay too (every 7th sample)",
        arguments: [SimulatedStrategy.captureEvents, .systemNotification])
    func otherStrategies(strategy: SimulatedStrategy) async {
        let problems = await offThePool {
            stride(from: 1, through: 50, by: 7).flatMap { Self.check($0, strategy: strategy) }
        }
        #expect(problems.isEmpty, "\(problems.count) misses:\n\(problems.joined(separator: "\n"))")
    }

    /// The samples whose device sends the late "began" in the field check (suspended within its 1 s in the
    /// background, a variant other than `none`), and every 5th.
    static let lateBeganSamples: (sending: [Int], all: [Int]) = {
        let sending = (1...50).filter {
            let behaviour = DeviceBehaviour.sample(UInt64($0))
            return behaviour.suspensionDelay < 1 && behaviour.backgroundAudio == .suspends
                && behaviour.lateInterruptionBegan != .none
        }
        return (sending, Array(Set(sending).union(stride(from: 5, through: 50, by: 5))).sorted())
    }()

    @Test(
        "On iOS 14.4 (the late began delivered) and 15 (withheld), the late began fits too, and every other rule",
        arguments: ["14.4", "15.0"])
    func olderSystems(os: String) async {
        #expect(Self.lateBeganSamples.sending.count >= 2, "too few samples send the late began to test its fit")
        let problems = await offThePool {
            Self.lateBeganSamples.all.flatMap { Self.check($0, strategy: .outputVolume, os: os) }
        }
        #expect(problems.isEmpty, "\(problems.count) misses:\n\(problems.joined(separator: "\n"))")
    }
}
