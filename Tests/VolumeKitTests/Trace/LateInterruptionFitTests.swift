import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// `trace fit` reads ``DeviceBehaviour/lateInterruptionBegan`` from the interruption details (issue 26,
/// item 3): a simulated trace made with `--set lateInterruptionBegan=…` fits back to that variant; one
/// without a late "began" leaves the rule not observed, and says why.
@Suite("Fitting the late interruption began")
struct LateInterruptionFitTests {
    /// A short run with a trip to the background long enough to be suspended (`suspensionDelay` is 0 by default).
    static let script = """
        volume 0.5
        start
        press up
        background
        wait 2
        foreground
        wait 1
        press down
        wait 1
        stop
        """

    /// What `volumekit simulate --set lateInterruptionBegan=VARIANT --trace t.jsonl` writes for `script` on
    /// iOS `os`, read back as `volumekit trace fit t.jsonl` reads it.
    static func trace(os: String, _ variant: String, script: String = script) throws -> Trace {
        var behaviour = DeviceBehaviour()
        try behaviour.set("lateInterruptionBegan=\(variant)")
        let runner = ScenarioRunner(scenario: try Scenario(parsing: "ios \(os)\n" + script), behaviour: behaviour)
        let lines = Locked([String]())
        runner.traceOptions = ScenarioTraceOptions(
            keepsRecords: false, onLine: { line in lines.withLock { $0.append(line) } })
        _ = runner.run()
        return try Trace(jsonLines: Data(lines.current.map { $0 + "\n" }.joined().utf8))
    }

    @Test(
        "A late began, withheld (iOS 15) or delivered (iOS 14.4), fits back to its variant, inside the envelope",
        arguments: [("15.0", "onResume"), ("15.0", "afterActive"), ("14.4", "onResume"), ("14.4", "afterActive")])
    func fitsTheVariant(os: String, variant: String) throws {
        let trace = try Self.trace(os: os, variant)
        let report = TraceFit.fit(trace)
        let estimate = try #require(report["lateInterruptionBegan"])
        #expect(estimate.value == .variant(variant), "\(estimate.how)")
        #expect(estimate.samples == 1)
        #expect(report.verdict(estimate) == .inside)
        #expect(
            report.textLines.contains { $0.hasPrefix("lateInterruptionBegan  \(variant)") && $0.contains(" inside") })
        // The replay of the same trace is unaffected by the details: the button events and sets as recorded.
        let replay = try TraceReplay.run(trace)
        #expect(replay.setDifferences == [] && replay.undeliveredInputs == 0)
        #expect(replay.eventsMatchRecording == true)
    }

    @Test("Without a late began the rule is not observed, with the reason: none sent, iOS 16+, or no return")
    func undetermined() throws {
        for (os, variant) in [("15.0", "none"), ("17.4", "onResume"), ("17.4", "afterActive")] {
            let estimate = try #require(TraceFit.fit(try Self.trace(os: os, variant))["lateInterruptionBegan"])
            #expect(estimate.value == nil, "iOS \(os), \(variant)")
            #expect(estimate.how.contains("on the return to the foreground"), "\(estimate.how)")
            #expect(estimate.how.contains("none from iOS 16"))
        }
        let noReturn = "volume 0.5\nstart\npress up\nwait 1\nstop\n"
        let estimate = try #require(
            TraceFit.fit(try Self.trace(os: "15.0", "onResume", script: noReturn))["lateInterruptionBegan"])
        #expect(estimate.value == nil)
        #expect(estimate.how == "the trace has no return to the foreground")
    }

    @Test("Each return counts once, whichever subscriptions recorded it; the variant most returns show wins")
    func countsReturns() throws {
        let twice = Self.script.replacingOccurrences(
            of: "press down\n", with: "press down\nbackground\nwait 3\nforeground\nwait 1\n")
        let trace = try Self.trace(os: "15.0", "afterActive", script: twice)
        // Both the buttons and the Ring/Silent monitor subscribed: two records of each late began.
        let withheld = trace.records.filter { if case .interruptionDetails = $0.event { true } else { false } }
        #expect(withheld.count == 4)
        let estimate = try #require(TraceFit.fit(trace)["lateInterruptionBegan"])
        #expect(estimate.value == .variant("afterActive"))
        #expect(estimate.samples == 2)
        #expect(estimate.how.hasPrefix("2 returns to the foreground: 0 late \"began\""))
    }

    @Test("A trace of format 2 has no interruption details: the rule is not observed, and the fit says so")
    func olderFormat() throws {
        let text = try Self.trace(os: "15.0", "onResume").jsonLines
        let old = text.split(separator: "\n").filter { !$0.contains(#""type":"interruptionDetails""#) }
            .map { $0.replacingOccurrences(of: #""version":3"#, with: #""version":2"#) }
        let trace = try Trace(jsonLines: Data((old.joined(separator: "\n") + "\n").utf8))
        #expect(trace.formatVersion == 2)
        let estimate = try #require(TraceFit.fit(trace)["lateInterruptionBegan"])
        #expect(estimate.value == nil)
        #expect(estimate.how == "needs interruption details (trace format 3); this trace is format 2")
    }
}
