import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Traces kept as files in `Fixtures/Traces/`: a format-1 file must keep reading, replaying and fitting.
/// A trace contributed from a device goes there too, with a test here that replays it.
@Suite("Trace fixtures")
struct TraceFixtureTests {
    static func fixture(_ name: String) throws -> Trace {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/Traces/\(name)", withExtension: nil))
        return try Trace(contentsOf: url)
    }

    @Test("The synthetic standard session (format 1) still reads, replays and fits to the values it was made with")
    func standardSession() throws {
        let trace = try Self.fixture("standard-session.simulator.jsonl")
        // Synthetic: made by the simulator, and labelled so.
        #expect(trace.header.source == .simulator)
        #expect(trace.header.note?.contains("kvoLatency: 0.012") == true)
        let report = try TraceReplay.run(trace)
        #expect(report.undeliveredInputs == 0)
        #expect(report.events.count > 10)
        let fit = TraceFit.fit(trace)
        let truth = [
            "kvoLatency": 0.012, "sliderLatency": 0.04, "firstRepeatDelay": 0.65,
            "repeatInterval": 0.2,
        ]
        for (rule, value) in truth {
            let estimate = try #require(fit[rule])
            #expect(abs((estimate.value?.number ?? -1) - value) <= (estimate.tolerance ?? 0), "\(rule): \(estimate)")
        }
        // The session starts at 0.5, where capture needs no set: no set was lost to show the view's 0.3 s readiness.
        #expect(fit["volumeViewReadyDelay"]?.isObserved == false)
    }
}

extension TraceFixtureTests {
    @Test(
        "A synthetic field check (format 1) reads, replays its own button events and fits to the rules its header lists"
    )
    func fieldCheck() throws {
        let trace = try Self.fixture("field-check.sample-9.simulator.jsonl")
        #expect(trace.header.source == .simulator)
        // The note lists every rule the profile it was made with had: `…; rules: firstRepeatDelay=0.5 …`. Rules
        // added since (appended to `DeviceBehaviour.rules`) are not in it, and sample 9 keeps the listed values.
        let note = try #require(trace.header.note)
        let rules = try #require(note.components(separatedBy: "rules: ").last)
        var behaviour = DeviceBehaviour()
        for assignment in rules.split(separator: " ") {
            try behaviour.set(String(assignment))
            let name = String(assignment.prefix { $0 != "=" })
            let rule = try #require(DeviceBehaviour.rule(named: name))
            #expect(rule.value(in: behaviour) == rule.value(in: .sample(9)), "\(name) keeps its sample-9 value")
        }
        #expect(rules.split(separator: " ").count >= 20)
        let report = try TraceReplay.run(trace)
        #expect(report.eventsMatchRecording == true)
        #expect(report.setDifferences.isEmpty)
        #expect(report.undeliveredInputs == 0)
        let fit = TraceFit.fit(trace)
        // Sample 9: reads rounded to 1e-4, cached-equal sets dropped, the route notification before the KVO.
        #expect(fit["stepQuantization"]?.value == .variant("rounded"))
        #expect(fit["routeNotification"]?.value == .variant("beforeKVO"))
        #expect((fit.droppedSets?.dropped ?? 0) > 0)
        for (rule, expected) in FieldCheckFitTests.truth(behaviour, strategy: .outputVolume) {
            let estimate = try #require(fit[rule])
            if FieldCheckFitTests.mayBeUndetermined.contains(rule), estimate.value == nil { continue }
            switch (expected, estimate.value) {
            case (nil, let value): #expect(value == nil, "\(rule): \(estimate)")
            case (.variant(let name)?, let value): #expect(value == .variant(name), "\(rule): \(estimate)")
            case (let expected?, let value):
                let truth = try #require(expected.number)
                #expect(abs((value?.number ?? -1) - truth) <= (estimate.tolerance ?? 0) + 1e-9, "\(rule): \(estimate)")
            }
        }
    }
}
