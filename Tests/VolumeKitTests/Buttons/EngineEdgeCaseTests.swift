import Testing
import VolumeKitCore
import VolumeKitTesting

/// Cases a code review found by trying to break the engine, kept as regression tests.
@Suite("Capture engine edge cases")
struct EngineEdgeCaseTests {
    final class Events: Sendable {
        let list = Locked([VolumeButtonEvent]())
        var pressed: [VolumeButton] { list.current.filter { $0.phase == .pressed }.map(\.button) }
    }

    @Test("An engine the app lets go of right after stop() still restores the volume and removes its view")
    func releasedEngineFinishesItsStop() throws {
        let device = SimulatedDevice(.init(volume: 0.05))
        var engine: VolumeButtonsEngine? = VolumeButtonsEngine(clients: device.clients, onEvent: { _ in })
        try engine?.start()
        device.advance(by: 0.5)
        engine?.stop()
        engine = nil
        device.advance(by: 3)
        #expect(abs(device.volume - 0.05) < 1e-6)
        #expect(device.volumeViewCount == 0)
        #expect(!device.isSessionActive)
    }

    @Test("stop(onStopped:) always calls back: at once when not capturing, and a second stop when the first is done")
    func stopAlwaysCallsBack() throws {
        let device = SimulatedDevice(.init(volume: 0.05))
        // An engine never started has nothing to stop: its stop() touches no client.
        let started = Locked(false)
        let unexpected = failOnUnexpectedCall("an engine never started makes no call on stop()")
        let clients = device.clients.reportingCalls { call in if !started.current { unexpected(call) } }
        let engine = VolumeButtonsEngine(clients: clients, onEvent: { _ in })
        let calls = Locked([String]())
        engine.stop(onStopped: { calls.withLock { $0.append("never started") } })
        #expect(calls.current == ["never started"])
        started.withLock { $0 = true }
        try engine.start()
        device.advance(by: 0.5)
        engine.stop(onStopped: { calls.withLock { $0.append("first") } })
        engine.stop(onStopped: { calls.withLock { $0.append("second") } })
        // The restore from the anchor to 0.05 is still on its way: neither stop is done.
        #expect(calls.current == ["never started"])
        device.advance(by: 3)
        #expect(calls.current == ["never started", "first", "second"])
        #expect(abs(device.volume - 0.05) < 1e-6)
    }

    @Test("start() right after stop(), before the restore landed, captures and ends at the user's volume")
    func restartDuringStop() throws {
        let device = SimulatedDevice(.init(volume: 0.05))
        let events = Events()
        let engine = VolumeButtonsEngine(
            clients: device.clients, onEvent: { event in events.list.withLock { $0.append(event) } })
        try engine.start()
        device.advance(by: 0.5)
        engine.stop()
        try engine.start()
        device.advance(by: 0.5)
        device.press(.up)
        device.advance(by: 0.8)
        device.press(.up)
        device.advance(by: 1)
        engine.stop()
        device.advance(by: 2)
        #expect(events.pressed == [.up, .up])
        #expect(abs(device.volume - 0.05) < 1e-6)
        #expect(device.volumeViewCount == 0)
    }

    @Test("A press at the top rail after a hold whose resets were refused is still reported (private strategy)")
    func railPressAfterRefusedResets() throws {
        let script = "volume 1\nstart\nhold down 0.6\nwait 0.3\npress up\nwait 1\nstop"
        let records = ScenarioRunner(scenario: try Scenario(parsing: script), strategy: .systemNotification).run()
        let pressed = records.compactMap { record -> VolumeButton? in
            if case .button(let button, .pressed) = record.kind { return button } else { return nil }
        }
        #expect(pressed == [.down, .up])
    }

    @Test("Bad timing values are made sensible instead of trapping")
    func timingIsSanitised() {
        var classifier = PressClassifier(timing: ButtonTiming(firstRepeatDelay: 0, repeatInterval: 0, tolerance: 5))
        _ = classifier.buttonDown(.up, at: 0)
        let events = classifier.tick(at: 1)
        #expect(events.count <= PressClassifier.maximumCatchUp + 1)
        #expect(classifier.timing.tolerance < classifier.timing.repeatInterval / 2)
    }
}
