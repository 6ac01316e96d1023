import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// The failures the envelope audit found, each on the device behaviour that shows it (issue 11, item 5).
@Suite("Correct across the envelope: known failures")
struct EnvelopeRegressionTests {
    /// A capture run on a device with `rules` ("name=value"), the app capturing with VolumeKit.
    final class Run: @unchecked Sendable {
        let device: SimulatedDevice
        let engine: VolumeButtonsEngine
        let events = Locked([VolumeButtonEvent]())
        let diagnostics = Locked([VolumeButtonsDiagnostic]())

        init(
            _ rules: [String], volume: Float = 0.5, headphones: Float = 0.5, kind: DeviceKind = .iphone,
            configuration: VolumeButtonsConfiguration = .init(), camera: Bool = false
        ) throws {
            let behaviour = try DeviceBehaviour(rules: rules)
            device = SimulatedDevice(
                .init(kind: kind, volume: volume, headphonesVolume: headphones, behaviour: behaviour))
            if camera { device.startCamera() }
            let events = self.events
            let diagnostics = self.diagnostics
            engine = VolumeButtonsEngine(
                configuration: configuration, clients: device.clients,
                onEvent: { event in events.withLock { $0.append(event) } },
                onDiagnostic: { diagnostic in diagnostics.withLock { $0.append(diagnostic) } })
            try engine.start()
            device.advance(by: 1.2)
        }

        var pressed: [VolumeButton] { events.current.filter { $0.phase == .pressed }.map(\.button) }
        var repeats: Int { events.current.filter { $0.phase == .repeated }.count }
        var pressHUDs: Int { device.log.filter { if case .systemHUD = $0 { true } else { false } }.count }

        func stop() {
            engine.stop()
            device.advance(by: 2)
        }
    }

    @Test(
        "Route KVO before the route notification (or none): no phantom presses, each route keeps the user's volume",
        arguments: ["afterKVO", "missing"])
    func routeKVOFirst(order: String) throws {
        let run = try Run(["routeNotification=\(order)"], volume: 0.875, headphones: 0.5)
        run.device.connect(.headphones)
        run.device.advance(by: 0.5)
        run.device.press(.up)
        run.device.advance(by: 0.5)
        #expect(run.pressed == [.up], "a 0.875 → 0.5 jump is not 6 down presses")
        run.stop()
        #expect(run.device.volume(on: .headphones) == 0.5)
        #expect(run.device.volume(on: .speaker) == 0.875)
    }

    @Test("Rounded reads: presses are classified with a tolerance and the user's volume comes back")
    func roundedReads() throws {
        let run = try Run(["stepQuantization=rounded"], volume: 1.0 / 3)
        for button in [VolumeButton.up, .down, .up, .down] {
            run.device.press(button)
            run.device.advance(by: 0.5)
        }
        run.device.advance(by: 1)
        #expect(run.pressed == [.up, .down, .up, .down])
        #expect(run.repeats == 0)
        run.stop()
        #expect(abs(run.device.volume - 1.0 / 3) < 1e-4)
    }

    @Test("Grid-snapped presses from an off-grid volume: every press counted once")
    func gridPresses() throws {
        let run = try Run(["stepQuantization=grid"], volume: 0.33)
        for _ in 0..<3 { run.device.press(.down); run.device.advance(by: 0.15) }
        run.device.advance(by: 1)
        for _ in 0..<3 { run.device.press(.up); run.device.advance(by: 0.15) }
        run.device.advance(by: 1)
        #expect(run.pressed == [.down, .down, .down, .up, .up, .up])
        #expect(run.pressHUDs == 0)
        run.stop()
        #expect(abs(run.device.volume - 0.33) < 1e-6)
    }

    @Test("A fast hold rhythm is one hold, not a train of presses")
    func fastHoldRhythm() throws {
        let run = try Run(["firstRepeatDelay=0.3", "repeatInterval=0.06"])
        run.device.hold(.up, for: 1.5)
        run.device.advance(by: 2.5)
        #expect(run.pressed == [.up])
        #expect(run.repeats >= 15)
        #expect(run.events.current.last?.phase == .released)
        run.stop()
        #expect(run.device.volume == 0.5)
    }

    @Test(
        "A home gesture and straight back at 0 or 1: no phantom presses, the user's volume kept",
        arguments: [Float(0), 1])
    func homeAndBack(volume: Float) throws {
        let run = try Run([], volume: volume)
        run.device.background()
        run.device.foreground()
        run.device.advance(by: 0.5)
        let button: VolumeButton = volume == 0 ? .down : .up
        run.device.press(button)
        run.device.advance(by: 1)
        #expect(run.pressed == [button])
        #expect(run.engine.userVolume == volume)
        run.stop()
        #expect(run.device.volume == volume)
    }

    @Test("Headphones plugged in while a reset is in flight: the speaker gets the user's volume back")
    func headphonesDuringReset() throws {
        let run = try Run(["kvoLatency=0", "sliderLatency=0.1"], volume: 0, headphones: 0.5)
        run.device.press(.down)
        run.device.advance(by: 0.02)
        run.device.connect(.headphones)
        run.device.advance(by: 0.5)
        run.device.connect(.speaker)
        run.device.advance(by: 0.5)
        run.stop()
        #expect(run.device.volume(on: .speaker) == 0)
        #expect(run.device.volume(on: .headphones) == 0.5)
    }

    /// The number of button steps the device made after `time`.
    private func stepsAfter(_ time: Instant, _ device: SimulatedDevice) -> Int {
        device.log.filter { if case .volume(let at, _, _, .button) = $0 { at > time } else { false } }.count
    }

    @Test("Stop during a hold: the steps after it are the user's, on their exact volume — no nudge left")
    func stopDuringHold() throws {
        let run = try Run([])
        run.device.hold(.down, for: 2)
        run.device.advance(by: 0.9)
        let stopped = run.device.now
        run.engine.stop()
        run.device.advance(by: 4)
        let steps = stepsAfter(stopped, run.device)
        #expect(steps > 0)
        #expect(run.device.volume == 0.5 - Float(steps) / 16)
    }

    @Test("Background during a hold: the steps while away are the user's, on their exact volume — no nudge left")
    func backgroundDuringHold() throws {
        let run = try Run([])
        run.device.hold(.down, for: 1.5)
        run.device.advance(by: 0.9)
        let left = run.device.now
        run.device.background()
        run.device.advance(by: 1)
        run.device.foreground()
        run.device.advance(by: 1)
        run.stop()
        let steps = stepsAfter(left, run.device)
        #expect(steps > 0)
        #expect(run.device.volume == 0.5 - Float(steps) / 16)
    }

    @Test("Dropped sets (a stale slider cache): the next opposite press is not taken for an echo")
    func droppedSets() throws {
        let run = try Run(["downPressRefusal=cachedEqualSetDrop", "volumeCacheDelay=0.1"])
        run.device.press(.up)
        run.device.advance(by: 0.15)
        run.device.press(.down)
        run.device.advance(by: 1)
        #expect(run.pressed == [.up, .down])
        run.stop()
        #expect(run.device.volume == 0.5)
    }

    @Test(
        "An interruption that never ends while the app stays in front: capture comes back by itself",
        arguments: ["idleButtons=media", "idleButtons=ringer"])
    func interruptionWithoutEnd(rule: String) throws {
        let run = try Run([rule])
        run.device.alarm(for: 2, sendsEnd: false)
        run.device.advance(by: 4)
        run.device.press(.up)
        run.device.advance(by: 1)
        #expect(run.pressed == [.up])
        #expect(run.pressHUDs == 0)
        run.stop()
        #expect(run.device.volume == 0.5)
    }

    @Test(
        "Another component takes the session over: VolumeKit re-takes it and says so",
        arguments: SessionComponent.allCases)
    func takeover(component: SessionComponent) throws {
        let run = try Run([])
        run.device.takeOverSession(by: component)
        run.device.advance(by: 0.5)
        run.device.press(.down)
        run.device.advance(by: 1)
        #expect(run.pressed == [.down])
        #expect(run.pressHUDs == 0)
        #expect(run.diagnostics.current.contains(.sessionTakenOver(component.configuration.category)))
        #expect(run.device.sessionConfiguration == component.configuration, "the component keeps the category it needs")
        run.stop()
        #expect(run.device.volume == 0.5)
    }

    @Test("Capture events without a running camera: VolumeKit detects and reports it")
    func captureEventsWithoutCamera() throws {
        let run = try Run([], configuration: .init(strategy: .captureEvents))
        // Capture events take no session: a press is seen moving the volume only through the app's own live one.
        try run.device.configureAppSession(.playbackMixing)
        run.device.clients.audioSession.primeOutput()
        run.device.press(.up)
        run.device.advance(by: 0.5)
        #expect(run.diagnostics.current.contains(.captureEventsNotDelivered))
        let camera = try Run([], configuration: .init(strategy: .captureEvents), camera: true)
        camera.device.press(.up)
        camera.device.advance(by: 0.5)
        #expect(camera.pressed == [.up])
        #expect(!camera.diagnostics.current.contains(.captureEventsNotDelivered))
    }
}

extension EnvelopeRegressionTests {
    @Test("A route change with no notification and no KVO (the new route at the held value) is followed at stop")
    func silentRouteChange() throws {
        // The speaker is held at 0.875 (the user's 1 less the headroom); the headphones are at 0.875 too.
        let run = try Run(["routeNotification=missing"], volume: 1, headphones: 0.875)
        run.device.connect(.headphones)
        run.device.advance(by: 0.5)
        run.stop()
        #expect(run.device.volume(on: .headphones) == 0.875, "the speaker's volume is not put on the headphones")
        run.device.connect(.speaker)
        let outcome = Locked<VolumeRecovery.Outcome?>(nil)
        VolumeRecovery.recoverIfNeeded(run.device.clients) { result in outcome.withLock { $0 = result } }
        run.device.advance(by: 0.6)
        #expect(run.device.volume(on: .speaker) == 1, "the speaker's record gives the user's volume back there")
    }
}

extension EnvelopeRegressionTests {
    @Test("A call right after returning from the background: the restore is not dropped by a stale slider cache")
    func restoreAtCallNotDropped() throws {
        // The slider's cache learns late of the landing of the background's restore (1.0) and still holds it when
        // the call comes: a lone set of 1.0 is dropped, leaving the anchor (0.875) as if it were the user's.
        let run = try Run(
            ["downPressRefusal=cachedEqualSetDrop", "volumeCacheDelay=0.1", "sliderLatency=0.15"], volume: 1)
        run.device.background()
        run.device.advance(by: 0.2)
        run.device.foreground()
        run.device.advance(by: 0.1)
        run.device.phoneCall(began: true)
        run.device.advance(by: 1)
        run.device.phoneCall(began: false)
        run.device.advance(by: 2)
        run.stop()
        #expect(run.device.volume == 1)
    }

    @Test("Control Center while a restore is on its way: the user's value wins over the set landing after it")
    func controlCenterDuringRestore() throws {
        var behaviour = DeviceBehaviour()
        try behaviour.set("sliderLatency=0.15")
        try behaviour.set("volumeViewReadyDelay=0.5")
        let device = SimulatedDevice(.init(volume: 1, behaviour: behaviour))
        let engine = VolumeButtonsEngine(configuration: .init(), clients: device.clients, onEvent: { _ in })
        try engine.start()
        device.advance(by: 0.3)
        // Control Center opens (the app inactive); the view gets ready meanwhile and VolumeKit's sets (the anchor,
        // then the user's 1.0 back) are on their way when the user's 0.49 arrives: they land after it.
        device.controlCenterSlider(0.49)
        device.advance(by: 2)
        engine.stop()
        device.advance(by: 2)
        #expect(device.volume == 0.49)
    }
}

extension EnvelopeRegressionTests {
    @Test("A grid-snapped press seen last before suspending is not the user's volume give or take a step's slack")
    func snappedPressThenPressWhileSuspended() {
        // Headroom 0: VolumeKit holds the user's off-grid 0.07 itself; a press snaps to 0.0625, 0.0075 from it.
        var machine = VolumeStepMachine(configuration: .init(headroomSteps: 0))
        _ = machine.start(volume: 0.07, at: 0)
        _ = machine.observe(0.0625, at: 1)
        _ = machine.suspend(at: 1.05)
        // Neither reset has landed: the device still shows 0.0625, and the user presses up from there.
        _ = machine.observe(0.125, at: 1.1)
        #expect(machine.userVolume == 0.125, "the press moved what the device showed, not 0.07 + 1/16")
    }
}
