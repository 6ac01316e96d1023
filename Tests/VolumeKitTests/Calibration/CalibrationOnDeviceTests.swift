import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

@Suite("Calibration on the simulated device: capture learns the sample's own rules")
struct CalibrationOnDeviceTests {
    /// One capture run on sample `k`: start at 0.5, wait for the view, hold up for 2 s, let go.
    static func learn(sample k: UInt64) throws -> (CalibrationMachine, DeviceBehaviour) {
        try learn(.sample(k))
    }

    static func learn(_ behaviour: DeviceBehaviour) throws -> (CalibrationMachine, DeviceBehaviour) {
        var configuration = SimulatedDevice.Configuration(behaviour: behaviour)
        configuration.volume = 0.5
        let device = SimulatedDevice(configuration)
        let learned = try holdUp(VolumeButtonsEngine(clients: device.clients) { _ in }, on: device)
        return (learned, device.behaviour)
    }

    /// A capture run of `engine` on `device`: start, wait for the view, hold up for 2 s, let go, stop. The
    /// calibration as it was before the stop (a hold shows the rhythm, the resets the round trip).
    @discardableResult
    static func holdUp(_ engine: VolumeButtonsEngine, on device: SimulatedDevice) throws -> CalibrationMachine {
        try engine.start()
        device.advance(by: 1.5)
        device.hold(.up, for: 2)
        device.advance(by: 3)
        let learned = engine.calibration
        engine.stop()
        device.advance(by: 2)
        return learned
    }

    /// The round trip's tolerance, and the share of samples that must be within it: with rounded reads
    /// (`stepQuantization=rounded`) a set's read may match a neighbouring set's value, a stated limit.
    static let roundTripTolerance: TimeInterval = 0.02

    @Test(
        "one hold teaches each of 50 samples' first-repeat delay (±20 ms) and repeat interval (±10 ms); sets the round trip (±20 ms; ≥ 95 %, every sample without rounded reads)"
    )
    func holdAndSets() throws {
        var roundTripsWithin = 0
        for sample in 1...50 {
            let (learned, truth) = try Self.learn(sample: UInt64(sample))
            let first = try #require(learned.value(of: .firstRepeatDelay), "sample \(sample): no hold learned")
            let interval = try #require(learned.value(of: .repeatInterval))
            #expect(abs(first - truth.firstRepeatDelay) <= 0.02, "sample \(sample)")
            #expect(abs(interval - truth.repeatInterval) <= 0.01, "sample \(sample)")
            let roundTrip = try #require(learned.value(of: .roundTrip), "sample \(sample): no set measured")
            let within = abs(roundTrip - (truth.sliderLatency + truth.kvoLatency)) <= Self.roundTripTolerance
            if within { roundTripsWithin += 1 }
            #expect(within || truth.stepQuantization == .rounded, "sample \(sample): round trip \(roundTrip)")
        }
        #expect(roundTripsWithin >= 48, "\(roundTripsWithin) of 50 round trips within \(Self.roundTripTolerance) s")
    }

    @Test("a phone outside the envelope (--outside sliderLatency=0.3) is measured, kept apart and counted, never used")
    func outsideKeptApart() throws {
        var behaviour = DeviceBehaviour.default
        try behaviour.setOutside("sliderLatency=0.3")
        let (learned, _) = try Self.learn(behaviour)
        let roundTrip = try #require(learned.estimates[.roundTrip])
        #expect(roundTrip.outsideSamples >= 1)
        #expect(roundTrip.lastOutside.map { abs($0 - 0.305) < 0.01 } == true, "slider 0.3 + KVO 0.005")
        #expect(throws: DeviceBehaviourError.self) { try behaviour.setOutside("sliderLatency=0.1") }
        #expect(throws: DeviceBehaviourError.self) { try behaviour.setOutside("stepQuantization=grid") }
    }

    @Test(
        "a measurement outside the envelope raises outsideEnvelope once for its rule, names it in a sentence, and a trace carries it"
    )
    func outsideRaisesItsDiagnostic() throws {
        var behaviour = DeviceBehaviour.default
        try behaviour.setOutside("sliderLatency=0.3")
        var configuration = SimulatedDevice.Configuration(behaviour: behaviour)
        configuration.volume = 0.5
        let device = SimulatedDevice(configuration)
        let recorder = TraceRecorder(header: .simulator(device), clock: device.clock)
        let diagnostics = Locked([VolumeButtonsDiagnostic]())
        let engine = VolumeButtonsEngine(
            clients: device.clients.recording(to: recorder, feature: "buttons"), onEvent: { _ in },
            onDiagnostic: { diagnostic in diagnostics.withLock { $0.append(diagnostic) } })
        try Self.holdUp(engine, on: device)
        let outside = diagnostics.current.filter { if case .outsideEnvelope = $0 { true } else { false } }
        #expect(outside.count == 1, "once a rule a run, though every set measured outside")
        guard case .outsideEnvelope(let rule, let value)? = outside.first else { return }
        #expect(rule == .roundTrip)
        #expect(abs(value - 0.305) < 0.01)
        #expect(outside[0].description.contains("roundTrip measured 0.305 s, outside the 0.005–0.18 s"))
        let trace = try Trace(jsonLines: Data(recorder.trace.jsonLines.utf8))
        let written = trace.records.compactMap { if case .diagnostic(let d) = $0.event { d } else { nil } }
        #expect(written.contains(outside[0]), "the trace carries it, and reads it back")
        #expect((engine.calibration.estimates[.roundTrip]?.outsideSamples ?? 0) >= 1, "counted apart")
    }
}
