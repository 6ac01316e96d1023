import Foundation
import Testing
import VolumeKitTesting

@testable import VolumeKitCore

/// The round trip may differ by audio route (a Bluetooth headset or an AirPlay receiver carries the set on): it is
/// learned on each route apart, and a route's own estimate sizes the windows there once it is trusted.
@Suite("The round trip is learned per route")
struct PerRouteCalibrationTests {
    /// `count` sets of 0.5 made on `route` and seen back `roundTrip` later, one at a time, from `start`.
    static func measure(
        _ machine: inout CalibrationMachine, on route: AudioRoute, _ roundTrip: Double, count: Int, from start: Double
    ) {
        machine.setRoute(route, at: start)
        for index in 0..<count {
            let made = start + Double(index)
            machine.setMade(0.5, at: made)
            _ = machine.observed(0.5, at: made + roundTrip)
        }
    }

    @Test("A route with three round trips of its own uses them; one with fewer uses the estimate over every route")
    func ownEstimateOnceTrusted() throws {
        var machine = CalibrationMachine()
        Self.measure(&machine, on: .speaker, 0.02, count: 3, from: 0)
        Self.measure(&machine, on: .bluetooth, 0.15, count: 3, from: 10)
        #expect(machine.byRoute[.speaker]?[.roundTrip]?.samples == 3)
        #expect(machine.byRoute[.bluetooth]?[.roundTrip]?.samples == 3)
        #expect(machine.estimates[.roundTrip]?.samples == 6, "and over every route")
        let onBluetooth = try #require(machine.value(of: .roundTrip))
        #expect(abs(onBluetooth - 0.15) < 1e-9, "the headset's own")
        machine.setRoute(.speaker, at: 20)
        #expect(abs(try #require(machine.value(of: .roundTrip)) - 0.02) < 1e-9, "the speaker's own")
        Self.measure(&machine, on: .headphones, 0.05, count: 2, from: 30)
        let overall = try #require(machine.estimates[.roundTrip]?.value)
        #expect(machine.value(of: .roundTrip) == overall, "two of its own are not enough: every route's")
        // The headroom follows the route's own round trip: the headset's slow sets need more than the speaker's.
        machine.setRoute(.bluetooth, at: 40)
        let slow = HeadroomPolicy().steps(roundTrip: machine.estimate(of: .roundTrip), minimum: 2)
        machine.setRoute(.speaker, at: 41)
        let fast = HeadroomPolicy().steps(roundTrip: machine.estimate(of: .roundTrip), minimum: 2)
        #expect(slow == 3 && fast == 2, "\(slow) and \(fast)")
        // What must not be too short (the retry's wait, the headroom) takes no other route's estimate: none yet on
        // headphones, with two of its own; the speaker's own there.
        machine.setRoute(.headphones, at: 42)
        #expect(machine.ownEstimate(of: .roundTrip) == nil)
        #expect(RetryWindow.delay(roundTrip: machine.ownEstimate(of: .roundTrip), configured: 0.2) == 0.2)
        machine.setRoute(.speaker, at: 43)
        #expect(machine.ownEstimate(of: .roundTrip) == machine.byRoute[.speaker]?[.roundTrip])
        // The buttons' rhythm is the phone's, not the route's.
        #expect(!CalibrationRule.firstRepeatDelay.isPerRoute && !CalibrationRule.tapLength.isPerRoute)
    }

    @Test("A set made before a route change is not measured when it lands: its round trip would be neither route's")
    func setAcrossARouteChange() {
        var machine = CalibrationMachine()
        machine.setRoute(.speaker, at: 0)
        machine.setMade(0.5, at: 1)
        machine.setRoute(.headphones, at: 1.05)
        #expect(machine.observed(0.5, at: 1.1).isEmpty)
        #expect(machine.estimates[.roundTrip] == nil)
        machine.setMade(0.25, at: 2)
        #expect(!machine.observed(0.25, at: 2.04).isEmpty, "a set made on the route is")
        #expect(machine.byRoute[.headphones]?[.roundTrip]?.samples == 1)
    }

    @Test("The store keeps each route's estimates; an entry without them loads; an unknown route is refused")
    func stored() throws {
        var machine = CalibrationMachine()
        Self.measure(&machine, on: .speaker, 0.02, count: 3, from: 0)
        Self.measure(&machine, on: .bluetooth, 0.15, count: 3, from: 10)
        var device = DeviceInfo(osVersion: OSVersion(17, 4), kind: .iphone)
        device.modelIdentifier = "iPhone15,2"
        let data = CalibrationStore.encode(machine, for: device)
        let loaded = try CalibrationStore.machine(reading: data, for: device)
        #expect(loaded.byRoute == machine.byRoute)
        let old =
            #"{"estimates":{"roundTrip":{"mean":0.05,"outsideSamples":0,"samples":3,"squares":0}},"model":"iPhone15,2","osVersion":"17.4","version":1}"#
        let fromOld = try CalibrationStore.machine(reading: Data(old.utf8), for: device)
        #expect(fromOld.byRoute.isEmpty && fromOld.estimates[.roundTrip]?.samples == 3)
        let hostile = String(decoding: data, as: UTF8.self).replacingOccurrences(
            of: "\"bluetooth\"", with: #""moon\u001b[2J""#)
        #expect {
            try CalibrationStore.machine(reading: Data(hostile.utf8), for: device)
        } throws: { error in
            (error as? CalibrationStoreError).map { "\($0)" }
                == "the calibration names an audio route \"moon\\u{1B}[2J\" VolumeKit does not know; delete it to start afresh."
        }
    }

    @Test("A stored estimate no VolumeKit wrote is refused with a sentence, not loaded to crash later")
    func implausibleEstimates() throws {
        var device = DeviceInfo(osVersion: OSVersion(17, 4), kind: .iphone)
        device.modelIdentifier = "iPhone15,2"
        // A negative sum of squares gave a spread that is not a number after two more round trips (the headroom's
        // Int(NaN) trapped); a count near Int.max overflowed at the next measurement.
        for estimate in [
            #"{"samples":1,"mean":0.03,"squares":-1e10,"outsideSamples":0}"#,
            #"{"samples":0,"mean":1e308,"squares":-1e308,"outsideSamples":0}"#,
            #"{"samples":9223372036854775807,"mean":0.03,"squares":0,"outsideSamples":0}"#,
            #"{"samples":3,"mean":0.03,"squares":0,"outsideSamples":9223372036854775807}"#,
        ] {
            for json in [
                #"{"estimates":{"roundTrip":\#(estimate)},"model":"iPhone15,2","osVersion":"17.4","version":1}"#,
                #"{"byRoute":{"bluetooth":{"roundTrip":\#(estimate)}},"estimates":{},"model":"iPhone15,2","osVersion":"17.4","version":1}"#,
            ] {
                #expect(throws: CalibrationStoreError.implausible(.roundTrip), "\(json)") {
                    try CalibrationStore.machine(reading: Data(json.utf8), for: device)
                }
            }
        }
    }

    @Test("simulate's end record gives the round trip per route when two routes measured it")
    func endRecord() throws {
        let script = """
            volume 0.5
            start
            press up
            wait 1
            press down
            wait 1
            route headphones
            wait 1
            press up
            wait 1
            press down
            wait 1
            """
        let (end, _) = try ScenarioEndRecordTests.end(script)
        let calibration = try #require(end.calibration)
        #expect(calibration.byRoute.keys.sorted { $0.rawValue < $1.rawValue } == [.headphones, .speaker])
        #expect(end.json.contains(#""byRoute":{"speaker":{"roundTrip":{"value":"#), "\(end.json)")
        #expect(end.json.contains(#"}, "headphones":{"roundTrip":{"value":"#))
        let (single, _) = try ScenarioEndRecordTests.end("volume 0.5\nstart\npress up\nwait 1")
        #expect(!single.json.contains("byRoute"), "one route: nothing to tell apart")
    }
}
