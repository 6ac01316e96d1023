// The app target's only file (not part of the VolumeKitDemo library): see README.md.
import SwiftUI
import VolumeKitDemo

@main
struct VolumeKitDemoApp: App {
    var body: some Scene {
        WindowGroup { DemoRootView() }
    }
}
