import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// The calibration learns whether the phone refuses VolumeKit's sets during a down press (seed 000: from iOS 11 a held
/// down press refuses a set at or above the value it started from) — a set of ours made during a run of down steps
/// never seen back while one made after it was — and keeps it per model and iOS version.
@Suite("The calibration learns whether a held down press refuses VolumeKit's sets")
struct DownPressRefusalLearningTests {
    @Test("a set made during down steps and passed over by a later one's landing counts once for its run")
    func passedOverDuringDownSteps() {
        var machine = CalibrationMachine()
        _ = machine.step(.down, at: 1)
        machine.setMade(0.5, at: 1.3)  // the anchor, refused under the held press
        _ = machine.step(.down, at: 1.6)
        machine.setMade(0.4998, at: 1.6)  // a nudge below where the press started: accepted
        _ = machine.observed(0.4998, at: 1.66)
        #expect(machine.downPressRefusals == 1)
        #expect(machine.refusesSetsDuringDownPress)
        // The same run again: still one.
        machine.setMade(0.5, at: 1.7)
        _ = machine.step(.down, at: 1.8)
        machine.setMade(0.4995, at: 1.8)
        _ = machine.observed(0.4995, at: 1.86)
        #expect(machine.downPressRefusals == 1)
        // Another run, after a pause: two.
        _ = machine.step(.down, at: 4)
        machine.setMade(0.5, at: 4)
        machine.setMade(0.49, at: 4.1)
        _ = machine.observed(0.49, at: 4.16)
        #expect(machine.downPressRefusals == 2)
    }

    @Test("sets that all come back, or one passed over outside a run of down steps, teach nothing")
    func nothingPassedOverUnderDownSteps() {
        var landed = CalibrationMachine()
        _ = landed.step(.down, at: 1)
        landed.setMade(0.5, at: 1.3)
        _ = landed.observed(0.5, at: 1.36)
        landed.setMade(0.4998, at: 1.4)
        _ = landed.observed(0.4998, at: 1.46)
        #expect(landed.downPressRefusals == 0)
        var up = CalibrationMachine()
        _ = up.step(.up, at: 1)
        up.setMade(0.5, at: 1.3)
        up.setMade(0.5002, at: 1.4)
        _ = up.observed(0.5002, at: 1.46)
        #expect(up.downPressRefusals == 0, "during up steps")
        var late = CalibrationMachine()
        _ = late.step(.down, at: 1)
        late.setMade(0.5, at: 2.5)  // the down steps long over
        late.setMade(0.45, at: 2.6)
        _ = late.observed(0.45, at: 2.66)
        #expect(late.downPressRefusals == 0, "a pause longer than a run's break ended the run")
        var together = CalibrationMachine()
        _ = together.step(.down, at: 1)
        together.setMade(0.5002, at: 1.3)  // a nudge beside and the exact value, set together: one KVO may show both
        together.setMade(0.5, at: 1.3)
        _ = together.observed(0.5, at: 1.36)
        #expect(together.downPressRefusals == 0, "made with the set seen back")
        var retried = CalibrationMachine()
        _ = retried.step(.down, at: 1)
        retried.setMade(0.5, at: 1.3)  // slow to land: made again, and both land on 0.5 with one KVO
        retried.setMade(0.5, at: 1.5)
        _ = retried.observed(0.5, at: 1.52)
        _ = retried.step(.down, at: 1.6)
        retried.setMade(0.4998, at: 1.6)
        _ = retried.observed(0.4998, at: 1.66)
        #expect(retried.downPressRefusals == 0, "a retry of a value seen back is no refused set")
    }

    @Test("the store keeps it; an entry written before it loads as nothing learned; a negative count is refused")
    func stored() throws {
        let device = DeviceInfo(osVersion: OSVersion(17, 4), kind: .iphone)
        let store = KeyValueStoreClient.inMemory()
        var machine = CalibrationMachine()
        _ = machine.step(.down, at: 1)
        machine.setMade(0.5, at: 1.3)
        machine.setMade(0.49, at: 1.4)
        _ = machine.observed(0.49, at: 1.46)
        CalibrationStore.save(machine, for: device, to: store)
        #expect(CalibrationStore.load(for: device, from: store)?.refusesSetsDuringDownPress == true)
        let written = try #require(String(data: CalibrationStore.encode(machine, for: device), encoding: .utf8))
        #expect(written.contains(#""downPressRefusals":1"#))
        let old = Data(written.replacingOccurrences(of: #""downPressRefusals":1,"#, with: "").utf8)
        #expect(try CalibrationStore.machine(reading: old, for: device).downPressRefusals == 0)
        let negative = Data(
            written.replacingOccurrences(of: #""downPressRefusals":1"#, with: #""downPressRefusals":-1"#).utf8)
        let huge = Data(
            written.replacingOccurrences(
                of: #""downPressRefusals":1"#, with: #""downPressRefusals":9223372036854775807"#
            ).utf8)
        var hostile = try CalibrationStore.machine(reading: huge, for: device)
        #expect(hostile.downPressRefusals == CalibrationMachine.maximumRefusals, "cut to the most it counts")
        _ = hostile.step(.down, at: 1)
        hostile.setMade(0.5, at: 1.3)
        hostile.setMade(0.49, at: 1.4)
        _ = hostile.observed(0.49, at: 1.46)
        #expect(hostile.downPressRefusals == CalibrationMachine.maximumRefusals, "counting on does not overflow")
        #expect(throws: CalibrationStoreError.unreadable) {
            try CalibrationStore.machine(reading: negative, for: device)
        }
    }

    /// What `scenarios/calibrate.txt` leaves in the store of a phone with `refusal` (the default profile otherwise).
    static func learned(_ refusal: DeviceBehaviour.DownPressRefusal) throws -> Int {
        var behaviour = DeviceBehaviour.default
        behaviour.downPressRefusal = refusal
        let runner = ScenarioRunner(
            scenario: try Scenario(parsing: CorpusScenario.calibrate), strategy: .outputVolume, behaviour: behaviour)
        runner.run()
        let stored = try #require(runner.storedCalibration)
        let entry = try #require(try JSONSerialization.jsonObject(with: stored) as? [String: Any])
        return entry["downPressRefusals"] as? Int ?? 0
    }

    @Test("scenarios/calibrate.txt shows it on a phone that refuses, and not on one that does not")
    func learningRun() throws {
        #expect(try Self.learned(.seedShape) >= 1)
        #expect(try Self.learned(.none) == 0)
    }

    @Test("simulate's end record names the refusal learned, as `volumekit profiles` names the variant; none when not")
    func endRecord() throws {
        let (end, _) = try ScenarioEndRecordTests.end(CorpusScenario.calibrate)
        #expect(end.json.contains(#""downPressRefusal":{"value":"seedShape", "samples":"#), "\(end.json)")
        let (quiet, _) = try ScenarioEndRecordTests.end("volume 0.5\nstart\npress up\nwait 1\npress down\nwait 1")
        #expect(!quiet.json.contains("downPressRefusal"), "two taps the round trip does not outrun show nothing")
    }
}
