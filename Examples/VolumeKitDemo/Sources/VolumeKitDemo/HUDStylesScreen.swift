#if os(iOS)
import SwiftUI
import VolumeKit

/// VolumeKit's HUD presets: pick one, then press the volume buttons — the chosen HUD replaces the system's
/// while this screen is on show.
@MainActor
struct HUDStylesScreen: View {
    @State private var selected = 0
    @State private var level: Float = 0.5

    private var style: VolumeHUDStyle { VolumeHUDStyle.presets[selected] }

    var body: some View {
        List {
            Section("Style") {
                Picker("Style", selection: $selected) {
                    ForEach(VolumeHUDStyle.presets.indices, id: \.self) { index in
                        Text(VolumeHUDStyle.presets[index].name).tag(index)
                    }
                }
                .pickerStyle(.segmented)
            }
            Section("Preview") {
                VolumeHUDView(level: level, style: style)
                    .frame(maxWidth: .infinity, minHeight: 120)
                Slider(value: $level, in: 0...1)
            }
            Section {
                Text("Press the volume buttons: the \(style.name) HUD shows instead of the system's.")
                    .font(.footnote).foregroundColor(.secondary)
            }
        }
        .navigationTitle("HUD styles")
        .volumeHUD(style)
    }
}
#endif
