import Foundation
import Testing
import VolumeKitTesting

@testable import VolumeKitCore

/// A press landing on the value of a set still on its way reads as that set's landing while any round trip is
/// possible; once the phone's own round trip is known, an observation sooner than half of it is the press.
@Suite("Echoes no sooner than the phone's round trip allows")
struct EchoWindowTests {
    @Test("No window before three round trips, half the mean after, none for an erratic phone")
    func policy() {
        #expect(EchoWindow.soonest(roundTrip: nil) == 0)
        #expect(EchoWindow.soonest(roundTrip: CalibrationEstimate.roundTrips([0.12, 0.12])) == 0)
        #expect(abs(EchoWindow.soonest(roundTrip: CalibrationEstimate.roundTrips([0.12, 0.12, 0.12])) - 0.06) < 1e-9)
        // Spread over half the mean: echoes may come at any time.
        #expect(EchoWindow.soonest(roundTrip: CalibrationEstimate.roundTrips([0.01, 0.17, 0.01, 0.17])) == 0)
    }

    @Test("A press onto the value of the anchor's set in flight: the set's echo before its window, a press after")
    func pressOntoSetInFlight() {
        // A grid device: the volume at a nudge below the anchor 0.5, the anchor set again at 0; a press up snaps
        // onto 0.5 and its KVO comes 0.03 s later, sooner than this phone's 0.175 s round trip allows an echo.
        func run(soonest: TimeInterval) -> (VolumeStepMachine, VolumeStepMachine.Actions) {
            var machine = VolumeStepMachine()
            machine.expectEchoes(noSoonerThan: soonest)
            _ = machine.start(volume: 0.5, at: -1)
            var actions = machine.observe(0.4375, at: -0.5)
            for case .setVolume(let value) in actions { _ = machine.observe(value, at: -0.3) }
            actions = machine.tick(at: 0, volume: nil)
            #expect(actions.contains(.setVolume(0.5)), "the anchor set again once quiet: \(actions)")
            return (machine, machine.observe(0.5, at: 0.03))
        }
        let (_, cold) = run(soonest: 0)
        #expect(!cold.contains(.steps(.up, count: 1)), "any round trip possible: the anchor's landing")
        var (warm, pressed) = run(soonest: 0.0875)
        #expect(pressed.contains(.steps(.up, count: 1)), "sooner than an echo may come: the press")
        // The anchor's own set lands later (no change from 0.5 for KVO to report) and the next press is one more.
        let next = warm.observe(0.5625, at: 0.4)
        #expect(next.contains(.steps(.up, count: 1)))
    }

    @Test("Calibration takes no round trip shorter than an echo may come: that was a press onto the set's value")
    func calibrationSkipsEarlyLandings() {
        var machine = CalibrationMachine(estimates: [.roundTrip: CalibrationEstimate.roundTrips([0.175, 0.175, 0.175])])
        machine.setMade(0.5, at: 1)
        #expect(machine.observed(0.5, at: 1.03).isEmpty)
        #expect(machine.estimates[.roundTrip]?.samples == 3)
        machine.setMade(0.5, at: 2)
        #expect(!machine.observed(0.5, at: 2.17).isEmpty)
        #expect(machine.estimates[.roundTrip]?.samples == 4)
    }
}
