import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// What an app's HUD showed and said, as the engine reported it.
final class HUDRecorder: Sendable {
    let displays = Locked([(display: VolumeHUDDisplay, time: Instant)]())
    let announcements = Locked([String]())
    let diagnostics = Locked([VolumeHUDDiagnostic]())

    /// The levels shown while visible, in order.
    var shownLevels: [Float] { displays.current.filter(\.display.isVisible).map(\.display.level) }
    var last: VolumeHUDDisplay? { displays.current.last?.display }

    func engine(_ options: VolumeHUDOptions = VolumeHUDOptions(language: .english), clients: VolumeKitClients)
        -> VolumeHUDEngine
    {
        VolumeHUDEngine(
            options: options,
            clients: clients,
            onDisplay: { [displays] display, time in displays.withLock { $0.append((display, time)) } },
            onAnnouncement: { [announcements] text in announcements.withLock { $0.append(text) } },
            onDiagnostic: { [diagnostics] diagnostic in diagnostics.withLock { $0.append(diagnostic) } }
        )
    }
}

/// Button capture as an app runs it next to the HUD: the engine (which reports its hold to the HUD itself).
final class CaptureApp: Sendable {
    let engine: VolumeButtonsEngine
    let events = Locked([VolumeButtonEvent]())

    init(
        _ configuration: VolumeButtonsConfiguration = VolumeButtonsConfiguration(), clients: VolumeKitClients,
        hud: VolumeHUDEngine? = nil
    ) {
        let events = self.events
        engine = VolumeButtonsEngine(
            configuration: configuration,
            clients: clients,
            onEvent: { event in
                events.withLock { $0.append(event) }
                hud?.handle(event)
            }
        )
    }

    func start() throws { try engine.start() }

    func stop() { engine.stop() }
}

@Suite("VolumeHUDEngine on the simulated device")
struct VolumeHUDEngineTests {
    @Test("alone, it follows the user's presses, hides 1.5 s after the last, and hides the system HUD")
    func followsPresses() {
        let device = SimulatedDevice()
        let recorder = HUDRecorder()
        let hud = recorder.engine(
            VolumeHUDOptions(activatesAudioSession: true, language: .english), clients: device.clients)
        hud.start()
        device.advance(by: 0.5)
        #expect(hud.isSystemHUDSuppressed)
        device.press(.up)
        device.advance(by: 0.3)
        #expect(recorder.last == VolumeHUDDisplay(isVisible: true, level: 0.5625))
        #expect(recorder.announcements.current == ["Volume 56 percent"])
        device.advance(by: 1)
        #expect(recorder.last?.isVisible == true)
        device.advance(by: 0.3)
        #expect(recorder.last == .hidden(level: 0.5625))
        #expect(device.systemHUDTimes.isEmpty)
        hud.stop()
        // The HUD owned the session (the app left the default category): it is given back.
        #expect(!device.isSessionActive)
        #expect(device.volumeViewCount == 0)
    }

    @Test("with capture holding the volume, presses never show VolumeKit's anchor or its nudges")
    func captureHidesAnchor() throws {
        let device = SimulatedDevice()
        let recorder = HUDRecorder()
        let hud = recorder.engine(
            VolumeHUDOptions(activatesAudioSession: true, language: .english), clients: device.clients)
        hud.start()
        let app = CaptureApp(clients: device.clients, hud: hud)
        try app.start()
        // At half volume capture makes no set: it claims the view VolumeViewReadiness.slowest after installing it.
        device.advance(by: VolumeViewReadiness.slowest)
        #expect(app.engine.isCapturing)
        for _ in 0..<5 {
            device.press(.up)
            device.advance(by: 0.3)
        }
        device.hold(.down, for: 1.5)
        device.advance(by: 2)
        #expect(app.events.current.count > 5)
        #expect(recorder.shownLevels.isEmpty, "shown: \(recorder.shownLevels)")
        #expect(hud.display.level == 0.5)
        app.stop()
        device.advance(by: 1)
        #expect(device.volume == 0.5)
        #expect(recorder.shownLevels.isEmpty)
        // Capture let go (the HUD keeps the session active): the user's own presses show again.
        device.press(.down)
        device.advance(by: 0.3)
        #expect(recorder.shownLevels == [0.4375])
        hud.stop()
    }

    @Test("a bare engine that the app wires to nothing still hands its hold to the HUD: no anchor level shows")
    func handOffNeedsNoWiring() throws {
        let device = SimulatedDevice()
        let recorder = HUDRecorder()
        let hud = recorder.engine(clients: device.clients)
        hud.start()
        // Before the engine reported its own hold, this run showed the anchor (0.625) and its nudges.
        let engine = VolumeButtonsEngine(clients: device.clients, onEvent: { _ in })
        try engine.start()
        device.advance(by: 0.5)
        device.press(.up)
        device.advance(by: 0.5)
        #expect(!recorder.shownLevels.contains { $0 != 0.5 }, "shown \(recorder.shownLevels); the user's level is 0.5")
        engine.stop()
        hud.stop()
    }

    @Test("while capture holds, the user's level on a new route shows, and a Control Center change is kept")
    func userLevelDuringCapture() throws {
        let device = SimulatedDevice(.init(volume: 0.5, headphonesVolume: 0.25))
        let recorder = HUDRecorder()
        let hud = recorder.engine(clients: device.clients)
        hud.start()
        let app = CaptureApp(clients: device.clients, hud: hud)
        try app.start()
        device.advance(by: 0.5)
        device.connect(.headphones)
        device.advance(by: 0.5)
        #expect(recorder.shownLevels == [0.25])
        device.controlCenterSlider(0.75)
        device.advance(by: 1)
        // Control Center made the app inactive: the HUD stayed hidden but knows the user's new level.
        #expect(recorder.shownLevels == [0.25])
        #expect(hud.display.level == 0.75)
        device.press(.up)
        device.advance(by: 0.5)
        #expect(recorder.shownLevels == [0.25])
        app.stop()
        device.advance(by: 1)
        #expect(device.volume == 0.75)
        hud.stop()
    }

    @Test("a HUD started while capture already holds begins at the user's level, not the anchor")
    func startsDuringCapture() throws {
        let device = SimulatedDevice(.init(volume: 1))
        let app = CaptureApp(clients: device.clients)
        try app.start()
        device.advance(by: 0.5)
        #expect(device.volume < 1)
        let recorder = HUDRecorder()
        let hud = recorder.engine(
            VolumeHUDOptions(levelSource: .systemVolume, language: .english), clients: device.clients)
        hud.start()
        #expect(hud.display.level == 1)
        app.stop()
        device.advance(by: 1)
        #expect(recorder.shownLevels.isEmpty)
        hud.stop()
    }

    @Test("in passive mode presses are the user's: the HUD follows them and bumps at the rail")
    func passive() throws {
        let device = SimulatedDevice(.init(volume: 0.9375))
        let recorder = HUDRecorder()
        let hud = recorder.engine(clients: device.clients)
        hud.start()
        let app = CaptureApp(VolumeButtonsConfiguration(mode: .passive), clients: device.clients, hud: hud)
        try app.start()
        device.advance(by: 0.5)
        device.press(.up)
        device.advance(by: 0.3)
        #expect(recorder.shownLevels == [1])
        app.stop()
        device.advance(by: 0.5)
        // A press at the rail moves nothing; an app feeding its events gets the bump.
        hud.handle(VolumeButtonEvent(button: .up, phase: .pressed, time: device.now))
        #expect(recorder.last == VolumeHUDDisplay(isVisible: true, level: 1, bump: .maximum))
        #expect(recorder.announcements.current.last == "Volume 100 percent, maximum")
        hud.stop()
    }

    @Test("an external level source shows only the levels given, with the bump from button events")
    func externalSource() {
        let device = SimulatedDevice()
        let recorder = HUDRecorder()
        let hud = recorder.engine(
            VolumeHUDOptions(levelSource: .external, activatesAudioSession: true, language: .korean),
            clients: device.clients)
        hud.start()
        device.advance(by: 0.5)
        device.press(.up)
        device.advance(by: 0.5)
        #expect(recorder.shownLevels.isEmpty)
        hud.show(level: 1)
        hud.handle(VolumeButtonEvent(button: .up, phase: .pressed, time: 0))
        #expect(recorder.last == VolumeHUDDisplay(isVisible: true, level: 1, bump: .maximum))
        #expect(recorder.announcements.current == ["음량 100%", "음량 100%, 최대"])
        hud.stop()
    }

    @Test("resigning active hides it at once; it ignores the volume while inactive and does not pop up on return")
    func lifecycle() {
        let device = SimulatedDevice()
        let recorder = HUDRecorder()
        let hud = recorder.engine(VolumeHUDOptions(activatesAudioSession: true), clients: device.clients)
        hud.start()
        device.advance(by: 0.5)
        device.press(.up)
        device.advance(by: 0.2)
        device.controlCenterSlider(0.2)
        device.advance(by: 0.1)
        #expect(recorder.last == .hidden(level: 0.5625))
        device.advance(by: 1)
        #expect(recorder.shownLevels == [0.5625])
        #expect(hud.display.level == 0.2)
        hud.stop()
    }

    @Test("with session activation it re-activates after an interruption without an end, on foreground")
    func reactivates() {
        let device = SimulatedDevice()
        let recorder = HUDRecorder()
        let hud = recorder.engine(VolumeHUDOptions(activatesAudioSession: true), clients: device.clients)
        hud.start()
        device.advance(by: 0.5)
        device.interruption(began: true)
        #expect(!device.isSessionActive)
        device.background()
        device.advance(by: 1)
        device.foreground()
        device.advance(by: 0.5)
        #expect(device.isSessionActive)
        device.press(.down)
        device.advance(by: 0.3)
        #expect(recorder.shownLevels == [0.4375])
        hud.stop()
    }

    @Test("stopping the HUD leaves the session to capture, which still holds it")
    func sharesSession() throws {
        let device = SimulatedDevice()
        let hud = HUDRecorder().engine(VolumeHUDOptions(activatesAudioSession: true), clients: device.clients)
        hud.start()
        let app = CaptureApp(clients: device.clients)
        try app.start()
        device.advance(by: VolumeViewReadiness.slowest)
        hud.stop()
        #expect(device.isSessionActive)
        #expect(app.engine.isCapturing)
        device.press(.up)
        device.advance(by: 0.3)
        #expect(device.systemHUDTimes.isEmpty)
        app.stop()
        device.advance(by: 1)
        #expect(!device.isSessionActive)
    }

    @Test("no volume view ready in time: a diagnostic, and suppression once it arrives late")
    func readinessDiagnostic() {
        let device = SimulatedDevice()
        var clients = device.clients
        let pending = Locked<(@Sendable () -> Void)?>(nil)
        // A volume view that finds no window (a permission alert, launch into the background): ready only later.
        clients.systemVolume.installVolumeView = { onReady in
            pending.withLock { $0 = onReady }
            return .none
        }
        let recorder = HUDRecorder()
        let hud = recorder.engine(VolumeHUDOptions(readinessTimeout: 2), clients: clients)
        hud.start()
        device.advance(by: 1.9)
        #expect(recorder.diagnostics.current.isEmpty)
        device.advance(by: 0.2)
        #expect(recorder.diagnostics.current == [.volumeViewNotReady(after: 2)])
        #expect(!hud.isSystemHUDSuppressed)
        pending.current?()
        #expect(hud.isSystemHUDSuppressed)
        #expect(VolumeHUDDiagnostic.volumeViewNotReady(after: 2).description.contains("after 2 s"))
        hud.stop()
    }

    @Test("a view ready in time reports nothing")
    func readinessInTime() {
        let device = SimulatedDevice()
        let recorder = HUDRecorder()
        let hud = recorder.engine(VolumeHUDOptions(readinessTimeout: 1), clients: device.clients)
        hud.start()
        device.advance(by: 3)
        #expect(recorder.diagnostics.current.isEmpty)
        hud.stop()
    }
}

@Suite("The hold hand-off between capture and the HUD")
struct VolumeHoldTests {
    @Test("one board per app process: the same for every clients value, a new one after a relaunch")
    func boardPerProcess() {
        let device = SimulatedDevice()
        let first = device.clients.holdBoard
        #expect(device.clients.holdBoard === first)
        device.crash()
        device.launch()
        #expect(device.clients.holdBoard !== first)
        #expect(SimulatedDevice().clients.holdBoard !== first)
    }

    @Test("holds nest, and the user's level is known only while held")
    func nesting() {
        let board = VolumeHoldBoard()
        let seen = Locked([VolumeHoldEvent]())
        let observation = board.observe { event in seen.withLock { $0.append(event) } }
        board.publish(.began(userVolume: 0.5))
        board.publish(.began(userVolume: nil))
        board.publish(.userVolume(0.25, byUser: true))
        board.publish(.ended(userVolume: nil))
        #expect(board.isHeld)
        #expect(board.heldUserVolume == 0.25)
        board.publish(.ended(userVolume: nil))
        #expect(!board.isHeld)
        #expect(board.heldUserVolume == nil)
        // An end without a hold, or a level while nobody holds, is ignored.
        board.publish(.ended(userVolume: 1))
        board.publish(.userVolume(1, byUser: true))
        observation.cancel()
        board.publish(.began(userVolume: 0.1))
        #expect(seen.current.count == 5)
    }

    @Test(
        "only configurations that move the volume report a hold",
        arguments: [
            (VolumeButtonsConfiguration(), true),
            (VolumeButtonsConfiguration(strategy: .systemNotification, allowsPrivateAPI: true), true),
            (VolumeButtonsConfiguration(mode: .passive), false),
            (VolumeButtonsConfiguration(strategy: .captureEvents), false),
        ])
    func whichConfigurationsHold(configuration: VolumeButtonsConfiguration, holds: Bool) {
        let device = SimulatedDevice()
        let reporter = VolumeHoldReporter(configuration: configuration, clients: device.clients)
        let board = device.clients.holdBoard
        reporter.started()
        #expect(board.isHeld == holds)
        #expect(board.isCapturingPresses == (configuration.mode == .capture))
        reporter.started()
        reporter.stopped()
        #expect(!board.isHeld)
        #expect(!board.isCapturingPresses)
    }

    @Test("with capture events the HUD follows the volume but shows no bump for the app's presses")
    func captureEventsNoBump() throws {
        let device = SimulatedDevice(.init(volume: 1))
        let recorder = HUDRecorder()
        let hud = recorder.engine(
            VolumeHUDOptions(activatesAudioSession: true, language: .english), clients: device.clients)
        hud.start()
        device.startCamera()  // capture events reach only an app whose camera runs
        let app = CaptureApp(VolumeButtonsConfiguration(strategy: .captureEvents), clients: device.clients, hud: hud)
        try app.start()
        device.advance(by: 0.5)
        device.press(.up)
        device.advance(by: 0.5)
        #expect(app.events.current.map(\.phase).contains(.pressed))
        #expect(recorder.displays.current.isEmpty)
        app.stop()
        device.advance(by: 0.5)
        hud.handle(VolumeButtonEvent(button: .up, phase: .pressed, time: device.now))
        #expect(recorder.last?.bump == .maximum)
        hud.stop()
    }
}

@Suite("ReadinessWatch")
struct ReadinessWatchTests {
    @Test("reports once when readiness is late, never when it comes in time or the watch is cancelled")
    func reports() {
        let device = SimulatedDevice()
        let late = Locked(0)
        let watch = ReadinessWatch(clock: device.clock)
        watch.start(timeout: 1) { late.withLock { $0 += 1 } }
        device.advance(by: 0.9)
        #expect(late.current == 0)
        device.advance(by: 0.2)
        #expect(late.current == 1)
        device.advance(by: 5)
        #expect(late.current == 1)
        watch.start(timeout: 1) { late.withLock { $0 += 1 } }
        device.advance(by: 0.5)
        watch.ready()
        #expect(watch.isReady)
        device.advance(by: 2)
        watch.start(timeout: 1) { late.withLock { $0 += 1 } }
        watch.cancel()
        device.advance(by: 2)
        #expect(late.current == 1)
    }
}
