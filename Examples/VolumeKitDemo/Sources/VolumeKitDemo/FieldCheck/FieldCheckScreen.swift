#if os(iOS)
import SwiftUI
import UIKit
import VolumeKit

/// The field check (issue 14; `docs/field-check.md`): walks the person through a fixed protocol on this
/// iPhone, asks yes/no where only a person can see, records everything VolumeKit's clients see into a trace,
/// and exports the trace with the share sheet.
@MainActor
struct FieldCheckScreen: View {
    @StateObject private var model = FieldCheckModel()

    var body: some View {
        List {
            switch model.check.phase {
            case .notStarted: intro
            case .ready, .doing, .asking: stepSection
            case .finished: finished
            }
            if let problem = model.problem {
                Section { Text(problem).font(.footnote).foregroundColor(.red) }
            }
        }
        .navigationTitle("Field check")
        .onDisappear { model.stop() }
    }

    // MARK: - Before

    private var intro: some View {
        Section {
            Text(
                "About ten minutes. Each step asks you to do one thing with the iPhone, then asks what you saw. VolumeKit records what the system sends it into a trace file, which you can share at the end."
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
                Text("Step \(stepNumber) of \(model.check.steps.count): \(step.title)")
            }
            Section("What VolumeKit sees") {
                row("Capture", step.capturesButtons ? "on" : "off")
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
#endif
