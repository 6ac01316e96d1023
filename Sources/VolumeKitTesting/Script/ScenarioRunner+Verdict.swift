import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The runner's side of the oracle: VolumeKit's diagnostics as they come, the windows capture ran in, and the
/// verdict at the end (``PressOracle``).
extension ScenarioRunner {
    /// Records each diagnostic VolumeKit raises, with when it reached the app: shown, and kept for the oracle.
    func diagnosticRecorder(_ device: SimulatedDevice) -> @Sendable (VolumeButtonsDiagnostic) -> Void {
        let records = records
        let observed = observed
        return { [unowned device] diagnostic in
            let record = PressOracle.Diagnostic(diagnostic, at: device.now)
            records.withLock { $0.append(ScenarioRecord(time: record.time, kind: .diagnostic(record))) }
            observed.withLock { $0.diagnostics.append(record) }
        }
    }

    /// Closes the window capture ran in (a stop, a crash, a launch or the end of the script).
    func endCaptureWindow() {
        guard let since = captureSince else { return }
        captureSince = nil
        captureWindows.append(since..<device.now)
        device.setCaptureClaim(nil)
        device.markDisturbance()
    }

    /// The oracle's judgment of the run.
    func judge(_ device: SimulatedDevice) -> Verdict {
        let windows = captureWindows + (captureSince.map { [$0..<device.now] } ?? [])
        let seen = observed.current
        return oracle.judge(
            truth: device.truth, events: seen.events, diagnostics: seen.diagnostics,
            run: PressOracle.Run(observing: device, strategy: strategy, captureWindows: windows),
            finalVolume: finalVolumeCheck?(device) ?? [])
    }
}
