import Foundation
import TestSupport
import Testing
import VolumeKitCore
import VolumeKitTesting

/// `trace fit` speaking the calibration's names (issue 25, item 5): one set of names, verdicts only where the data
/// supports one, latency attributed across the route gap, a missing route notification and the refusal variant
/// identified, a rule put outside its envelope reported outside, and the live calibration shown beside the fit.
@Suite("Trace fit: the calibration's names, verdicts and the live estimate")
struct CalibratedFitTests {
    /// `volumekit simulate --profile sample:K [--outside RULE=SECONDS] --trace t.jsonl scenarios/field-check.txt`,
    /// read back as `volumekit trace fit t.jsonl` reads it.
    /// Run off the test pool: a field check is seconds of CPU, and the network suites' deadlines must not wait.
    static func fieldCheck(_ k: UInt64, outside: String? = nil) async throws -> (Trace, FieldCheckFitTests.Run) {
        let result = await offThePool { () -> Result<FieldCheckFitTests.Run, Error> in
            Result {
                var behaviour = DeviceBehaviour.sample(k)
                if let outside { try behaviour.setOutside(outside) }
                return try FieldCheckFitTests.simulate(behaviour)
            }
        }
        let run = try result.get()
        return (try Trace(jsonLines: Data(run.text.utf8)), run)
    }

    @Test("Every rule the fit reports is named as `volumekit profiles` names it, or is roundTrip or a sound delay")
    func oneSetOfNames() {
        let profiles = Set(DeviceBehaviour.rules.map(\.name))
        let sounds: Set = ["soundSkippedDelay", "soundPlayedDelay"]
        for rule in TraceFit.rules {
            #expect(
                profiles.contains(rule.name) || rule.name == CalibrationRule.roundTrip.rawValue
                    || sounds.contains(rule.name), "\(rule.name)")
        }
        // Every rule the live calibration learns has the fit's estimate beside it.
        for rule in CalibrationRule.allCases { #expect(TraceFit.rule(named: rule.rawValue) != nil, "\(rule)") }
        // The ranges are the profiles' own.
        #expect(TraceFit.range(of: "kvoLatency")?.kind == .interval(0, 0.03))
        #expect(TraceFit.range(of: "routeNotification")?.kind == .variants(["beforeKVO", "afterKVO", "missing"]))
    }

    @Test(
        "With --outside sliderLatency=0.3 the round trip is reported outside, beside the live calibration that kept it apart",
        arguments: [1, 5, 12] as [UInt64])
    func roundTripOutside(k: UInt64) async throws {
        let (trace, _) = try await Self.fieldCheck(k, outside: "sliderLatency=0.3")
        #expect(try FieldCheckFitTests.rules(fromNote: trace).sliderLatency == 0.3)
        let report = TraceFit.fit(trace)
        let trip = try #require(report["roundTrip"])
        let truth = 0.3 + DeviceBehaviour.sample(k).kvoLatency
        #expect(abs((trip.value?.number ?? 0) - truth) <= trip.tolerance ?? 0, "\(trip)")
        #expect(report.verdict(trip) == .outside)
        #expect(report.textLines.contains { $0.hasPrefix("roundTrip") && $0.contains(" outside") })
        #expect(
            report.jsonLines.contains { $0.contains(#""rule":"roundTrip""#) && $0.contains(#""verdict":"outside""#) })
        // VolumeKit's calibration kept every such round trip apart.
        let live = try #require(report.live?.estimates["roundTrip"])
        #expect(live.outsideSamples > 0)
        #expect(report.jsonLines.contains { $0.contains(#""rule":"roundTrip""#) && $0.contains(#""outside":"#) })
    }

    @Test("The live calibration stored in the trace is shown beside each rule it learned, in text and JSON")
    func liveBeside() async throws {
        let (trace, _) = try await Self.fieldCheck(1)
        // What the trace stored last, decoded as VolumeKit reads it back.
        let stored = try #require(
            trace.records.last { if case .storeWrite(CalibrationStore.key, _) = $0.event { true } else { false } })
        guard case .storeWrite(_, let data?) = stored.event else {
            Issue.record("the calibration was removed")
            return
        }
        var device = DeviceInfo(osVersion: trace.header.osVersion, kind: trace.header.deviceKind)
        device.modelIdentifier = trace.header.deviceModel
        let machine = try CalibrationStore.machine(reading: data, for: device)
        let report = TraceFit.fit(trace)
        let live = try #require(report.live)
        #expect(live.time == stored.time)
        #expect(live.problem == nil)
        #expect(!machine.estimates.isEmpty)
        for (rule, estimate) in machine.estimates {
            let shown = try #require(live.estimates[rule.rawValue])
            #expect(shown.value == estimate.value && shown.samples == estimate.samples)
            let line = try #require(report.jsonLines.first { $0.contains(#""rule":"\#(rule.rawValue)""#) })
            #expect(line.contains(#""live":{"value":"#) && line.contains(#""samples":\#(estimate.samples)"#))
            let text = try #require(report.textLines.first { $0.hasPrefix(rule.rawValue + " ") })
            #expect(text.contains(String(format: "%.1f ms (%d,", (estimate.value ?? 0) * 1000, estimate.samples)))
        }
        // The fit's own round trip agrees with the live one here (no jitter in a simulated trace).
        let fitted = try #require(report["roundTrip"]?.value?.number)
        #expect(abs(fitted - (live.estimates["roundTrip"]?.value ?? 0)) <= 0.001)
        // A trace with no calibration stored shows none; one whose store is corrupt says so in a sentence.
        var without = trace
        without.records.removeAll { if case .storeWrite(CalibrationStore.key, _) = $0.event { true } else { false } }
        #expect(TraceFit.fit(without).live == nil)
        #expect(!TraceFit.fit(without).textLines[0].contains("live"))
        var corrupt = without
        corrupt.records.append(
            TraceRecord(time: 99, event: .storeWrite(key: CalibrationStore.key, data: Data("{".utf8))))
        let problem = try #require(TraceFit.fit(corrupt).live?.problem)
        #expect(problem.contains("not the JSON VolumeKit writes"))
    }

    @Test("A rule seen too few times is undetermined, with the reason — never judged inside")
    func tooFewSamples() async throws {
        // One hold: one first gap and its repeats. Before, every observed rule read "inside".
        let script = "volume 0.5\nstart\nhold up 1.5\nwait 1\nstop\n"
        let runner = ScenarioRunner(scenario: try Scenario(parsing: script), behaviour: .sample(3))
        let lines = Locked([String]())
        runner.traceOptions = ScenarioTraceOptions(
            keepsRecords: false, onLine: { line in lines.withLock { $0.append(line) } })
        _ = runner.run()
        let trace = try Trace(jsonLines: Data(lines.current.map { $0 + "\n" }.joined().utf8))
        let report = TraceFit.fit(trace)
        let first = try #require(report["firstRepeatDelay"])
        #expect(first.samples == 1 && first.isObserved)
        #expect(report.verdict(first) == .undetermined)
        #expect(report.reason(first) == "only 1 observation, a verdict needs 2")
        #expect(report.textLines.contains("  firstRepeatDelay: only 1 observation, a verdict needs 2"))
        #expect(
            report.jsonLines.contains {
                $0.contains(#""rule":"firstRepeatDelay""#) && $0.contains(#""verdict":"undetermined""#)
                    && $0.contains(#""reason":"only 1 observation"#)
            })
        // The repeats after it are many: their interval has a verdict.
        #expect(report.verdict(report["repeatInterval"]!) == .inside)
    }

    @Test("An estimate whose tolerance reaches across the envelope's edge is undetermined; one beyond it, outside")
    func edges() {
        let range = EnvelopeRange(.interval(0.3, 0.7), source: "test")
        func verdict(_ value: Double, _ tolerance: Double, bound: Bool = false) -> EnvelopeRange.Verdict {
            range.verdict(
                for: RuleEstimate(
                    rule: "r", value: .seconds(value), tolerance: tolerance, samples: 5, how: "", isBound: bound))
        }
        #expect(verdict(0.5, 0.001) == .inside)
        #expect(verdict(0.7, 0.001) == .inside)  // at the edge, measured to the millisecond
        #expect(verdict(0.72, 0.03) == .undetermined)  // outside, but the tolerance reaches in
        #expect(verdict(0.75, 0.01) == .outside)
        #expect(verdict(0.5, 0.15, bound: true) == .inside)  // every value the bounds allow is inside
        #expect(verdict(0.65, 0.1, bound: true) == .undetermined)  // the bounds reach across the edge
    }

    @Test("Across a route gap the KVO delay is bounded, not taken for the sum (sample 5: kvo 0.0246, gap 0.02)")
    func latencyAcrossTheRouteGap() async throws {
        let (trace, _) = try await Self.fieldCheck(5)
        let report = TraceFit.fit(trace)
        let behaviour = DeviceBehaviour.sample(5)
        #expect(behaviour.routeNotification == .beforeKVO)
        for (rule, truth) in [
            ("kvoLatency", behaviour.kvoLatency), ("routeNotificationGap", behaviour.routeNotificationGap),
            ("sliderLatency", behaviour.sliderLatency),
        ] {
            let estimate = try #require(report[rule])
            #expect(estimate.isBound, "\(rule)")
            let bounds = try #require(estimate.bounds)
            #expect(bounds.contains(truth), "\(rule): \(bounds), true \(truth)")
        }
        // The sum (44.6 ms) is past the KVO delay's 30 ms: the bounds reach across the edge — undetermined, as the
        // fit cannot tell a slow KVO from a long gap; it used to say kvoDelay 44.6 ms, inside.
        let kvo = try #require(report["kvoLatency"])
        #expect(report.verdict(kvo) == .undetermined)
        #expect(report.reason(kvo)?.contains("only bounds it") == true)
        // Notified after the KVO (sample 1), the gap is measured itself, and the KVO delay not claimed.
        let (after, _) = try await Self.fieldCheck(1)
        let afterReport = TraceFit.fit(after)
        let gap = try #require(afterReport["routeNotificationGap"])
        #expect(!gap.isBound && abs((gap.value?.number ?? 0) - DeviceBehaviour.sample(1).routeNotificationGap) <= 0.001)
        #expect(afterReport["kvoLatency"]?.isObserved == false)
    }

    @Test("A route change never notified is identified from the app's reads of the route (sample 6)")
    func missingRouteNotification() async throws {
        #expect(DeviceBehaviour.sample(6).routeNotification == .missing)
        let (trace, _) = try await Self.fieldCheck(6)
        let report = TraceFit.fit(trace)
        let order = try #require(report["routeNotification"])
        #expect(order.value == .variant("missing"), "\(order.how)")
        #expect(order.samples == 2)
        #expect(report.verdict(order) == .inside)
        // Its volume jump is no press: the quantization is still read from the presses alone.
        #expect(report["stepQuantization"]?.value == .variant(DeviceBehaviour.sample(6).stepQuantization.rawValue))
    }

    @Test("The refusal variant is identified where the drops show it: seedShape (sample 2), cachedEqualSetDrop (9)")
    func refusalVariant() async throws {
        for (k, variant) in [(2, "seedShape"), (9, "cachedEqualSetDrop"), (24, "seedShape")] as [(UInt64, String)] {
            #expect(DeviceBehaviour.sample(k).downPressRefusal.rawValue == variant)
            let (trace, _) = try await Self.fieldCheck(k)
            let estimate = try #require(TraceFit.fit(trace)["downPressRefusal"])
            #expect(estimate.value == .variant(variant), "sample \(k): \(estimate.how)")
        }
        // The live calibration's refusal beside it: learned on sample 2 (its anchor refused under a down hold).
        let (seed, _) = try await Self.fieldCheck(2)
        let seedReport = TraceFit.fit(seed)
        #expect(seedReport.live?.downPressRefusal == "seedShape")
        #expect(
            seedReport.jsonLines.contains {
                $0.contains(#""rule":"downPressRefusal""#) && $0.contains(#""live":"seedShape""#)
            })
        // Where VolumeKit's sets gave no variant an occasion (sample 1: none), the fit says which remain.
        let (none, _) = try await Self.fieldCheck(1)
        let report = TraceFit.fit(none)
        #expect(report.live?.downPressRefusal == nil, "nothing refused on a phone that applies every set")
        let estimate = try #require(report["downPressRefusal"])
        #expect(estimate.value == nil)
        #expect(report.reason(estimate)?.contains("cannot tell") == true)
    }
}
