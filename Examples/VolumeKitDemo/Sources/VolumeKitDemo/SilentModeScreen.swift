#if os(iOS)
import SwiftUI
import VolumeKit

/// The Ring/Silent switch (or the Action button's Silent mode) shown live, with the volume the user really
/// hears: 0 while silent for sounds the switch silences.
@MainActor
struct SilentModeScreen: View {
    @StateObject private var model = MuteSwitchModel()

    var body: some View {
        List {
            Section("Ring/Silent") {
                HStack {
                    Image(systemName: icon)
                        .font(.largeTitle)
                        .foregroundColor(model.state == .silent ? .red : .accentColor)
                    // The state in words, in the app's language ("Silent", "Ring"), as VoiceOver reads it.
                    Text(model.stateDescription ?? "checking…").font(.title2)
                }
            }
            Section("Volume") {
                row("Output volume", model.outputVolume)
                row("Real volume", model.realVolume)
            }
            Section {
                Text("Flip the switch (or change Silent mode in Control Center): the state follows within about a second.")
                    .font(.footnote).foregroundColor(.secondary)
            }
        }
        .navigationTitle("Silent mode")
        .onAppear { model.start() }
        .onDisappear { model.stop() }
    }

    private var icon: String {
        switch model.state {
        case .silent?: "bell.slash.fill"
        case .ringing?: "bell.fill"
        default: "bell"
        }
    }

    private func row(_ title: String, _ value: Float?) -> some View {
        HStack {
            Text(title)
            Spacer()
            Text(value.map { String(format: "%.0f %%", $0 * 100) } ?? "—").monospacedDigit()
        }
    }
}
#endif
