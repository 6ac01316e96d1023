#if os(iOS)
import AVFoundation
import AVKit
import SwiftUI
import UIKit
import VolumeKit
import WebKit

/// The field check (issue 14; `docs/field-check.md`): walks the person through a fixed protocol on this
/// iPhone, asks yes/no where only a person can see, records everything VolumeKit's clients see into a trace,
/// and exports the trace with the share sheet. The extras (issue 26: the HUD, a player and a web view,
/// AirPlay, a Bluetooth reconnect, the camera) are a second check with their own trace.
@MainActor
struct FieldCheckScreen: View {
    @StateObject private var model: FieldCheckModel
    private let title: String

    /// The standard check, or the extras when `extras` is `true`.
    init(extras: Bool = false) {
        _model = StateObject(wrappedValue: FieldCheckModel(check: extras ? FieldCheck.extras() : FieldCheck()))
        title = extras ? "Field check extras" : "Field check"
    }

    var body: some View {
        List {
            switch model.check.phase {
            case .notStarted: intro
            case .ready, .doing, .asking: stepSection
            case .finished: finished
            }
            FieldCheckCalibrationSection(calibration: model.yourIPhone)
            if let problem = model.problem {
                Section { Text(problem).font(.footnote).foregroundColor(.red) }
            }
        }
        .navigationTitle(title)
        // "Your iPhone", live: what an earlier run stored, then capture's calibration once Begin made it.
        .task(id: model.recordingURL) { await model.followCalibration() }
        .task(id: model.capturesEvents) { await model.followCameraCalibration() }
        .onDisappear { model.stop() }
    }

    // MARK: - Before

    private var intro: some View {
        Section {
            Text(
                "About ten minutes. Each step asks you to do one thing with the iPhone, then asks what you saw. VolumeKit records what the system sends it into a trace file, which you can share at the end. Steps marked optional can be skipped."
            )
            Text(
                "The trace holds this iPhone's model and iOS version, the volumes and what you answer. Audio ports are named port-1, port-2…, never by their IDs."
            )
            .font(.footnote).foregroundColor(.secondary)
            if FieldCheckModel.isSimulatorBuild {
                Text("This is the iOS Simulator: its trace is labelled simulator, not device. Run it on an iPhone.")
                    .font(.footnote).foregroundColor(.orange)
            }
            Button("Begin") { model.begin() }
        } header: {
            Text("\(model.check.steps.count) steps")
        }
    }

    // MARK: - During

    @ViewBuilder private var stepSection: some View {
        if let step = model.check.currentStep {
            Section {
                Text(step.instruction).font(.title3)
                switch model.check.phase {
                case .ready:
                    Button("Start") { model.start() }
                    if step.isOptional { Button("Skip this step") { model.skip() } }
                case .doing:
                    Button("Done") { model.done() }
                    if step.isOptional { Button("Skip this step") { model.skip() } }
                case .asking:
                    if let question = model.check.currentQuestion {
                        Text(question.text).font(.headline)
                        HStack {
                            Button("Yes") { model.answer(true) }.buttonStyle(.borderedProminent)
                            Spacer()
                            Button("No") { model.answer(false) }.buttonStyle(.bordered)
                        }
                    }
                default:
                    EmptyView()
                }
            } header: {
                Text(
                    "Step \(stepNumber) of \(model.check.steps.count): \(step.title)"
                        + (step.isOptional ? " (optional)" : ""))
            }
            if let aid = step.aid, model.check.currentQuestion == nil {
                Section { aidView(aid) }
            }
            Section("What VolumeKit sees") {
                row("Capture", step.capturesButtons ? "on" : step.capturesEvents ? "camera capture events" : "off")
                if step.runsHUD { row("HUD", "VolumeKit's") }
                row("Presses this step", "\(model.stepEvents.count)")
                if let last = model.stepEvents.last { row("Last", last) }
                row("Your volume", model.userVolume.map { String(format: "%.0f %%", $0 * 100) } ?? "—")
                if let silentMode = model.silentMode { row("Ring/Silent", silentMode) }
            }
            Section {
                Button("Stop the check", role: .destructive) { model.stop() }
            }
        }
    }

    private var stepNumber: Int {
        switch model.check.phase {
        case .ready(let step), .doing(let step), .asking(let step, _): step + 1
        default: 0
        }
    }

    // MARK: - After

    @ViewBuilder private var finished: some View {
        Section("Done") {
            Text(
                "Thank you. Share the trace (AirDrop, Mail, Files) and open a pull request adding it: docs/field-check.md says how."
            )
            if let url = model.traceURL {
                Text(url.lastPathComponent).font(.footnote.monospaced())
                TraceShareButton(url: url)
            }
        }
    }

    /// What the step shows for the person to use: a player, a web page or the camera preview.
    @ViewBuilder private func aidView(_ aid: FieldCheckAid) -> some View {
        switch aid {
        case .player:
            if let url = model.toneURL {
                TonePlayer(url: url).frame(height: 180)
            }
        case .webView:
            if let url = model.tonePageURL {
                TonePage(url: url).frame(height: 140)
            }
        case .camera:
            CameraPreview(onWindow: { model.cameraViewMoved($0) }).frame(height: 260)
        }
    }

    private func row(_ title: String, _ value: String) -> some View {
        HStack {
            Text(title)
            Spacer()
            Text(value).foregroundColor(.secondary).monospacedDigit()
        }
    }
}

/// Shares a file: `ShareLink` from iOS 16, the share sheet (`UIActivityViewController`) on iOS 15.
@MainActor
private struct TraceShareButton: View {
    let url: URL
    @State private var sharing = false

    var body: some View {
        if #available(iOS 16.0, *) {
            ShareLink(item: url) { Label("Export the trace", systemImage: "square.and.arrow.up") }
        } else {
            Button {
                sharing = true
            } label: {
                Label("Export the trace", systemImage: "square.and.arrow.up")
            }
            .sheet(isPresented: $sharing) { ActivitySheet(items: [url]) }
        }
    }
}

/// `UIActivityViewController` for SwiftUI.
@MainActor
private struct ActivitySheet: UIViewControllerRepresentable {
    let items: [Any]

    func makeUIViewController(context: Context) -> UIActivityViewController {
        UIActivityViewController(activityItems: items, applicationActivities: nil)
    }

    func updateUIViewController(_ controller: UIActivityViewController, context: Context) {}
}

/// `AVPlayerViewController` (with its playback controls) playing the tone: a player taking over the audio
/// session, as apps embed it.
@MainActor
private struct TonePlayer: UIViewControllerRepresentable {
    let url: URL

    func makeUIViewController(context: Context) -> AVPlayerViewController {
        let controller = AVPlayerViewController()
        controller.player = AVPlayer(url: url)
        return controller
    }

    func updateUIViewController(_ controller: AVPlayerViewController, context: Context) {}

    static func dismantleUIViewController(_ controller: AVPlayerViewController, coordinator: ()) {
        // Leaving the step stops the tone.
        controller.player?.pause()
    }
}

/// A web view whose page plays the tone with an `<audio>` element: a web view taking over the session.
@MainActor
private struct TonePage: UIViewRepresentable {
    let url: URL

    func makeUIView(context: Context) -> WKWebView {
        let configuration = WKWebViewConfiguration()
        configuration.allowsInlineMediaPlayback = true
        let view = WKWebView(frame: .zero, configuration: configuration)
        view.loadFileURL(url, allowingReadAccessTo: url.deletingLastPathComponent())
        return view
    }

    func updateUIView(_ view: WKWebView, context: Context) {}

    static func dismantleUIView(_ view: WKWebView, coordinator: ()) {
        // Leaving the step stops the tone.
        view.loadHTMLString("", baseURL: nil)
    }
}

/// A live preview of the back camera (capture events reach only an app that is using the camera). Its
/// view reports when it enters or leaves a window: capture events attach to it then.
@MainActor
private struct CameraPreview: UIViewRepresentable {
    let onWindow: @MainActor (UIView?) -> Void

    func makeUIView(context: Context) -> CameraPreviewView {
        let view = CameraPreviewView()
        view.onWindow = onWindow
        return view
    }

    func updateUIView(_ view: CameraPreviewView, context: Context) {
        view.onWindow = onWindow
    }

    static func dismantleUIView(_ view: CameraPreviewView, coordinator: ()) {
        view.stopCamera()
    }
}

/// A view backed by an `AVCaptureVideoPreviewLayer`, running its own capture session while in a window.
final class CameraPreviewView: UIView {
    override static var layerClass: AnyClass { AVCaptureVideoPreviewLayer.self }
    var onWindow: (@MainActor (UIView?) -> Void)?
    private var session: AVCaptureSession?

    private var previewLayer: AVCaptureVideoPreviewLayer? { layer as? AVCaptureVideoPreviewLayer }

    override func didMoveToWindow() {
        super.didMoveToWindow()
        if window == nil {
            stopCamera()
        } else {
            startCamera()
        }
        let report = onWindow
        let view: UIView? = window == nil ? nil : self
        // Not during the view update that moved it: SwiftUI state changes then are not allowed.
        DispatchQueue.main.async { report?(view) }
    }

    /// Asks for the camera if needed, then shows the back camera.
    private func startCamera() {
        guard session == nil else { return }
        switch AVCaptureDevice.authorizationStatus(for: .video) {
        case .authorized:
            run()
        case .notDetermined:
            AVCaptureDevice.requestAccess(for: .video) { granted in
                guard granted else { return }
                DispatchQueue.main.async { [weak self] in
                    guard let self, self.window != nil else { return }
                    self.run()
                }
            }
        default:
            break
        }
    }

    private func run() {
        guard session == nil,
            let device = AVCaptureDevice.default(.builtInWideAngleCamera, for: .video, position: .back)
                ?? AVCaptureDevice.default(for: .video),
            let input = try? AVCaptureDeviceInput(device: device)
        else { return }
        let session = AVCaptureSession()
        guard session.canAddInput(input) else { return }
        session.addInput(input)
        previewLayer?.videoGravity = .resizeAspectFill
        previewLayer?.session = session
        self.session = session
        // startRunning blocks until the camera runs: not on the main thread.
        nonisolated(unsafe) let running = session
        DispatchQueue.global(qos: .userInitiated).async { running.startRunning() }
    }

    func stopCamera() {
        guard let session else { return }
        self.session = nil
        previewLayer?.session = nil
        nonisolated(unsafe) let stopping = session
        DispatchQueue.global(qos: .userInitiated).async { stopping.stopRunning() }
    }
}
#endif
