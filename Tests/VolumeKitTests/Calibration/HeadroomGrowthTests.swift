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

    @Test(
        "the machine takes a new headroom only between runs of presses: idle or suspended, for the next start or resume"
    )
    func machineTakesItBetweenRuns() {
        var machine = VolumeStepMachine()
        let idle = machine.headroom(3)
        #expect(idle)
        #expect(machine.start(volume: 0, at: 0) == [.setVolume(0.1875)])
        _ = machine.observe(0.1875, at: 0.1)
        let running = machine.headroom(4)
        #expect(!running, "running: presses may be in flight")
        #expect(machine.headroomSteps == 3)
        _ = machine.suspend(at: 1)
        _ = machine.observe(0, at: 1.1)
        let suspended = machine.headroom(4)
        #expect(suspended)
        #expect(machine.resume(volume: 0, at: 2).contains(.setVolume(0.25)), "resumed at the new anchor")
    }

    /// 16 up presses 50 ms apart (40 ms each) at volume 1 on a phone whose sets take `slider` seconds, at the next
    /// start after a run that measured the round trip (a later launch finds it in the store).
    static func burstAtOne(slider: TimeInterval, _ configuration: VolumeButtonsConfiguration) throws -> Int {
        let behaviour = try DeviceBehaviour(rules: ["sliderLatency=\(slider)", "kvoLatency=0.02", "tapLength=0.04"])
        let device = SimulatedDevice(.init(volume: 1, behaviour: behaviour))
        let first = VolumeButtonsEngine(configuration: configuration, clients: device.clients) { _ in }
        try first.start()
        device.advance(by: 1.5)
        first.stop()
        device.advance(by: 1)
        let events = Locked([VolumeButtonEvent]())
        let engine = VolumeButtonsEngine(configuration: configuration, clients: device.clients) { event in
            events.withLock { $0.append(event) }
        }
        try engine.start()
        device.advance(by: 1.5)
        for _ in 0..<16 {
            device.press(.up)
            device.advance(by: 0.05)
        }
        device.advance(by: 2)
        engine.stop()
        device.advance(by: 1)
        return events.current.filter { $0.phase == .pressed }.count
    }

    @Test(
        "16 presses 50 ms apart at volume 1 on a slow slider (0.13 s), the phone known: all 16 with the grown headroom, fewer fixed"
    )
    func burstKeepsEveryPress() throws {
        let grown = try Self.burstAtOne(slider: 0.13, .init())
        let fixed = try Self.burstAtOne(slider: 0.13, .fixedHeadroom)
        #expect(grown == 16)
        #expect(fixed < 16, "the fixed two steps lose presses: \(fixed)")
        #expect(try Self.burstAtOne(slider: 0.03, .init()) == 16, "a fast phone needs no growth")
    }
}
