import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

@Suite("The headroom follows the phone's round trip: a burst at a rail keeps every press")
struct HeadroomGrowthTests {
    @Test(
        "the policy: the envelope's slowest round trip until three sets showed the phone's, then round trip / burst spacing, capped"
    )
    func policy() {
        let policy = HeadroomPolicy()
        #expect(policy.steps(roundTrip: nil, minimum: 2) == 4, "nothing measured: the envelope's slowest phone")
        #expect(
            policy.steps(roundTrip: CalibrationEstimate.roundTrips([0.02, 0.02]), minimum: 2) == 4,
            "two sets are not enough")
        #expect(
            policy.steps(roundTrip: CalibrationEstimate.roundTrips([0.02, 0.02, 0.02]), minimum: 2) == 2,
            "a fast phone, shown")
        #expect(HeadroomPolicy(maximumSteps: 2).steps(roundTrip: nil, minimum: 2) == 2, "a fixed headroom stays")
        #expect(
            policy.steps(roundTrip: CalibrationEstimate.roundTrips([0.06, 0.06, 0.06]), minimum: 2) == 2,
            "a fast phone: no growth")
        #expect(policy.steps(roundTrip: CalibrationEstimate.roundTrips([0.15, 0.15, 0.15]), minimum: 2) == 3)
        #expect(
            policy.steps(roundTrip: CalibrationEstimate.roundTrips([0.18, 0.18, 0.18]), minimum: 2) == 4,
            "the envelope's slowest")
        #expect(
            policy.steps(roundTrip: CalibrationEstimate.roundTrips([0.12, 0.16, 0.12, 0.16]), minimum: 2) == 4,
            "a slow set among fast ones")
        let slowest = CalibrationEstimate.roundTrips([0.18, 0.18, 0.18])
        #expect(HeadroomPolicy(maximumSteps: 2).steps(roundTrip: slowest, minimum: 2) == 2)
        #expect(HeadroomPolicy(maximumSteps: 3).steps(roundTrip: slowest, minimum: 2) == 3)
        #expect(policy.steps(roundTrip: slowest, minimum: 5) == 5, "never below the configured")
        #expect(
            policy.steps(roundTrip: CalibrationEstimate.roundTrips([0.15 + 1e-15, 0.15 - 2e-16, 0.15]), minimum: 2)
                == 3,
            "three spacings' round trip, with a measurement's float noise: 3 steps, not 4")
        #expect(
            policy.steps(roundTrip: CalibrationEstimate.roundTrips([0.06, 0.18, 0.18]), minimum: 2) == 6,
            "a spread inside the envelope asks for more than its slowest round trip, up to the maximum")
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
    /// start after a run whose three presses measured the round trip (a later launch finds it in the store).
    static func burstAtOne(slider: TimeInterval, _ configuration: VolumeButtonsConfiguration) throws -> Int {
        let behaviour = try DeviceBehaviour(rules: ["sliderLatency=\(slider)", "kvoLatency=0.02", "tapLength=0.04"])
        let device = SimulatedDevice(.init(volume: 1, behaviour: behaviour))
        let first = VolumeButtonsEngine(configuration: configuration, clients: device.clients) { _ in }
        try first.start()
        device.advance(by: 1.5)
        for _ in 0..<3 {
            device.press(.down)
            device.advance(by: 1)
        }
        first.stop()
        device.advance(by: 1)
        return try upBurst(on: device, configuration)
    }

    /// Starts capture on `device` with `configuration`, makes 16 up presses 50 ms apart once it has settled, stops,
    /// and returns how many `pressed` the app received.
    static func upBurst(on device: SimulatedDevice, _ configuration: VolumeButtonsConfiguration) throws -> Int {
        try device.capturedBurst(.up, count: 16, configuration: configuration).filter { $0.phase == .pressed }.count
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

    /// The volume capture holds at volume 1, at the first start (cold) and at the next one, after a run of
    /// 1.5 s and 6 taps measured the round trip.
    static func anchors(slider: TimeInterval) throws -> (cold: Float, warm: Float) {
        let behaviour = try DeviceBehaviour(rules: ["sliderLatency=\(slider)", "kvoLatency=0.01"])
        let device = SimulatedDevice(.init(volume: 1, behaviour: behaviour))
        let first = VolumeButtonsEngine(configuration: .init(), clients: device.clients) { _ in }
        try first.start()
        device.advance(by: 1.5)
        let cold = device.volume
        for button in [VolumeButton.up, .down, .up, .down, .up, .down] {
            device.press(button)
            device.advance(by: 1)
        }
        first.stop()
        device.advance(by: 1)
        let second = VolumeButtonsEngine(configuration: .init(), clients: device.clients) { _ in }
        try second.start()
        device.advance(by: 1.5)
        let warm = device.volume
        second.stop()
        device.advance(by: 1)
        return (cold, warm)
    }

    @Test(
        "cold, the headroom is the envelope's slowest phone's (4 steps); once a fast phone showed its round trip, 2"
    )
    func coldIsTheEnvelopes() throws {
        let fast = try Self.anchors(slider: 0.02)
        #expect(fast.cold == 0.75, "nothing measured: 4 steps from 1")
        #expect(fast.warm == 0.875, "a fast phone, measured: the configured 2 steps")
        let slow = try Self.anchors(slider: 0.14)
        #expect(slow.warm == 0.8125, "a slow phone (0.15 s, three press spacings): 3 steps")
    }

    @Test("16 presses 50 ms apart at volume 1 on the envelope's slowest slider, at the first start: all 16")
    func coldBurstKeepsEveryPress() throws {
        let behaviour = try DeviceBehaviour(rules: ["sliderLatency=0.15", "kvoLatency=0.03", "tapLength=0.04"])
        let device = SimulatedDevice(.init(volume: 1, behaviour: behaviour))
        #expect(try Self.upBurst(on: device, .init()) == 16)
        #expect(device.volume == 1, "the user's volume back")
    }

    @Test(
        "in one run: 4 steps from the first start, 2 from the next return to the app once three sets showed a fast phone"
    )
    func narrowsAtTheNextReturn() throws {
        let device = SimulatedDevice(.init(volume: 1, behaviour: try DeviceBehaviour(rules: ["sliderLatency=0.02"])))
        let engine = VolumeButtonsEngine(configuration: .init(), clients: device.clients) { _ in }
        try engine.start()
        device.advance(by: 1.5)
        #expect(device.volume == 0.75, "the default configuration, nothing measured")
        for _ in 0..<3 {
            device.press(.down)
            device.advance(by: 1)
        }
        #expect(device.volume == 0.75, "not moved under presses")
        device.background()
        device.advance(by: 1)
        #expect(device.volume == 1, "the user's volume while away")
        device.foreground()
        device.advance(by: 1.5)
        #expect(device.volume == 0.875, "back in front: the measured phone's 2 steps")
        engine.stop()
        device.advance(by: 1)
        #expect(device.volume == 1)
    }
}
