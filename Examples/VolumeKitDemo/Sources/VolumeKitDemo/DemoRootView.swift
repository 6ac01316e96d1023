#if os(iOS)
import SwiftUI
import VolumeKit

/// The demo's first screen: one row per VolumeKit feature.
@MainActor
public struct DemoRootView: View {
    /// Creates the root view.
    public init() {}

    /// The list of screens.
    public var body: some View {
        NavigationView {
            List {
                NavigationLink("Remote speaker") { RemoteSpeakerScreen() }
                NavigationLink("Camera-style shutter") { ShutterScreen() }
                NavigationLink("Silent mode") { SilentModeScreen() }
                NavigationLink("System sounds and vibration") { SoundsScreen() }
                NavigationLink("HUD styles") { HUDStylesScreen() }
                NavigationLink("Field check") { FieldCheckScreen() }
                NavigationLink("Field check extras (HUD, player, AirPlay, camera)") { FieldCheckScreen(extras: true) }
            }
            .navigationTitle("VolumeKit")
        }
        .navigationViewStyle(.stack)
    }
}
#endif
