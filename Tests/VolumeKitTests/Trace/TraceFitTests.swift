import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

@Suite("Trace fit")
struct TraceFitTests {
    /// The simulator's constants, which a fit of its trace must recover within the estimates' tolerances.
    static func expectRecovers(_ report: TraceFitReport, _ configuration: SimulatedDevice.Configuration, sourceLocation: SourceLocation = #_sourceLocation) {
        let truth: [String: Double] = [
            "step": Double(SimulatedDevice.step),
            "setToKVOLatency": configuration.sliderLatency + configuration.kvoLatency,
            "kvoDelay": configuration.kvoLatency,
            "sliderLatency": configuration.sliderLatency,
            "viewReadyDelay": configuration.volumeViewReadyDelay,
            "holdFirstRepeat": SimulatedDevice.firstRepeatDelay,
            "holdRepeatInterval": SimulatedDevice.repeatInterval,
            "routeKVOGap": configuration.kvoLatency,
        ]
        for (rule, value) in truth {
            guard let estimate = report[rule], let number = estimate.value?.number, let tolerance = estimate.tolerance else {
                Issue.record("\(rule) not observed: \(report[rule]?.how ?? "missing")", sourceLocation: sourceLocation)
                continue
            }
            #expect(abs(number - value) <= tolerance, "\(rule): fitted \(number) ± \(tolerance), simulator \(value)", sourceLocation: sourceLocation)
        }
        #expect(report["quantization"]?.value == .variant("stepFromValue"), sourceLocation: sourceLocation)
        #expect(report["routeKVOOrder"]?.value == .variant("notificationFirst"), sourceLocation: sourceLocation)
    }

    @Test("A fit of a simulated run recovers the simulator's constants within the stated tolerances")
    func fitRecoversTheSimulatorsConstants() throws {
        let run = try TraceRecording.standardSession()
        let report = TraceFit.fit(try Trace(jsonLines: Data(run.recorder.trace.jsonLines.utf8)))
        Self.expectRecovers(report, run.device.configuration)
        // The simulator refuses the sets VolumeKit makes during a held volume-down press (iOS 11+ rule, seed 000):
        // the fit sees exactly those as dropped.
        let refused = run.device.log.filter { if case .setRefused = $0 { true } else { false } }.count
        #expect(refused > 0)
        let dropped = try #require(report["droppedSets"])
        #expect(dropped.samples == run.recorder.records.filter { if case .setVolume = $0.event { true } else { false } }.count)
        #expect(abs((dropped.value?.number ?? -1) * Double(dropped.samples) - Double(refused)) < 1e-9)
        #expect(report["tapLength"]?.isObserved == false)
        for estimate in report.estimates where estimate.isObserved && estimate.rule != "tapLength" {
            #expect(report.verdict(estimate) == .inside, "\(estimate.rule) \(estimate)")
        }
    }

    @Test("With capture events the fit measures the tap length, and says the KVO rules were not observed")
    func captureEventsFit() throws {
        let run = try TraceRecording.standardSession(buttons: VolumeButtonsConfiguration(strategy: .captureEvents))
        let report = TraceFit.fit(run.recorder.trace)
        let tap = try #require(report["tapLength"]?.value?.number)
        #expect(abs(tap - run.device.configuration.tapLength) <= report["tapLength"]!.tolerance!)
        #expect(report.verdict(report["tapLength"]!) == .noRange)
        #expect(report["setToKVOLatency"]?.isObserved == false)
        #expect(report.verdict(report["holdFirstRepeat"]!) == .notObserved)
        #expect(report.jsonLines.contains { $0.contains("\"rule\":\"holdFirstRepeat\",\"observed\":false") })
    }

    @Test("A fit of a trace whose rules lie outside the envelope says so")
    func outsideTheEnvelope() throws {
        // A view that takes 1.5 s to become ready is outside the envelope's 0.05–1 s.
        let run = try TraceRecording.standardSession(.init(volumeViewReadyDelay: 1.4))
        let report = TraceFit.fit(run.recorder.trace)
        let ready = try #require(report["viewReadyDelay"])
        #expect(abs((ready.value?.number ?? 0) - 1.4) <= ready.tolerance!)
        #expect(report.verdict(ready) == .outside)
        #expect(report.textLines.contains { $0.hasPrefix("viewReadyDelay") && $0.hasSuffix("outside") })
    }

    /// A reproducible sample of the envelope's ranges for the rules today's simulator takes as parameters.
    static func sample(_ seed: Int) -> SimulatedDevice.Configuration {
        var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        return SimulatedDevice.Configuration(
            kvoLatency: 0.03 * next(),
            sliderLatency: 0.005 + 0.145 * next(),
            volumeViewReadyDelay: 0.05 + 0.95 * next()
        )
    }

    @Test("Fits of 50 sampled simulator configurations recover each sample's values", arguments: 0..<50)
    func fitRecoversSampledConfigurations(seed: Int) throws {
        let configuration = Self.sample(seed)
        let run = try TraceRecording.standardSession(configuration)
        let report = TraceFit.fit(run.recorder.trace)
        Self.expectRecovers(report, configuration)
        // Replay of the same trace gives the same button events.
        #expect(try TraceReplay.run(run.recorder.trace).eventsMatchRecording == true)
    }
}
