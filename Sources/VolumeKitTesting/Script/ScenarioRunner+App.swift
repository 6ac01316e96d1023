import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The app on the simulated device: its features started and stopped as a script says (buttons with the custom
/// HUD, the HUD alone, the mute monitor), and its launch code's recovery.
extension ScenarioRunner {
    /// The app also runs the mute monitor (default interval), reporting each change of state.
    func startMute(on device: SimulatedDevice) {
        let records = self.records
        let engine = MuteSwitchEngine(
            observesVolume: false,
            soundURL: URL(fileURLWithPath: "/VolumeKit.bundle/mute-probe.caf"),
            clients: clients(of: device, feature: "mute"),
            onChange: { [unowned device] change in
                records.withLock { $0.append(ScenarioRecord(time: device.now, kind: .mute(change.new))) }
            }
        )
        mute = engine
        appCalled("start", on: "mute")
        engine.start()
    }

    /// The app's launch code calls `VolumeKit.recoverVolumeIfNeeded()`; the script's next line comes after it.
    func recoverAtLaunch(on device: SimulatedDevice) {
        let done = Locked(false)
        VolumeRecovery.recoverIfNeeded(
            clients(of: device, feature: "recovery"), onDiagnostic: diagnosticRecorder(device)
        ) { _ in done.withLock { $0 = true } }
        advance(device, until: { done.current }, atMost: 2)
    }

    /// Lets virtual time pass in small steps until `condition` holds, for at most `seconds` — not at all for a
    /// line that runs the next at once (`start … &`, `launch &`).
    func advance(_ device: SimulatedDevice, until condition: () -> Bool, atMost seconds: TimeInterval) {
        guard !runsAtOnce else { return }
        let deadline = device.now + seconds
        while !condition(), device.now < deadline { device.advance(by: 0.01) }
    }

    func stopApp() {
        endCaptureWindow()
        for feature in runningFeatures.reversed() { traceRecorder?.appCalled("stop", on: feature) }
        runningFeatures = []
        mute?.stop()
        engine?.stop()
        baseline?.stop()
        hud?.stop()
        hud = nil
    }

    /// `start hud`: VolumeKit's HUD alone with default options, as an app writes README's `.volumeHUD(.island)`
    /// (no capture, no audio of the app's); the script's next line comes once the system HUD is hidden. Its
    /// clients are unrecorded (see ``traceOptions``): the trace notes the start.
    func startHUD(on device: SimulatedDevice) {
        traceRecorder?.mark("the app started VolumeKit's HUD alone")
        let hud = makeHUD(VolumeHUDOptions(language: .english), on: device)
        self.hud = hud
        hud.start()
        advance(device, until: { hud.isSystemHUDSuppressed }, atMost: 2)
    }

    /// The app's custom HUD: the same Core engine the iPhone runs (`VolumeHUD` is a shell over it), its displays
    /// recorded.
    func makeHUD(_ options: VolumeHUDOptions, on device: SimulatedDevice) -> VolumeHUDEngine {
        let records = self.records
        return VolumeHUDEngine(options: options, clients: device.clients) { display, time in
            records.withLock {
                $0.append(
                    ScenarioRecord(
                        time: time, kind: .hud(level: display.level, visible: display.isVisible, bump: display.bump)))
            }
        }
    }

    func startApp(on device: SimulatedDevice, withHUD: Bool = true) {
        let clients = clients(of: device, feature: "buttons")
        let records = self.records
        let recorder = traceRecorder
        let observed = self.observed
        let onEvent: @Sendable (VolumeButtonEvent) -> Void = { event in
            records.withLock { $0.append(ScenarioRecord(time: event.time, kind: .button(event.button, event.phase))) }
            observed.withLock { $0.events.append(event) }
            recorder?.buttonEvent(event)
        }
        captureSince = device.now
        device.markDisturbance()
        // An app capturing through AVCaptureEventInteraction is a camera app: its camera runs first.
        if strategy == .captureEvents, !device.isCameraRunning { device.startCamera() }
        guard let configuration = strategy.configuration else {
            let app = BaselineApp(clients: clients, onEvent: onEvent)
            baseline = app
            appCalled("start", on: "buttons")
            app.start()
            return
        }
        // Unrecorded: the HUD follows the same volume and session as the buttons (see ``traceOptions``), whose
        // hold on the session it shares without joining it (as before `start hud` existed).
        let hud = withHUD ? makeHUD(VolumeHUDOptions(sessionActivation: .never, language: .english), on: device) : nil
        self.hud = hud
        hud?.start()
        let engine = VolumeButtonsEngine(
            configuration: configuration,
            clients: clients,
            onEvent: { event in
                onEvent(event)
                hud?.handle(event)
            },
            onDiagnostic: diagnosticRecorder(device)
        )
        self.engine = engine
        device.setCaptureClaim { [weak engine] in engine?.isCapturing ?? false }
        appCalled("start", on: "buttons")
        do {
            try engine.start()
        } catch {
            records.withLock { $0.append(ScenarioRecord(time: device.now, kind: .error(String(describing: error)))) }
            // The app was told capture could not start: nothing is captured (the oracle expects no press).
            captureSince = nil
            device.setCaptureClaim(nil)
            return
        }
        // `start()` returns at once; capture begins when the volume view is ready. A script's next line
        // happens after that, as an app would await readiness before relying on capture.
        // The view may take up to 1 s to be ready (`DeviceBehaviour.volumeViewReadyDelay`), then the anchor is set.
        advance(device, until: { engine.isCapturing && hud?.isSystemHUDSuppressed ?? true }, atMost: 2)
    }
}
