import Foundation
import Testing
import VolumeKitTesting

@testable import VolumeKitCore

/// A set can be lost (refused during a held down press, dropped as equal to the slider's cache, sent before the
/// volume view takes sets): once the phone's own round trip is known, it is made again after that round trip and a
/// margin, not after the envelope's slowest — and for as long in all as before.
@Suite("A lost set is made again after the phone's own round trip")
struct RetryWindowTests {
    @Test("The configured delay until three round trips; then mean + 3 spreads + 40 ms, never longer than configured")
    func policy() {
        let fast = CalibrationEstimate.roundTrips([0.03, 0.03, 0.03])
        #expect(RetryWindow.delay(roundTrip: nil, configured: 0.2) == 0.2)
        #expect(RetryWindow.delay(roundTrip: CalibrationEstimate.roundTrips([0.03, 0.03]), configured: 0.2) == 0.2)
        #expect(abs(RetryWindow.delay(roundTrip: fast, configured: 0.2) - 0.07) < 1e-9)
        let slow = CalibrationEstimate.roundTrips([0.18, 0.18, 0.18])
        #expect(RetryWindow.delay(roundTrip: slow, configured: 0.2) == 0.2, "the envelope's slowest: as configured")
        let erratic = CalibrationEstimate.roundTrips([0.02, 0.06, 0.02, 0.06])
        #expect(RetryWindow.delay(roundTrip: erratic, configured: 0.2) > 0.06 + 0.04, "a slow set among fast ones")
        #expect(RetryWindow.attempts(for: 0.07, configuredDelay: 0.2, configuredAttempts: 30) == 86)
        #expect(RetryWindow.attempts(for: 0.2, configuredDelay: 0.2, configuredAttempts: 30) == 30)
    }

    /// The times at which `machine`, started at 0 with the anchor 0.125 (two steps of headroom) and never seeing a set land, sets the
    /// anchor, ticked every 10 ms up to `until`.
    static func setTimes(_ machine: inout VolumeStepMachine, until: Double) -> (sets: [Double], failedAt: Double?) {
        var sets = [Double]()
        var failedAt: Double?
        if machine.start(volume: 0, at: 0).contains(.setVolume(0.125)) { sets.append(0) }
        for tick in 1...Int(until * 100) {
            let time = Double(tick) / 100
            let actions = machine.tick(at: time, volume: nil)
            if actions.contains(.setVolume(0.125)) { sets.append(time) }
            if actions.contains(.setFailed(0.125)), failedAt == nil { failedAt = time }
        }
        return (sets, failedAt)
    }

    @Test("A set that never lands: made again every 70 ms on a 30 ms phone (every 200 ms before), given up as late")
    func lostSetRetriedSooner() {
        var cold = VolumeStepMachine()
        let before = Self.setTimes(&cold, until: 0.5)
        #expect(before.sets.count == 3, "at 0, 0.2 and 0.4: \(before.sets)")
        var warm = VolumeStepMachine()
        warm.retrySets(after: 0.07, attempts: 86)
        let after = Self.setTimes(&warm, until: 0.5)
        #expect(after.sets.count >= 7, "every 70 ms (to the next 10 ms tick): \(after.sets)")
        #expect(after.sets.dropFirst().first.map { abs($0 - 0.07) < 0.011 } == true)
        // As long in all: the envelope's 30 tries of 0.2 s are 6 s; 86 tries of 70 ms are as long.
        var longCold = VolumeStepMachine()
        var longWarm = VolumeStepMachine()
        longWarm.retrySets(after: 0.07, attempts: 86)
        let coldFailed = Self.setTimes(&longCold, until: 8).failedAt
        let warmFailed = Self.setTimes(&longWarm, until: 8).failedAt
        #expect(coldFailed != nil && warmFailed != nil)
        if let coldFailed, let warmFailed { #expect(warmFailed >= coldFailed - 0.2, "\(warmFailed) vs \(coldFailed)") }
    }
}
