import Foundation
import TestSupport
import Testing
import VolumeKitCore
import VolumeKitTesting

/// An app that answers ``VolumeDriveDiagnostic/targetUnavailable(_:)`` by starting the drive again (a retry
/// button, or an automatic retry) must get a drive that works: capture held, presses reaching the speaker,
/// the phone's volume left alone.
@Suite("Starting the drive again after its target failed")
struct VolumeDriveRestartTests {
    private struct Setup {
        let device: SimulatedDevice
        let speaker: SteppedSpeaker
        let recorder: HUDRecorder
        let diagnostics: Locked<[VolumeDriveDiagnostic]>
        let drive: VolumeDriveEngine
        let restartErrors: Locked<[String]>
    }

    /// A drive whose first target start fails; `restartFromDiagnostic` starts it again from the diagnostic.
    private func setup(restartFromDiagnostic: Bool) -> Setup {
        let device = SimulatedDevice()
        let speaker = SteppedSpeaker(level: 8, clock: device.clock)
        speaker.failNextStart(SpeakerOffline())
        let recorder = HUDRecorder()
        let hud = recorder.engine(VolumeHUDOptions(levelSource: .external, language: .english), clients: device.clients)
        let diagnostics = Locked([VolumeDriveDiagnostic]())
        let restartErrors = Locked([String]())
        let box = Locked<VolumeDriveEngine?>(nil)
        let drive = VolumeDriveEngine(target: speaker, hud: hud, clients: device.clients) { diagnostic in
            diagnostics.withLock { $0.append(diagnostic) }
            guard restartFromDiagnostic, case .targetUnavailable = diagnostic, let drive = box.current else { return }
            do { try drive.start() } catch { restartErrors.withLock { $0.append(String(describing: error)) } }
        }
        box.withLock { $0 = drive }
        return Setup(
            device: device, speaker: speaker, recorder: recorder, diagnostics: diagnostics, drive: drive,
            restartErrors: restartErrors)
    }

    /// Presses up once and checks the new run drives the speaker while the phone's volume stays the user's.
    private func expectWorkingRun(_ s: Setup) async {
        #expect(s.drive.isRunning)
        #expect(await eventually(s.device) { s.drive.targetLevel != nil })
        // At half volume capture makes no set: it claims the view VolumeViewReadiness.slowest after installing it.
        await pass(VolumeViewReadiness.slowest, on: s.device)
        #expect(s.drive.isCapturing)
        s.device.press(.up)
        await pass(0.3, on: s.device)
        #expect(await eventually(s.device) { s.speaker.wanted == 9 }, "\(s.speaker.wanted)")
        #expect(s.device.volume == 0.5, "the press changed the phone's volume: capture is dead")
        #expect(await eventually(s.device) { s.recorder.shownLevels == [Float(9) / 16] }, "\(s.recorder.shownLevels)")
        s.drive.stop()
        await pass(1, on: s.device)
        #expect(s.device.volume == 0.5)
        #expect(s.device.volumeViewCount == 0)
    }

    @Test("starting again from the targetUnavailable diagnostic gives a run whose capture works")
    func restartFromDiagnostic() async throws {
        let s = setup(restartFromDiagnostic: true)
        try s.drive.start()
        await pass(0.5, on: s.device, until: { s.speaker.calls == ["start", "stop", "start"] })
        #expect(s.speaker.calls == ["start", "stop", "start"])
        #expect(s.diagnostics.current == [.targetUnavailable("connection refused")])
        #expect(s.restartErrors.current.isEmpty)
        await expectWorkingRun(s)
        #expect(s.speaker.calls == ["start", "stop", "start", "stop"])
    }

    @Test("starting again as soon as the drive reports it is no longer running gives a run whose capture works")
    func restartOnceStopped() async throws {
        let s = setup(restartFromDiagnostic: false)
        try s.drive.start()
        // The app polls `isRunning` and restarts the moment it drops.
        await pass(0.5, on: s.device, until: { !s.drive.isRunning })
        #expect(!s.drive.isRunning)
        try s.drive.start()
        await expectWorkingRun(s)
        #expect(s.diagnostics.current == [.targetUnavailable("connection refused")])
        #expect(s.speaker.calls == ["start", "stop", "start", "stop"])
    }
}
