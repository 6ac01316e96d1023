import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// A camera screen's own session, as camera apps set it up: `.playAndRecord` in mode `.videoRecording`.
private let cameraSession = AudioSessionConfiguration(
    category: .playAndRecord, options: [.mixWithOthers, .allowBluetoothA2DP, .defaultToSpeaker])

/// A buttons engine on a simulated device, with what the app received.
private final class Capture: @unchecked Sendable {
    let device: SimulatedDevice
    let engine: VolumeButtonsEngine
    let events = Locked([VolumeButtonEvent]())
    let diagnostics = Locked([VolumeButtonsDiagnostic]())

    /// An engine on `device`, or on `clients` when given (the device's, some replaced).
    init(
        _ device: SimulatedDevice, _ configuration: VolumeButtonsConfiguration = .init(),
        clients: VolumeKitClients? = nil
    ) {
        self.device = device
        let events = self.events
        let diagnostics = self.diagnostics
        engine = VolumeButtonsEngine(
            configuration: configuration, clients: clients ?? device.clients,
            onEvent: { event in events.withLock { $0.append(event) } },
            onDiagnostic: { diagnostic in diagnostics.withLock { $0.append(diagnostic) } })
    }

    var pressed: [VolumeButton] { events.current.filter { $0.phase == .pressed }.map(\.button) }

    /// Session calls the app made (VolumeKit on its behalf): activations and deactivations it asked for.
    var sessionCalls: Int {
        device.log.filter {
            switch $0 {
            case .sessionActivated, .sessionDeactivated(_, bySystem: false, _): true
            default: false
            }
        }.count
    }
}

@Suite("Camera apps keep their audio session (issue 13 item 1)")
struct CameraSessionTests {
    @Test("captureEvents takes no audio session: no activation, no category, nothing deactivated, through a session")
    func captureEventsTakesNoSession() throws {
        let device = SimulatedDevice()
        // The camera runs with its own session (video only: the audio session is left inactive).
        device.startCamera(configuresSession: false)
        let clients = readOnlySession(device.clients, "captureEvents takes no audio session")
        let capture = Capture(device, .init(strategy: .captureEvents), clients: clients)
        try capture.engine.start()
        device.advance(by: 0.5)
        device.press(.up)
        device.advance(by: 0.5)
        device.interruption(began: true)
        device.interruption(began: false)
        device.background()
        device.foreground()
        device.advance(by: 0.5)
        device.press(.down)
        device.advance(by: 0.5)
        capture.engine.stop()
        device.advance(by: 1)
        #expect(capture.pressed == [.up, .down])
        #expect(capture.sessionCalls == 0, "VolumeKit never activated nor deactivated the session")
        #expect(!device.isSessionActive)
        #expect(device.sessionConfiguration == .systemDefault, "the category is the app's, untouched")
        #expect(device.volume == 0.5)
    }

    @Test("captureEvents under a recording camera session: its category, mode, options and activation stay")
    func captureEventsUnderRecordingSession() throws {
        let device = SimulatedDevice()
        try device.configureAppSession(cameraSession, mode: .videoRecording)
        device.startCamera(configuresSession: false)
        let before = device.log.count
        let capture = Capture(device, .init(strategy: .captureEvents))
        try capture.engine.start()
        device.advance(by: 0.5)
        device.press(.up)
        device.advance(by: 0.5)
        capture.engine.stop()
        device.advance(by: 1)
        #expect(capture.pressed == [.up])
        #expect(device.isSessionActive)
        #expect(device.sessionConfiguration == cameraSession)
        #expect(device.sessionMode == .videoRecording)
        let after = device.log.dropFirst(before).filter {
            if case .sessionDeactivated = $0 { true } else { false }
        }
        #expect(after.isEmpty)
    }

    @Test(
        "The volume strategies on a .playAndRecord/.videoRecording session: category, mode and options kept, only activated, never deactivated",
        arguments: [
            VolumeButtonsConfiguration(),
            VolumeButtonsConfiguration(strategy: .systemNotification, allowsPrivateAPI: true),
            VolumeButtonsConfiguration(mode: .passive),
        ])
    func volumeStrategiesKeepCameraSession(configuration: VolumeButtonsConfiguration) throws {
        let device = SimulatedDevice()
        // The app set its session up and activates it only when recording starts: VolumeKit activates it.
        try device.configureAppSession(cameraSession, mode: .videoRecording, activates: false)
        let capture = Capture(device, configuration)
        // Setting `.playback` under `.videoRecording` fails (incompatibleCategory): start would throw.
        try capture.engine.start()
        device.advance(by: 1)
        #expect(device.isSessionActive)
        #expect(device.sessionConfiguration == cameraSession)
        device.press(.up)
        device.advance(by: 1)
        #expect(capture.pressed == [.up])
        capture.engine.stop()
        device.advance(by: 1)
        #expect(device.sessionConfiguration == cameraSession)
        #expect(device.sessionMode == .videoRecording)
        #expect(device.isSessionActive, "a recording session is never deactivated")
        #expect(!device.log.contains { if case .sessionDeactivated = $0 { true } else { false } })
        if configuration.mode == .capture { #expect(device.volume == 0.5, "the user's volume is back") }
    }

    @Test("A session VolumeKit set up, that a camera then took over to record, is left recording on stop")
    func takenOverSessionStaysRecording() throws {
        let device = SimulatedDevice()
        let capture = Capture(device)
        try capture.engine.start()
        device.advance(by: 1)
        #expect(device.sessionConfiguration == .playbackMixing)
        device.startCamera()
        device.advance(by: 1)
        capture.engine.stop()
        device.advance(by: 1)
        #expect(device.sessionConfiguration == SessionComponent.camera.configuration)
        #expect(device.isSessionActive)
        #expect(device.volume == 0.5)
    }
}

@Suite("Deactivation does not race the primer (issue 13 item 8)")
struct PrimerRaceTests {
    @Test("Stopping while the primer plays: the refused deactivation is tried again, the session ends inactive")
    func stopDuringPrimer() throws {
        let device = SimulatedDevice()
        let capture = Capture(device)
        try capture.engine.start()
        device.advance(by: 0.02)  // the 50 ms primer still plays; the view is not ready yet
        capture.engine.stop()
        #expect(device.isSessionActive, "deactivation during running I/O fails (isBusy)")
        device.advance(by: 1)
        #expect(!device.isSessionActive, "VolumeKit activated it, so VolumeKit deactivates it")
        #expect(device.sessionConfiguration == .systemDefault)
    }

    @Test("A stop right after a foreground re-primes: the session is still given back")
    func stopAfterForegroundPrime() throws {
        let device = SimulatedDevice()
        let capture = Capture(device)
        try capture.engine.start()
        device.advance(by: 1)
        device.background()
        device.advance(by: 1)
        device.foreground()
        device.advance(by: 0.01)
        capture.engine.stop()
        device.advance(by: 1)
        #expect(!device.isSessionActive)
        #expect(device.volume == 0.5)
    }

    @Test("The Ring/Silent monitor stopped while the primer plays gives the session back too")
    func muteStopDuringPrimer() {
        let device = SimulatedDevice()
        let mute = MuteSwitchEngine(soundURL: URL(fileURLWithPath: "/probe.caf"), clients: device.clients)
        mute.start()
        device.advance(by: 0.01)
        mute.stop()
        device.advance(by: 1)
        #expect(!device.isSessionActive)
        #expect(device.sessionConfiguration == .systemDefault)
    }

    @Test("A pending retry does not deactivate a session a new start joined meanwhile")
    func restartCancelsRetry() throws {
        let device = SimulatedDevice()
        let capture = Capture(device)
        try capture.engine.start()
        device.advance(by: 0.02)
        capture.engine.stop()
        try capture.engine.start()
        device.advance(by: 1)
        #expect(device.isSessionActive)
        #expect(capture.engine.isCapturing)
        device.press(.up)
        device.advance(by: 1)
        #expect(capture.pressed == [.up])
        capture.engine.stop()
        device.advance(by: 1)
        #expect(!device.isSessionActive)
    }
}

@Suite("Media services reset (issue 13 item 5)")
struct MediaServicesResetTests {
    @Test("After a reset the buttons set the category again, re-activate and re-prime: presses are captured again")
    func buttonsRecover() throws {
        let device = SimulatedDevice()
        let capture = Capture(device)
        try capture.engine.start()
        device.advance(by: 1)
        device.press(.up)
        device.advance(by: 1)
        device.resetMediaServices()
        device.advance(by: 1)
        #expect(device.sessionConfiguration == .playbackMixing)
        #expect(device.isSessionActive)
        device.press(.down)
        device.advance(by: 1)
        device.press(.up)
        device.advance(by: 1)
        #expect(capture.pressed == [.up, .down, .up])
        #expect(!device.log.contains { if case .systemHUD = $0 { true } else { false } })
        capture.engine.stop()
        device.advance(by: 1)
        #expect(device.volume == 0.5)
        #expect(!device.isSessionActive)
    }

    @Test("captureEvents keeps capturing across a reset, and still takes no session")
    func captureEventsRecover() throws {
        let device = SimulatedDevice()
        device.startCamera(configuresSession: false)
        let clients = readOnlySession(device.clients, "captureEvents takes no audio session, even after a reset")
        let capture = Capture(device, .init(strategy: .captureEvents), clients: clients)
        try capture.engine.start()
        device.advance(by: 0.5)
        device.resetMediaServices()
        device.advance(by: 0.5)
        device.press(.up)
        device.advance(by: 0.5)
        #expect(capture.pressed == [.up])
        #expect(capture.sessionCalls == 0)
        capture.engine.stop()
    }

    @Test("The Ring/Silent monitor re-activates its session after a reset")
    func muteRecovers() throws {
        let device = SimulatedDevice()
        let mute = MuteSwitchEngine(soundURL: URL(fileURLWithPath: "/probe.caf"), clients: device.clients)
        mute.start()
        device.advance(by: 0.5)
        let configuration = device.sessionConfiguration
        device.resetMediaServices()
        device.advance(by: 0.5)
        #expect(device.isSessionActive)
        #expect(device.sessionConfiguration == configuration)
        mute.stop()
    }

    @Test("A HUD that activates its session re-activates it after a reset, and then follows the volume again")
    func hudRecovers() throws {
        let device = SimulatedDevice(.init(volume: 0.5))
        let hud = VolumeHUDEngine(options: VolumeHUDOptions(activatesAudioSession: true), clients: device.clients) {
            _, _ in
        }
        hud.start()
        device.advance(by: 0.5)
        device.resetMediaServices()
        device.advance(by: 0.5)
        #expect(device.isSessionActive)
        device.controlCenterSlider(0.25)
        device.advance(by: 1)
        #expect(hud.display.level == 0.25, "KVO is live again: the HUD sees the user's change")
        hud.stop()
        device.advance(by: 1)
        #expect(!device.isSessionActive)
    }

    @Test("`media reset` in a script: capture goes on after it")
    func scriptCommand() throws {
        let scenario = try Scenario(
            parsing: """
                start
                press up
                media reset
                wait 1
                press down
                stop
                """)
        #expect(scenario.lines.contains { $0.command == .mediaReset })
        let records = ScenarioRunner(scenario: scenario, strategy: .outputVolume).run()
        let pressed = records.compactMap { record -> VolumeButton? in
            if case .button(let button, .pressed) = record.kind { return button }
            return nil
        }
        #expect(pressed == [.up, .down])
        #expect(throws: ScenarioError.self) { try Scenario(parsing: "media restart") }
    }
}
