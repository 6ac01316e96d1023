import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// The HUD's audio session with default options: a custom HUD in an app that plays no audio, as README's
/// `.volumeHUD(.island)` one-liner runs it (issue 26).
@Suite("The HUD's audio session")
struct HUDSessionTests {
    private func presses(_ count: Int, on device: SimulatedDevice) {
        for _ in 0..<count {
            device.press(.up)
            device.advance(by: 0.3)
        }
    }

    @Test("default options, no audio of the app's: the custom HUD shows, the system HUD does not, music keeps playing")
    func defaultOptionsSuppress() {
        let device = SimulatedDevice()
        device.isOtherAudioPlaying = true
        let recorder = HUDRecorder()
        let hud = recorder.engine(clients: device.clients)
        hud.start()
        device.advance(by: 0.5)
        #expect(hud.isSystemHUDSuppressed)
        presses(3, on: device)
        #expect(recorder.shownLevels == [0.5625, 0.625, 0.6875])
        #expect(device.systemHUDTimes.isEmpty, "system HUD at \(device.systemHUDTimes)")
        // A session that mixes: the music the user was playing goes on.
        #expect(device.sessionConfiguration == .playbackMixing)
        #expect(device.isOtherAudioPlaying)
        #expect(!device.log.contains { if case .otherAudioInterrupted = $0 { true } else { false } })
        #expect(recorder.diagnostics.current.isEmpty)
        hud.stop()
        // The app's default is given back, and so is the session.
        #expect(device.sessionConfiguration == .systemDefault)
        #expect(!device.isSessionActive)
    }

    @Test("an app with its own category keeps it untouched; the HUD says it cannot count on the session")
    func appOwnsSession() throws {
        let device = SimulatedDevice()
        try device.configureAppSession(AudioSessionConfiguration(category: .playback), activates: false)
        let recorder = HUDRecorder()
        let hud = recorder.engine(clients: device.clients)
        hud.start()
        device.advance(by: 0.5)
        #expect(!device.isSessionActive)
        #expect(!hud.isSystemHUDSuppressed)
        #expect(recorder.diagnostics.current == [.sessionNotLive(.appOwnsSession(.playback))])
        let sentence = VolumeHUDDiagnostic.sessionNotLive(.appOwnsSession(.playback)).description
        #expect(sentence.contains("own audio category (playback)") && sentence.contains("sessionActivation: .always"))
        hud.stop()
        #expect(device.sessionConfiguration == AudioSessionConfiguration(category: .playback))
    }

    @Test("sessionActivation .never touches nothing: the system HUD shows, and the HUD says so once")
    func never() {
        let device = SimulatedDevice()
        let recorder = HUDRecorder()
        var clients = device.clients
        clients.audioSession = unimplementedClients("sessionActivation .never touches no session").audioSession
        let hud = recorder.engine(VolumeHUDOptions(sessionActivation: .never, language: .english), clients: clients)
        hud.start()
        device.advance(by: 0.5)
        presses(2, on: device)
        #expect(!hud.isSystemHUDSuppressed)
        #expect(device.systemHUDTimes.count == 2)
        #expect(recorder.diagnostics.current == [.sessionNotLive(.activationOff)])
        #expect(device.sessionConfiguration == .systemDefault)
        hud.stop()
    }

    @Test("isSystemHUDSuppressed is false while an interruption holds the session, true again once re-activated")
    func interruptionHonesty() {
        let device = SimulatedDevice()
        let hud = HUDRecorder().engine(clients: device.clients)
        hud.start()
        device.advance(by: 0.5)
        #expect(hud.isSystemHUDSuppressed)
        device.interruption(began: true)
        #expect(!hud.isSystemHUDSuppressed)
        device.interruption(began: false)
        #expect(device.isSessionActive)
        #expect(hud.isSystemHUDSuppressed)
        hud.stop()
    }

    @Test("joining capture's session: the HUD is live with it, and stopping either leaves the other suppressing")
    func joinsCapture() throws {
        let device = SimulatedDevice()
        let app = CaptureApp(clients: device.clients)
        try app.start()
        device.advance(by: 0.5)
        let hud = HUDRecorder().engine(clients: device.clients)
        hud.start()
        device.advance(by: 0.5)
        #expect(hud.isSystemHUDSuppressed)
        app.stop()
        device.advance(by: 1)
        #expect(device.isSessionActive)
        #expect(hud.isSystemHUDSuppressed)
        device.press(.down)
        device.advance(by: 0.3)
        #expect(device.systemHUDTimes.isEmpty)
        hud.stop()
        #expect(!device.isSessionActive)
    }

    @Test("with its own non-mixing category, the HUD does not re-activate over music started while it was away")
    func reactivationOverOtherAudio() throws {
        let device = SimulatedDevice()
        try device.configureAppSession(AudioSessionConfiguration(category: .playback), activates: true)
        let recorder = HUDRecorder()
        let hud = recorder.engine(VolumeHUDOptions(activatesAudioSession: true), clients: device.clients)
        hud.start()
        device.advance(by: 0.5)
        #expect(hud.isSystemHUDSuppressed)
        device.background()
        device.advance(by: 5)
        device.isOtherAudioPlaying = true  // the user starts music in another app
        device.foreground()
        device.advance(by: 0.5)
        #expect(device.isOtherAudioPlaying)
        #expect(!device.log.contains { if case .otherAudioInterrupted = $0 { true } else { false } })
        #expect(!hud.isSystemHUDSuppressed)
        #expect(recorder.diagnostics.current == [.sessionNotLive(.reactivationHeld(.otherAudioPlaying(.playback)))])
        // The music stops; the next return makes the session live again.
        device.isOtherAudioPlaying = false
        device.background()
        device.advance(by: 5)
        device.foreground()
        device.advance(by: 0.5)
        #expect(hud.isSystemHUDSuppressed)
        hud.stop()
    }
}

@Suite("SessionReactivation")
struct SessionReactivationTests {
    private static let own = AudioSessionConfiguration(category: .playback)

    @Test(
        "a session that mixes is always activated again: it stops nothing",
        arguments: [
            AudioSessionConfiguration.playbackMixing, AudioSessionConfiguration(category: .ambient),
            AudioSessionConfiguration(category: .playAndRecord, options: .duckOthers),
            AudioSessionConfiguration(category: .playback, options: .interruptSpokenAudioAndMixWithOthers),
        ])
    func mixing(configuration: AudioSessionConfiguration) {
        for trigger in [SessionReactivation.Trigger.foreground, .interruptionEnded(shouldResume: false)] {
            #expect(
                SessionReactivation.decide(
                    trigger, configuration: configuration, isOtherAudioPlaying: true,
                    secondaryAudioShouldBeSilenced: true) == .activate)
        }
    }

    @Test("a non-mixing session waits while other audio plays, by either signal, and without shouldResume")
    func nonMixing() {
        func decide(_ trigger: SessionReactivation.Trigger, other: Bool, hint: Bool) -> SessionReactivation.Decision {
            SessionReactivation.decide(
                trigger, configuration: Self.own, isOtherAudioPlaying: other, secondaryAudioShouldBeSilenced: hint)
        }
        #expect(decide(.foreground, other: false, hint: false) == .activate)
        #expect(decide(.foreground, other: true, hint: false) == .wait(.otherAudioPlaying(.playback)))
        #expect(decide(.mediaServicesReset, other: false, hint: true) == .wait(.otherAudioPlaying(.playback)))
        #expect(decide(.interruptionEnded(shouldResume: true), other: false, hint: false) == .activate)
        #expect(
            decide(.interruptionEnded(shouldResume: false), other: false, hint: false)
                == .wait(.interruptionEndedWithoutResume(.playback)))
    }

    @Test("the sentences name the category and what to do")
    func sentences() {
        for hold in [
            SessionReactivationHold.otherAudioPlaying(.soloAmbient), .interruptionEndedWithoutResume(.soloAmbient),
        ] {
            #expect(hold.description.contains("soloAmbient") && hold.description.contains("mixWithOthers"))
        }
    }
}

extension HUDSessionTests {
    @Test("activating the app's own non-mixing session waits while music plays, and joins on a later return")
    func alwaysWaitsForMusic() throws {
        let device = SimulatedDevice()
        try device.configureAppSession(AudioSessionConfiguration(category: .playback), activates: false)
        device.isOtherAudioPlaying = true
        let recorder = HUDRecorder()
        let hud = recorder.engine(VolumeHUDOptions(sessionActivation: .always), clients: device.clients)
        hud.start()
        device.advance(by: 0.5)
        #expect(device.isOtherAudioPlaying)
        #expect(!device.isSessionActive)
        #expect(!hud.isSystemHUDSuppressed)
        #expect(recorder.diagnostics.current == [.sessionNotLive(.reactivationHeld(.otherAudioPlaying(.playback)))])
        device.isOtherAudioPlaying = false
        device.background()
        device.advance(by: 5)
        device.foreground()
        device.advance(by: 0.5)
        #expect(device.isSessionActive)
        #expect(hud.isSystemHUDSuppressed)
        hud.stop()
        #expect(device.sessionConfiguration == AudioSessionConfiguration(category: .playback))
    }
}
