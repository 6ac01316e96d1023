import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Capture claims the volume view (`onReady`, `isCapturing`) from the first set seen back through it, not from the
/// host's timer: iOS never says when an `MPVolumeView` takes sets and hides the HUD (``VolumeViewReadiness``).
@Suite("The volume view is ready when a set through it comes back")
struct VolumeViewReadinessTests {
    /// Capture from `volume` on a phone whose view is ready `ready` s after it is installed; `onReady`'s time.
    static func start(volume: Float, ready: Double) throws -> (SimulatedDevice, VolumeButtonsEngine, Locked<Double?>) {
        var behaviour = DeviceBehaviour()
        try behaviour.set("volumeViewReadyDelay=\(ready)")
        let device = SimulatedDevice(.init(volume: volume, behaviour: behaviour))
        let engine = VolumeButtonsEngine(configuration: .fixedHeadroom, clients: device.clients, onEvent: { _ in })
        let readyAt = Locked<Double?>(nil)
        try engine.start(onReady: { readyAt.withLock { $0 = device.now } })
        return (device, engine, readyAt)
    }

    @Test(
        "From 0 the anchor's set is made from the host's timer, lost until the view is ready, and its landing proves it"
    )
    func provenByTheAnchorsLanding() throws {
        let (device, engine, readyAt) = try Self.start(volume: 0, ready: 0.5)
        device.advance(by: 0.45)
        #expect(!engine.isCapturing, "told ready at 0.15 s, but no set has come back")
        #expect(readyAt.current == nil)
        device.advance(by: 0.3)
        // The set made again at 0.55 s lands (slider 0.01 s) and its KVO comes back (0.005 s).
        #expect(engine.isCapturing)
        let at = try #require(readyAt.current)
        #expect(at > 0.5 && at < 0.6, "onReady at \(at)")
    }

    @Test("A press that lands on the anchor's value before the view takes sets proves nothing")
    func pressOnTheAnchorIsNoProof() throws {
        // From 1/16, the anchor is 2/16: a press up lands there, on the value of capture's lost set.
        let (device, engine, _) = try Self.start(volume: 0.0625, ready: 0.9)
        device.advance(by: 0.3)
        device.press(.up)
        device.advance(by: 0.1)
        #expect(!engine.isCapturing, "the press's 2/16 is not the set's landing")
        // A press now would show the system HUD: VolumeKit must not say it captures. With the volume at the anchor,
        // no set is left to come back: the view is claimed twice the envelope's slowest readiness after it was
        // installed (a set was made and not seen back).
        device.advance(by: 1.5)
        #expect(!engine.isCapturing)
        device.advance(by: 0.15)
        #expect(engine.isCapturing)
    }

    @Test("At half volume no set is needed: the view is claimed after the envelope's slowest readiness")
    func noSetNeeded() throws {
        let (device, engine, readyAt) = try Self.start(volume: 0.5, ready: 0.1)
        device.advance(by: VolumeViewReadiness.slowest - 0.05)
        #expect(!engine.isCapturing)
        device.advance(by: 0.1)
        #expect(engine.isCapturing)
        #expect(readyAt.current.map { abs($0 - VolumeViewReadiness.slowest) < 0.011 } == true)
    }

    @Test(
        "The first set through the view lands four steps from the volume: no press, so a press at the rail after it is one"
    )
    func provingLandingKeepsNoSpare() throws {
        // Sweep session systemNotification 3947 31256293: five down presses from 1 before the view takes sets (their
        // resets lost), an up press to 12/16, and the anchor's set of 1 lands — the view's proof, four steps from
        // what the machine believed. One press moves one step, so no press can have taken that set's echo: keeping a
        // spare of it took the next up press at the rail (the notification's value 1 again) for the set's landing.
        let script = """
            volume 1.0
            start buttons &
            wait 0.4
            press down x5 every 0.051329223042925434
            wait 0.1
            press up x6 every 0.19048021103360557
            wait 1
            stop
            """
        let runner = ScenarioRunner(
            scenario: try Scenario(parsing: script), strategy: .systemNotification, behaviour: .sample(3947))
        runner.run()
        // The case the rule is for: resets lost before the view took sets, then its first set landing at 1 — four
        // steps from the 12/16 the up press left.
        let lost = runner.device.log.filter { if case .setIgnored = $0 { true } else { false } }.count
        #expect(lost >= 5, "the presses' resets were lost (\(lost))")
        let landings = runner.device.log.compactMap { entry -> Float? in
            if case .programmaticSet(_, let value) = entry { value } else { nil }
        }
        #expect(landings.first == 1, "the first set through the view lands at 1: \(landings.prefix(3))")
        let verdict = try #require(runner.verdict)
        #expect(verdict.violations.isEmpty, "\(verdict.violations)")
    }

    @Test("At the rail, the anchor's set already landed: a press there is not taken for that set's landing")
    func railPressAfterALandingOneStepAway() throws {
        // Held-out session systemNotification 73584 582711697 (an iPad snapping presses to the 1/16 grid): a hold down
        // from 1 before the view takes sets (its first reset lost) leaves each reset a step below the anchor; an up
        // press to 15/16 is reported and the anchor's set of 1 lands one step from it, so a spare of its echo is kept
        // for a press that may have taken it. The next up press at 1 posts a notification of 1 again: either it is
        // the press and the first was the set, or the reverse — one press either way, and it was missed.
        let script = """
            ios 15.0
            device ipad
            volume 1.0
            headphones 1.0
            start buttons &
            wait 0.4
            route receiver
            wait 0.3
            hold down 0.9250328380762889
            wait 0.1
            press up x4 every 0.1732661801035184
            wait 1
            stop
            """
        let runner = ScenarioRunner(
            scenario: try Scenario(parsing: script), strategy: .systemNotification, behaviour: .sample(73584))
        runner.run()
        #expect(runner.device.log.contains { if case .setIgnored = $0 { true } else { false } }, "the first reset lost")
        let verdict = try #require(runner.verdict)
        #expect(verdict.violations.isEmpty, "\(verdict.violations)")
    }
}
