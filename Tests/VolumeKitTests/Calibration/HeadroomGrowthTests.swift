import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

@Suite("The headroom follows the phone's round trip: a burst at a rail keeps every press")
struct HeadroomGrowthTests {
    /// A round trip measured `samples` times at `mean` with the given spread around it.
    static func roundTrip(_ values: [Double]) -> CalibrationEstimate {
        var estimate = CalibrationEstimate()
        for value in values { estimate.add(value, range: CalibrationRule.roundTrip.range) }
        return estimate
    }

    @Test("the policy: the configured headroom until a round trip is known, then round trip / burst spacing, capped")
    func policy() {
        let policy = HeadroomPolicy()
        #expect(policy.steps(roundTrip: nil, minimum: 2) == 2)
        #expect(policy.steps(roundTrip: Self.roundTrip([0.06, 0.06]), minimum: 2) == 2, "a fast phone: no growth")
        #expect(policy.steps(roundTrip: Self.roundTrip([0.15, 0.15]), minimum: 2) == 3)
        #expect(policy.steps(roundTrip: Self.roundTrip([0.18, 0.18]), minimum: 2) == 4, "the envelope's slowest")
        #expect(policy.steps(roundTrip: Self.roundTrip([0.12, 0.16]), minimum: 2) == 4, "a slow set among fast ones")
        #expect(HeadroomPolicy(maximumSteps: 2).steps(roundTrip: Self.roundTrip([0.18]), minimum: 2) == 2)
        #expect(HeadroomPolicy(maximumSteps: 3).steps(roundTrip: Self.roundTrip([0.18]), minimum: 2) == 3)
        #expect(policy.steps(roundTrip: Self.roundTrip([0.18]), minimum: 5) == 5, "never below the configured")
    }

    @Test("the machine moves its anchor to a new headroom only when quiet, and at once while idle")
    func machineTakesItWhenQuiet() {
        var machine = VolumeStepMachine()
        _ = machine.headroom(3, at: 0)
        #expect(machine.headroomSteps == 3, "idle: for the next start")
        #expect(machine.start(volume: 0, at: 0) == [.setVolume(0.1875)])
        _ = machine.observe(0.1875, at: 0.1)
        // A press, its reset on its way: not quiet.
        _ = machine.observe(0.125, at: 1)
        #expect(machine.headroom(4, at: 1.01).isEmpty)
        #expect(machine.headroomSteps == 3)
        // Everything landed and settled: the anchor moves.
        for time in stride(from: 1.1, through: 3, by: 0.1) {
            for action in machine.tick(at: time) {
                if case .setVolume(let value) = action { _ = machine.observe(value, at: time + 0.05) }
            }
        }
        let moved = machine.headroom(4, at: 3.5)
        #expect(machine.headroomSteps == 4)
        #expect(moved.contains(.setVolume(0.25)))
    }

    /// 16 up presses 50 ms apart (40 ms each) at volume 1 on a phone whose sets take `slider` seconds.
    static func burstAtOne(slider: TimeInterval, _ configuration: VolumeButtonsConfiguration) throws -> Int {
        let run = try CaptureRun(
            ["sliderLatency=\(slider)", "kvoLatency=0.02", "tapLength=0.04"], volume: 1, configuration: configuration)
        for _ in 0..<16 {
            run.device.press(.up)
            run.device.advance(by: 0.05)
        }
        run.device.advance(by: 2)
        return run.events.current.filter { $0.phase == .pressed }.count
    }

    @Test("16 presses 50 ms apart at volume 1 on a slow slider (0.13 s): all 16 with the grown headroom, fewer fixed")
    func burstKeepsEveryPress() throws {
        let grown = try Self.burstAtOne(slider: 0.13, .init())
        let fixed = try Self.burstAtOne(slider: 0.13, .fixedHeadroom)
        #expect(grown == 16)
        #expect(fixed < 16, "the fixed two steps lose presses: \(fixed)")
        #expect(try Self.burstAtOne(slider: 0.03, .init()) == 16, "a fast phone needs no growth")
    }
}
