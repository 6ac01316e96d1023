// The app target's only file (not part of the VolumeKitDemo library): VolumeKitDemo.xcodeproj in this
// folder compiles it and links the example package's VolumeKitDemo library (README.md).
import SwiftUI
import VolumeKitDemo

@main
struct VolumeKitDemoApp: App {
    var body: some Scene {
        WindowGroup { DemoRootView() }
    }
}
