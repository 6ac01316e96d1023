import Foundation
import Testing
import VolumeKitDemo
import VolumeKitTesting

@Suite("Field check: Your iPhone against the envelope (issue 25 item 4)")
struct FieldCheckCalibrationTests {
    /// An estimate that measured `values` for `rule` (inside or outside its envelope).
    private func estimate(_ rule: CalibrationRule, _ values: Double...) -> CalibrationEstimate {
        var estimate = CalibrationEstimate()
        for value in values { estimate.add(value, range: rule.range) }
        return estimate
    }

    private func row(_ shown: FieldCheckCalibration, _ id: String) -> FieldCheckCalibration.Row? {
        shown.rows.first { $0.id == id }
    }

    @Test("Before anything is learned, every rule says \"not measured yet\" beside its envelope")
    func nothingLearned() {
        let shown = FieldCheckCalibration()
        #expect(
            shown.rows.map(\.id) == CalibrationRule.allCases.map(\.rawValue) + ["stepQuantization", "downPressRefusal"])
        #expect(row(shown, "downPressRefusal")?.envelope == "refused (seedShape) or applied")
        #expect(shown.rows.allSatisfy { $0.value == "not measured yet" && $0.verdict == .notMeasured })
        #expect(shown.rows.allSatisfy { $0.detail == nil && $0.outsideNote == nil && $0.outside == 0 })
        #expect(row(shown, "roundTrip")?.envelope == "5–180 ms")
        #expect(row(shown, "firstRepeatDelay")?.envelope == "300–700 ms")
        #expect(row(shown, "repeatInterval")?.envelope == "60–200 ms")
        #expect(row(shown, "tapLength")?.envelope == "40–150 ms")
        #expect(row(shown, "routeNotificationGap")?.envelope == "0–20 ms")
        #expect(row(shown, "stepQuantization")?.envelope == "exact or grid")
        #expect(!shown.isFlagged)
        #expect(shown.outsideCount == 0)
        #expect(shown.summary.hasPrefix("Nothing measured yet"))
        #expect(FieldCheckCalibration(nil) == shown)
    }

    @Test("A learned rule shows its value, samples and spread, inside the envelope")
    func learnedInside() {
        let machine = CalibrationMachine(
            estimates: [
                .firstRepeatDelay: estimate(.firstRepeatDelay, 0.41, 0.43),
                .routeNotificationGap: estimate(.routeNotificationGap, 0.0035),
            ],
            quantization: .grid, downPressRefusals: 2)
        let shown = FieldCheckCalibration(machine)
        #expect(row(shown, "downPressRefusal")?.value == "refused (seedShape)")
        #expect(row(shown, "downPressRefusal")?.detail == "2 runs of down presses")
        let first = row(shown, "firstRepeatDelay")
        #expect(first?.value == "420 ms")
        #expect(first?.detail == "2 samples, spread 14 ms")  // the standard deviation of 410 and 430 ms
        #expect(first?.verdict == .inside)
        #expect(first?.outsideNote == nil)
        let gap = row(shown, "routeNotificationGap")
        #expect(gap?.value == "3.5 ms")
        #expect(gap?.detail == "1 sample")
        #expect(row(shown, "stepQuantization")?.value == "grid")
        #expect(row(shown, "stepQuantization")?.verdict == .inside)
        #expect(row(shown, "roundTrip")?.value == "not measured yet")
        #expect(!shown.isFlagged)
        #expect(shown.summary == "Everything measured so far is inside the envelope.")
    }

    @Test("Measurements outside the envelope are flagged and counted, rule by rule and in all")
    func outsideFlagged() {
        let machine = CalibrationMachine(estimates: [
            .roundTrip: estimate(.roundTrip, 0.02, 0.25, 0.3),
            .repeatInterval: estimate(.repeatInterval, 0.5),
            .firstRepeatDelay: estimate(.firstRepeatDelay, 0.5),
        ])
        let shown = FieldCheckCalibration(machine)
        let roundTrip = row(shown, "roundTrip")
        #expect(roundTrip?.value == "20 ms")  // the one inside; those outside are never used
        #expect(roundTrip?.detail == "1 sample")
        #expect(roundTrip?.outside == 2)
        #expect(roundTrip?.outsideNote == "2 outside the envelope, last 300 ms")
        #expect(roundTrip?.verdict == .outside)
        let interval = row(shown, "repeatInterval")
        #expect(interval?.value == "none inside")
        #expect(interval?.detail == nil)
        #expect(interval?.outsideNote == "1 outside the envelope, last 500 ms")
        #expect(interval?.verdict == .outside)
        #expect(row(shown, "firstRepeatDelay")?.verdict == .inside)
        #expect(shown.outsideCount == 3)
        #expect(shown.isFlagged)
        #expect(shown.summary.hasPrefix("3 measurements outside the envelope (round trip"))
        #expect(shown.summary.contains("repeat interval of a hold"))
        #expect(!shown.summary.contains("first repeat"))
    }

    @Test("Capture and the camera's capture events: each rule from whichever measured it most, counts not added")
    func twoEngines() {
        let stored = estimate(.roundTrip, 0.02, 0.03, 0.04)
        var capture = stored
        capture.add(0.05, range: CalibrationRule.roundTrip.range)
        capture.add(0.9, range: CalibrationRule.roundTrip.range)
        let shown = FieldCheckCalibration([
            CalibrationMachine(estimates: [.roundTrip: capture], quantization: .exact),
            CalibrationMachine(estimates: [.roundTrip: stored, .tapLength: estimate(.tapLength, 0.08, 0.1)]),
        ])
        #expect(row(shown, "roundTrip")?.detail?.hasPrefix("4 samples") == true)
        #expect(row(shown, "roundTrip")?.outside == 1)
        #expect(row(shown, "tapLength")?.value == "90 ms")
        #expect(row(shown, "stepQuantization")?.value == "exact")
        #expect(shown.outsideCount == 1)
    }

    @Test("The reset line names the UserDefaults key the calibration is stored under")
    func resetNamesTheKey() {
        #expect(FieldCheckCalibration.reset.contains("UserDefaults key VolumeKit.calibration.v1"))
        #expect(CalibrationStore.key == "VolumeKit.calibration.v1")
    }

    @Test("Walking the check on a simulated iPhone shows its hold rhythm and round trip inside the envelope")
    func simulatedInside() {
        let check = SimulatedFieldCheck()
        check.run()
        let shown = FieldCheckCalibration(check.calibration)
        #expect(row(shown, "firstRepeatDelay")?.verdict == .inside)
        #expect(row(shown, "firstRepeatDelay")?.value == "\(Int(SimulatedDevice.firstRepeatDelay * 1000)) ms")
        #expect(row(shown, "repeatInterval")?.verdict == .inside)
        #expect(row(shown, "roundTrip")?.verdict == .inside)
        #expect(!shown.isFlagged, "\(shown.rows)")
    }

    @Test("An iPhone whose first repeat comes later than the envelope allows is flagged on the screen")
    func simulatedOutside() {
        var behaviour = DeviceBehaviour.default
        behaviour.firstRepeatDelay = 0.75  // past 0.7 s; below 0.8 s, the pause that ends a run of steps
        let check = SimulatedFieldCheck(.init(behaviour: behaviour))
        check.run()
        let shown = FieldCheckCalibration(check.calibration)
        let first = row(shown, "firstRepeatDelay")
        #expect(first?.verdict == .outside)
        #expect(first?.outsideNote?.hasSuffix("last 750 ms") == true)
        #expect(shown.isFlagged)
        #expect(shown.outsideCount == first?.outside)
        #expect(shown.summary.contains("first repeat of a hold"))
    }
}
