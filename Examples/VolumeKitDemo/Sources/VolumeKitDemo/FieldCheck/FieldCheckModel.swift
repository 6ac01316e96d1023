#if os(iOS)
import AVFoundation
import SwiftUI
import UIKit
import VolumeKit

/// Runs a ``FieldCheck`` on this iPhone: records everything that crosses VolumeKit's live clients into a
/// trace file in Documents/FieldChecks, and carries out the check's actions (marks, gestures, capture and
/// the Ring/Silent detector starting and stopping).
@MainActor
final class FieldCheckModel: ObservableObject {
    /// The check's progression.
    @Published private(set) var check: FieldCheck
    /// The presses and repeats VolumeKit delivered during the step on screen ("up pressed", …).
    @Published private(set) var stepEvents: [String] = []
    /// The user's own volume as VolumeKit last saw it (Control Center, passive presses, another route).
    @Published private(set) var userVolume: Float?
    /// The Ring/Silent state, while the detector runs.
    @Published private(set) var silentMode: String?
    /// Something that went wrong, in a sentence.
    @Published private(set) var problem: String?
    /// The trace, once the check is finished (or stopped).
    @Published private(set) var traceURL: URL?
    /// Where the trace is being written.
    @Published private(set) var recordingURL: URL?
    /// The tone the player and web-view steps play, and the page that plays it (written at Begin).
    @Published private(set) var toneURL: URL?
    /// The page with an `<audio>` element playing ``toneURL``.
    @Published private(set) var tonePageURL: URL?
    /// What VolumeKit has learned of this iPhone, beside the envelope ("Your iPhone"): ``followCalibration()``.
    @Published private(set) var yourIPhone = FieldCheckCalibration()
    /// Whether the extras' camera capture events run (they learn the tap length): ``followCameraCalibration()``.
    @Published private(set) var capturesEvents = false

    /// The button engine's configuration: VolumeKit's defaults (outputVolume, capture, playback mixing).
    let configuration = VolumeButtonsConfiguration()
    private var performer: FieldCheckPerformer?
    private var writer: TraceFileWriter?
    private var buttons: VolumeButtons?
    private var mute: MuteSwitch?
    private var recorder: TraceRecorder?
    /// VolumeKit's HUD, during the extras' HUD steps.
    private var hud: VolumeHUD?
    /// Capture events with the camera preview, during the extras' camera step.
    private var eventButtons: VolumeButtons?
    private var wantsCaptureEvents = false
    /// The camera preview's view, once on screen: it carries the `AVCaptureEventInteraction`.
    private weak var cameraView: UIView?
    /// When the trace may close: after capture has finished stopping.
    private var closing = FieldCheckClosing()
    /// The calibration of capture (or, before it has started, what an earlier run stored), and of the camera's
    /// capture events.
    private var buttonsCalibration: CalibrationMachine?
    private var cameraCalibration: CalibrationMachine?

    /// A model for `check` (the standard protocol by default, or ``FieldCheck/extras()``).
    init(check: FieldCheck = FieldCheck()) {
        self.check = check
    }

    /// The hardware model (`utsname.machine`, `iPhone15,2`).
    nonisolated static var machine: String {
        var info = utsname()
        uname(&info)
        return withUnsafeBytes(of: &info.machine) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// Whether this is a build for the iOS Simulator (its trace is labelled `simulator`).
    nonisolated static var isSimulatorBuild: Bool {
        #if targetEnvironment(simulator)
        return true
        #else
        return false
        #endif
    }

    // MARK: - The person's inputs

    /// Opens the trace file and puts the first step on screen.
    func begin() {
        guard check.phase == .notStarted, performer == nil else { return }
        let device = DeviceInfo.current
        let simulator = Self.isSimulatorBuild
        let model =
            simulator ? ProcessInfo.processInfo.environment["SIMULATOR_MODEL_IDENTIFIER"] ?? "unknown" : Self.machine
        let header = FieldCheckTrace.header(
            model: model, device: device, isSimulatorBuild: simulator, buttons: configuration,
            sessionMode: AVAudioSession.sharedInstance().mode.rawValue, protocolName: check.name)
        let url: URL
        let writer: TraceFileWriter
        do {
            url = try Self.newFileURL(model: model, os: device.osVersion)
            writer = try TraceFileWriter(url: url)
        } catch {
            problem = "The trace file could not be created: \(error)"
            return
        }
        // Port UIDs (a Bluetooth headset's is its address) are written as port-1, port-2… (docs/trace.md).
        let recorder = TraceRecorder(
            header: header, clock: .live, keepsRecords: true, portNaming: .aliases, onLine: writer.write)
        self.writer = writer
        self.recorder = recorder
        recordingURL = url
        if check.steps.contains(where: { $0.aid == .player || $0.aid == .webView }) { writeTone() }

        let buttons = VolumeButtons(
            configuration, clients: VolumeKitClients.live().recording(to: recorder, feature: "buttons"))
        buttons.onEvent { [weak self] event in
            // Recorded as delivered, so a replay can compare the events, not only the sets.
            recorder.buttonEvent(event)
            self?.received(event)
        }
        buttons.onUserVolumeChange = { [weak self] volume in self?.userVolume = volume }
        // Its diagnostics need no code here: the recording clients write each one as a `diagnostic` record.
        buttons.onNotReady = { [weak self] seconds in
            recorder.mark("capture not ready after \(seconds) s")
            self?.problem = "Capture is not ready after \(Int(seconds)) s: no window could host the volume view yet."
        }
        self.buttons = buttons

        if let sound = MuteSwitch.soundURL {
            // Without observing the volume: the button engine owns the session during the check.
            let mute = MuteSwitch(
                configuration: MuteMonitor.Configuration(), observesVolume: false,
                clients: VolumeKitClients.live().recording(to: recorder, feature: "mute"), soundURL: sound)
            mute.stateChangeBlock = { [weak self] change in self?.silentMode = "\(change.new)" }
            self.mute = mute
        }
        var performer = FieldCheckPerformer(
            recorder: recorder,
            startButtons: { [weak self] in try self?.buttons?.start() },
            stopButtons: { [weak self] in self?.stopButtons() },
            startSilentMode: { [weak self] in
                self?.silentMode = "checking…"
                self?.mute?.start()
            },
            stopSilentMode: { [weak self] in
                self?.mute?.stop()
                self?.silentMode = nil
            },
            finish: { [weak self] in
                guard let self, self.closing.finish() else { return }
                self.close()
            }
        )
        performer.startHUD = { [weak self] in self?.startHUD() }
        performer.stopHUD = { [weak self] in self?.stopHUD() }
        performer.startCaptureEvents = { [weak self] in self?.startCaptureEvents() }
        performer.stopCaptureEvents = { [weak self] in self?.stopCaptureEvents() }
        self.performer = performer
        perform(check.begin())
    }

    /// The person starts the step on screen.
    func start() {
        stepEvents = []
        perform(check.start())
    }

    /// The person has done the step.
    func done() { perform(check.done()) }

    /// The person answers the question on screen.
    func answer(_ yes: Bool) { perform(check.answer(yes)) }

    /// The person skips an optional step.
    func skip() { perform(check.skip()) }

    /// The person stops early, or leaves the screen: the trace keeps what it has.
    func stop() { perform(check.stop()) }

    // MARK: - Carrying out the check's actions

    private func perform(_ actions: [FieldCheck.Action]) {
        guard let performer else { return }
        if let problem = performer.perform(actions).last { self.problem = problem }
        // A start loads what an earlier run stored; the updates tell only what is learned after it.
        refreshCalibration()
    }

    // MARK: - Your iPhone

    /// Shows what capture learns of this iPhone as it learns it, until the view's task is cancelled: before the
    /// check, what an earlier run stored; once capture exists, its calibration and each update.
    func followCalibration() async {
        refreshCalibration()
        guard let buttons else { return }
        for await calibration in buttons.calibrationUpdates() {
            buttonsCalibration = calibration
            showCalibration()
        }
    }

    /// Follows the camera's capture events while they run (the extras' camera step): they learn the tap length.
    func followCameraCalibration() async {
        guard let eventButtons else { return }
        cameraCalibration = eventButtons.calibration
        showCalibration()
        for await calibration in eventButtons.calibrationUpdates() {
            cameraCalibration = calibration
            showCalibration()
        }
    }

    /// Capture's calibration once it holds anything (it loads the stored one at start), else the stored one.
    private func refreshCalibration() {
        if let live = buttons?.calibration, !live.estimates.isEmpty || live.quantization != nil {
            buttonsCalibration = live
        } else if buttonsCalibration == nil {
            buttonsCalibration = CalibrationStore.load(for: .current, from: .live)
        }
        showCalibration()
    }

    private func showCalibration() {
        let shown = FieldCheckCalibration([buttonsCalibration, cameraCalibration].compactMap { $0 })
        if shown != yourIPhone { yourIPhone = shown }
    }

    private func received(_ event: VolumeButtonEvent) {
        guard event.phase != .released else { return }
        stepEvents.append("\(event.button.rawValue) \(event.phase.rawValue)")
    }

    /// Stops capture; the trace stays open until it has stopped (the restore's sets and KVO, the category
    /// restore, the deactivation and its retries: ``FieldCheckClosing``).
    private func stopButtons() {
        guard let buttons, buttons.isStarted else { return }
        closing.stopBegan()
        buttons.stop { [self] in
            Task { @MainActor [self] in
                try? await Task.sleep(nanoseconds: UInt64(FieldCheckClosing.closeDelay * 1e9))
                if closing.stopSettled() { close() }
            }
        }
    }

    // MARK: - The extras' HUD and camera

    /// VolumeKit's HUD with the island style and default options, as README's `.volumeHUD(.island)` runs it, its
    /// clients recorded as feature `hud`. The demo plays no audio of its own, so the HUD activates VolumeKit's
    /// mixing session itself (`outputVolume` only changes, and the system HUD stays hidden, while it is active).
    private func startHUD() {
        guard hud == nil, let recorder else { return }
        let hud = VolumeHUD(
            style: .island, options: VolumeHUDOptions(),
            clients: VolumeKitClients.live().recording(to: recorder, feature: "hud"))
        hud.onDiagnostic = { diagnostic in recorder.mark("VolumeKit HUD diagnostic: \(diagnostic)") }
        hud.start()
        self.hud = hud
    }

    private func stopHUD() {
        hud?.stop()
        hud = nil
    }

    /// Capture events (strategy `captureEvents`, clients recorded as feature `camera`) start once the camera
    /// preview is in a window: ``cameraViewMoved(_:)`` calls again.
    private func startCaptureEvents() {
        wantsCaptureEvents = true
        guard eventButtons == nil, let recorder, let view = cameraView, view.window != nil else { return }
        let buttons = VolumeButtons(
            VolumeButtonsConfiguration(strategy: .captureEvents), captureView: view,
            clients: VolumeKitClients.live(captureView: view).recording(to: recorder, feature: "camera"))
        // Shown, not recorded as button events: the trace's button events are the `buttons` feature's.
        buttons.onEvent { [weak self] event in self?.received(event) }
        // Its diagnostics are recorded by the recording clients (`diagnostic` records of feature `camera`).
        do {
            try buttons.start()
            eventButtons = buttons
            capturesEvents = true
        } catch {
            recorder.mark("camera capture events did not start: \(error)")
            problem = "Capture events could not start: \(error)"
        }
    }

    private func stopCaptureEvents() {
        wantsCaptureEvents = false
        eventButtons?.stop()
        eventButtons = nil
        capturesEvents = false
    }

    /// The camera preview entered (or left) a window.
    func cameraViewMoved(_ view: UIView?) {
        cameraView = view
        if view == nil {
            eventButtons?.stop()
            eventButtons = nil
            capturesEvents = false
        } else if wantsCaptureEvents {
            startCaptureEvents()
        }
    }

    /// Writes the tone and its page into the caches folder for the player and web-view steps.
    private func writeTone() {
        do {
            let folder = try FileManager.default
                .url(for: .cachesDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
                .appendingPathComponent("FieldCheckTone", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let tone = folder.appendingPathComponent("tone.wav")
            let page = folder.appendingPathComponent("tone.html")
            try FieldCheckTone.wav(seconds: 20).write(to: tone)
            try Data(FieldCheckTone.page(audioFile: "tone.wav").utf8).write(to: page)
            toneURL = tone
            tonePageURL = page
        } catch {
            problem = "The tone for the player steps could not be written: \(error)"
        }
    }

    /// Closes the trace (once ``closing`` says so).
    private func close() {
        buttons = nil
        mute = nil
        stopHUD()
        stopCaptureEvents()
        recorder = nil
        writer?.close()
        writer = nil
        performer = nil
        traceURL = recordingURL
    }

    // MARK: - The file

    /// A new file in Documents/FieldChecks named `device-os-date.jsonl` (`-2`, `-3`, … for more runs a day).
    private static func newFileURL(model: String, os: OSVersion) throws -> URL {
        let folder = try FileManager.default
            .url(for: .documentDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
            .appendingPathComponent("FieldChecks", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let now = Date()
        var attempt = 1
        while true {
            let url = folder.appendingPathComponent(
                FieldCheckTrace.fileName(model: model, os: os, date: now, attempt: attempt))
            if !FileManager.default.fileExists(atPath: url.path) { return url }
            attempt += 1
        }
    }
}
#endif
