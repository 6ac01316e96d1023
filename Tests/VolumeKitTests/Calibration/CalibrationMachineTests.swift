import Foundation
import Testing
import VolumeKitCore

@Suite("Calibration: what the phone's own sets and holds teach")
struct CalibrationMachineTests {
    @Test("a set seen back while it was the only one in flight measures the round trip; two in flight measure nothing")
    func roundTrip() {
        var machine = CalibrationMachine()
        machine.setMade(0.5, at: 1.0)
        let first = machine.observed(0.5, at: 1.04)
        #expect(
            first.count == 1 && first.first.map { if case .learned(.roundTrip, _) = $0 { true } else { false } } == true
        )
        #expect(machine.value(of: .roundTrip).map { abs($0 - 0.04) < 1e-9 } == true)
        machine.setMade(0.5, at: 2.0)
        machine.setMade(0.4375, at: 2.01)
        let two = machine.observed(0.5, at: 2.05)
        #expect(two == [], "a press could land on one of two sets' values")
        let other = machine.observed(0.25, at: 2.06)
        #expect(other == [], "not a value VolumeKit set")
        #expect(machine.estimates[.roundTrip]?.samples == 1)
    }

    @Test("a round trip outside the envelope is kept apart and reported, never used")
    func outside() {
        var machine = CalibrationMachine()
        machine.setMade(0.5, at: 0)
        let events = machine.observed(0.5, at: 0.3)
        #expect(events == [.outsideEnvelope(.roundTrip, 0.3)])
        #expect(machine.value(of: .roundTrip) == nil)
        #expect(machine.estimates[.roundTrip]?.outsideSamples == 1)
        #expect(machine.estimates[.roundTrip]?.lastOutside == 0.3)
    }

    @Test("a hold's steps teach the first-repeat delay and the repeat interval once the buttons are quiet")
    func holdRhythm() throws {
        var machine = CalibrationMachine()
        for time in [0, 0.5, 0.6, 0.7, 0.8, 0.9] {
            let events = machine.step(.up, at: time)
            #expect(events == [])
        }
        let early = machine.quiet(at: 1.0)
        #expect(early == [], "not quiet long enough yet")
        let learned = machine.quiet(at: 2)
        #expect(learned.count == 2)
        let first = try #require(machine.value(of: .firstRepeatDelay))
        let interval = try #require(machine.value(of: .repeatInterval))
        #expect(abs(first - 0.5) < 1e-9 && abs(interval - 0.1) < 1e-9)
    }

    @Test("taps — irregular, or as regular as their first gap — teach no rhythm")
    func tapsTeachNothing() {
        var machine = CalibrationMachine()
        for time in [0, 0.45, 0.83, 1.3, 1.71] { _ = machine.step(.down, at: time) }
        let irregular = machine.quiet(at: 5)
        #expect(irregular == [])
        for time in [10, 10.4, 10.8, 11.2, 11.6] { _ = machine.step(.down, at: time) }
        let regular = machine.quiet(at: 15)
        #expect(regular == [])
        #expect(machine.value(of: .firstRepeatDelay) == nil)
    }

    @Test(
        "quick regular taps after a pause have a hold's shape but gaps outside the envelope's: no rhythm (a false one split every later hold)"
    )
    func quickTapsAfterAPause() {
        var machine = CalibrationMachine()
        // One tap, then four 56 ms apart, 0.226 s later: first gap under 0.3 s, later ones under 0.06 s.
        for time in [0, 0.2256, 0.2818, 0.338, 0.3942] { _ = machine.step(.up, at: time) }
        #expect(machine.quiet(at: 3) == [])
        // A first gap of 0.35 s and later ones of 0.04 s: the interval is outside.
        for time in [10, 10.35, 10.39, 10.43, 10.47] { _ = machine.step(.up, at: time) }
        #expect(machine.quiet(at: 13) == [])
        #expect(machine.value(of: .firstRepeatDelay) == nil)
        #expect(machine.estimates[.firstRepeatDelay]?.outsideSamples ?? 0 == 0, "nor reported as news")
    }

    @Test("a long hold whose first repeat comes later than the envelope allows is reported outside; a short run is not")
    func lateFirstRepeat() {
        var machine = CalibrationMachine()
        for time in [0, 0.75, 0.85, 0.95, 1.05, 1.15, 1.25, 1.35] { _ = machine.step(.up, at: time) }
        #expect(machine.quiet(at: 3) == [.outsideEnvelope(.firstRepeatDelay, 0.75)])
        for time in [10, 10.75, 10.85, 10.95, 11.05] { _ = machine.step(.up, at: time) }
        #expect(machine.quiet(at: 13) == [], "five steps: a few taps after a pause look the same")
        #expect(machine.value(of: .firstRepeatDelay) == nil, "never used")
    }

    @Test("another button ends a run: two short runs are no hold")
    func otherButtonEndsRun() {
        var machine = CalibrationMachine()
        for time in [0, 0.5, 0.6] { _ = machine.step(.up, at: time) }
        for time in [0.7, 0.8, 0.9] { _ = machine.step(.down, at: time) }
        let events = machine.quiet(at: 3)
        #expect(events == [])
    }

    @Test("a capture event's press measures the tap length; one long enough to be a hold does not")
    func tapLength() {
        var machine = CalibrationMachine()
        let tap = machine.tap(began: 1, ended: 1.08)
        let hold = machine.tap(began: 2, ended: 2.5)
        #expect(tap.count == 1)
        #expect(hold == [])
        #expect(machine.estimates[.tapLength]?.samples == 1)
    }

    @Test("a route change's notification and KVO measure the gap, in either order; a gap beyond 20 ms is kept apart")
    func routeGap() {
        var machine = CalibrationMachine()
        let before = machine.routeChanged(notification: 1.0, kvo: 1.012)
        let after = machine.routeChanged(notification: 2.01, kvo: 2.0)
        let late = machine.routeChanged(notification: 3.0, kvo: 3.05)
        #expect(before.count == 1 && after.count == 1)
        let lateGap: Double? =
            if case .outsideEnvelope(.routeNotificationGap, let gap)? = late.first { gap } else { nil }
        #expect(late.count == 1 && lateGap.map { abs($0 - 0.05) < 1e-9 } == true)
        #expect(machine.estimates[.routeNotificationGap]?.samples == 2)
        #expect(machine.value(of: .routeNotificationGap).map { abs($0 - 0.011) < 1e-9 } == true)
    }

    @Test("a press from a value off the grid shows how presses are quantized")
    func quantization() {
        var exact = CalibrationMachine()
        exact.pressLanded(from: 0.51, to: 0.51 + 1.0 / 16)
        #expect(exact.quantization == .exact)
        var grid = CalibrationMachine()
        grid.pressLanded(from: 0.51, to: 0.5625)
        #expect(grid.quantization == .grid)
        var unknown = CalibrationMachine()
        unknown.pressLanded(from: 0.5, to: 0.5625)
        #expect(unknown.quantization == nil, "from the grid, both rules land on the same value")
    }

    @Test("an estimate's spread is its measurements' standard deviation")
    func spread() {
        var estimate = CalibrationEstimate()
        for value in [0.1, 0.12, 0.14] { estimate.add(value, range: 0...1) }
        #expect(estimate.samples == 3)
        #expect(abs((estimate.value ?? 0) - 0.12) < 1e-9)
        #expect(abs(estimate.spread - 0.02) < 1e-9)
        let added = estimate.add(.nan, range: 0...1)
        #expect(!added)
    }
}

@Suite("Calibration store: per model and iOS version, checked when read")
struct CalibrationStoreTests {
    static func device(_ model: String = "iPhone15,2", _ os: OSVersion = OSVersion(17, 4)) -> DeviceInfo {
        var device = DeviceInfo(osVersion: os, kind: .iphone)
        device.modelIdentifier = model
        return device
    }

    static func memoryStore() -> KeyValueStoreClient {
        let storage = Locked([String: Data]())
        return KeyValueStoreClient(
            data: { key in storage.withLock { $0[key] } },
            setData: { data, key in storage.withLock { $0[key] = data } })
    }

    static func learned() -> CalibrationMachine {
        var machine = CalibrationMachine()
        machine.setMade(0.5, at: 0)
        _ = machine.observed(0.5, at: 0.05)
        machine.pressLanded(from: 0.51, to: 0.51 + 1.0 / 16)
        return machine
    }

    @Test("what was learned comes back on the same model and iOS version, and not on another")
    func perModelAndVersion() {
        let store = Self.memoryStore()
        CalibrationStore.save(Self.learned(), for: Self.device(), to: store)
        #expect(CalibrationStore.load(for: Self.device(), from: store) == Self.learned())
        #expect(CalibrationStore.load(for: Self.device("iPhone16,1"), from: store) == nil)
        #expect(CalibrationStore.load(for: Self.device("iPhone15,2", OSVersion(18, 0)), from: store) == nil)
    }

    @Test("a corrupt, foreign or implausible store is refused with a sentence")
    func refused() throws {
        let device = Self.device()
        func refusal(_ text: String) -> String? {
            do {
                _ = try CalibrationStore.machine(reading: Data(text.utf8), for: device)
                return nil
            } catch {
                return (error as? CalibrationStoreError)?.description
            }
        }
        #expect(refusal("not json")?.contains("not the JSON VolumeKit writes") == true)
        #expect(
            refusal(#"{"version":2,"model":"x","osVersion":"17.4","estimates":{}}"#)?.contains("version 2") == true)
        let unknown =
            #"{"version":1,"model":"x","osVersion":"17.4","estimates":{"\u001b[2Jwarp":{"samples":1,"mean":0.1,"squares":0,"outsideSamples":0}}}"#
        let message = try #require(refusal(unknown))
        #expect(message.contains("does not know") && !message.contains("\u{1B}"))
        let implausible =
            #"{"version":1,"model":"x","osVersion":"17.4","estimates":{"roundTrip":{"samples":3,"mean":9,"squares":0,"outsideSamples":0}}}"#
        #expect(refusal(implausible)?.contains("roundTrip lies outside") == true)
        #expect(refusal(String(repeating: " ", count: CalibrationStore.maximumBytes + 1))?.contains("bytes") == true)
    }

    @Test("a file for another model or iOS version starts with nothing learned")
    func otherDeviceFile() throws {
        let data = CalibrationStore.encode(Self.learned(), for: Self.device("iPad13,1"))
        #expect(try CalibrationStore.machine(reading: data, for: Self.device()) == CalibrationMachine())
        #expect(try CalibrationStore.machine(reading: data, for: Self.device("iPad13,1")) == Self.learned())
    }
}
