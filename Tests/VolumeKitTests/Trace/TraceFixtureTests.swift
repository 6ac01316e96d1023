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
            "kvoDelay": 0.012, "sliderLatency": 0.04, "volumeViewReadyDelay": 0.3, "firstRepeatDelay": 0.65,
            "repeatInterval": 0.2,
        ]
        for (rule, value) in truth {
            let estimate = try #require(fit[rule])
            #expect(abs((estimate.value?.number ?? -1) - value) <= (estimate.tolerance ?? 0), "\(rule): \(estimate)")
        }
    }
}
