import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Capture in an app with its own non-mixing `.playback` session: returning must not stop the audio the user
/// started meanwhile in another app (issue 26: re-activation ignored `shouldResume` and other audio).
@Suite("Re-activation respects other audio")
struct ReactivationRespectTests {
    final class Run: Sendable {
        let device = SimulatedDevice()
        let engine: VolumeButtonsEngine
        let events = Locked([VolumeButtonEvent]())
        let diagnostics = Locked([VolumeButtonsDiagnostic]())

        init(_ session: AudioSessionConfiguration) throws {
            try device.configureAppSession(session, activates: true)
            let events = self.events
            let diagnostics = self.diagnostics
            engine = VolumeButtonsEngine(
                clients: device.clients,
                onEvent: { event in events.withLock { $0.append(event) } },
                onDiagnostic: { diagnostic in diagnostics.withLock { $0.append(diagnostic) } })
            try engine.start()
            device.advance(by: 1.2)
        }

        var interruptedOthers: Bool {
            device.log.contains { if case .otherAudioInterrupted = $0 { true } else { false } }
        }
        var presses: Int { events.current.filter { $0.phase == .pressed }.count }
    }

    static let own = AudioSessionConfiguration(category: .playback)

    @Test("back in front with music playing: the session stays inactive, said once; the next return resumes capture")
    func foregroundOverMusic() throws {
        let run = try Run(Self.own)
        #expect(run.engine.isCapturing)
        run.device.background()
        run.device.advance(by: 5)
        run.device.isOtherAudioPlaying = true
        run.device.foreground()
        run.device.advance(by: 1)
        #expect(run.device.isOtherAudioPlaying)
        #expect(!run.interruptedOthers)
        #expect(!run.device.isSessionActive)
        guard case .sessionActivationFailed(let reason)? = run.diagnostics.current.last else {
            Issue.record("no diagnostic: \(run.diagnostics.current)")
            return
        }
        #expect(reason.contains("another app is playing audio"))
        #expect(run.diagnostics.current.count == 1)
        run.device.isOtherAudioPlaying = false
        run.device.background()
        run.device.advance(by: 5)
        run.device.foreground()
        run.device.advance(by: 1)
        #expect(run.device.isSessionActive)
        run.device.press(.up)
        run.device.advance(by: 0.5)
        #expect(run.presses == 1)
        run.engine.stop()
        run.device.advance(by: 2)
    }

    @Test("an interruption that ends without shouldResume leaves the session to the audio that interrupted it")
    func interruptionWithoutResume() throws {
        let run = try Run(Self.own)
        run.device.interruption(began: true)
        run.device.isOtherAudioPlaying = true
        run.device.interruption(began: false, shouldResume: false)
        run.device.advance(by: 1)
        #expect(!run.interruptedOthers)
        #expect(!run.device.isSessionActive)
        #expect(run.diagnostics.current.contains { if case .sessionActivationFailed = $0 { true } else { false } })
        run.engine.stop()
        run.device.advance(by: 2)
    }

    @Test("VolumeKit's own mixing session comes back at once, music or not")
    func mixingComesBack() throws {
        let run = try Run(.playbackMixing)
        run.device.background()
        run.device.advance(by: 5)
        run.device.isOtherAudioPlaying = true
        run.device.foreground()
        run.device.advance(by: 1)
        #expect(run.device.isSessionActive)
        #expect(run.device.isOtherAudioPlaying)
        run.device.press(.up)
        run.device.advance(by: 0.5)
        #expect(run.presses == 1)
        #expect(run.diagnostics.current.isEmpty)
        run.engine.stop()
        run.device.advance(by: 2)
    }
}
