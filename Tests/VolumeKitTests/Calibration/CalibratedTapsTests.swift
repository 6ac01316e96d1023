import Foundation
import TestSupport
import Testing
import VolumeKitCore
import VolumeKitTesting

@Suite("Warm, taps at a natural pace are presses: the first-repeat window narrows to the phone's own rhythm")
struct CalibratedTapsTests {
    /// The stated tolerance: a tap gap this far or more from the phone's first repeat is a press once a hold was
    /// seen (``ButtonTiming/learnedWindow`` plus the estimate's error, within 20 ms on the envelope).
    static let tolerance: TimeInterval = ButtonTiming.learnedWindow + 0.02

    /// Runs `script` on sample `sample` with `calibration` in the store: the runner and how many presses it reported.
    static func run(_ script: String, sample: UInt64, calibration: Data?) throws -> (ScenarioRunner, pressed: Int) {
        let runner = ScenarioRunner(scenario: try Scenario(parsing: script), behaviour: .sample(sample))
        runner.storedCalibration = calibration
        let records = runner.run()
        return (runner, records.filter { $0.json.contains(#""phase":"pressed""#) }.count)
    }

    @Test(
        "50 samples × taps 0.3–0.7 s apart: cold some are read as a hold; warm every one is pressed unless its gap is within the tolerance of the phone's first repeat"
    )
    func tapsArePresses() async throws {
        let learning = CorpusScenario.calibrate
        // Off the test pool: some 950 runs, whose CPU the network suites' deadlines must not wait for.
        let (problems, checked, coldMissed) = await offThePool { () -> ([String], Int, Int) in
            var problems = [String]()
            var coldMissed = 0
            var checked = 0
            for sample in UInt64(1)...50 {
                guard let stored = try? Self.run(learning, sample: sample, calibration: nil).0.storedCalibration else {
                    problems.append("sample \(sample): nothing learned")
                    continue
                }
                let truth = DeviceBehaviour.sample(sample).firstRepeatDelay
                for gap in stride(from: 0.3, through: 0.7, by: 0.05) {
                    let taps = "volume 0.5\nstart\npress up x4 every \(gap)\nwait 1\nstop\n"
                    guard let cold = try? Self.run(taps, sample: sample, calibration: nil).pressed,
                        let (warm, pressed) = try? Self.run(taps, sample: sample, calibration: stored)
                    else {
                        problems.append("sample \(sample), gap \(gap): the script did not run")
                        continue
                    }
                    if cold < 4 { coldMissed += 1 }
                    guard abs(gap - truth) > Self.tolerance else { continue }
                    checked += 1
                    if pressed != 4 || warm.verdict?.ok != true {
                        problems.append("sample \(sample) (first repeat \(truth)): taps \(gap) s apart gave \(pressed)")
                    }
                }
            }
            return (problems, checked, coldMissed)
        }
        #expect(problems.isEmpty, "\(problems.count) runs, e.g. \(problems.prefix(8))")
        #expect(checked > 300)
        #expect(coldMissed > 100, "cold, the envelope's width reads taps as holds: \(coldMissed) runs")
    }

    @Test(
        "scenarios/calibrate.txt on 200 samples: round trip ±20 ms, first repeat ±20 ms, repeat interval ±10 ms and the step quantization equal on ≥ 95 %"
    )
    func learningRunEstimates() async throws {
        let learning = CorpusScenario.calibrate
        let misses = await offThePool { () -> [String] in
            var misses = [String]()
            for sample in UInt64(1)...200 {
                let truth = DeviceBehaviour.sample(sample)
                guard let stored = try? Self.run(learning, sample: sample, calibration: nil).0.storedCalibration,
                    let learned = try? CalibrationStore.machine(
                        reading: stored, for: SimulatedDevice(.init(behaviour: truth)).clients.device)
                else {
                    misses.append("sample \(sample): nothing stored")
                    continue
                }
                func near(_ rule: CalibrationRule, _ value: Double, _ tolerance: Double) -> Bool {
                    learned.value(of: rule).map { abs($0 - value) <= tolerance } ?? false
                }
                // Rounded reads quantize as the grid or exactly (the reads, not the presses, are rounded).
                let quantization: Bool =
                    switch truth.stepQuantization {
                    case .exact: learned.quantization == .exact
                    case .grid: learned.quantization == .grid
                    case .rounded: learned.quantization != nil
                    }
                let ok =
                    near(.roundTrip, truth.sliderLatency + truth.kvoLatency, 0.02)
                    && near(.firstRepeatDelay, truth.firstRepeatDelay, 0.02)
                    && near(.repeatInterval, truth.repeatInterval, 0.01) && quantization
                if !ok { misses.append("sample \(sample)") }
            }
            return misses
        }
        #expect(misses.count <= 10, "\(200 - misses.count) of 200 within; misses: \(misses.prefix(12))")
    }
}
