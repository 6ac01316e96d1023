// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "VolumeKit",
    defaultLocalization: "en",
    platforms: [.iOS(.v15), .macOS(.v13)],
    products: [
        .library(name: "VolumeKit", targets: ["VolumeKit"]),
        .library(name: "VolumeKitCore", targets: ["VolumeKitCore"]),
        .library(name: "VolumeKitTesting", targets: ["VolumeKitTesting"]),
        .library(name: "RemoteVolume", targets: ["RemoteVolume"]),
        .executable(name: "volumekit", targets: ["volumekit"]),
        .executable(name: "volumekit-bench", targets: ["volumekit-bench"]),
    ],
    targets: [
        // Foundation only, platform-free: state machines, value types and the clients.
        .target(name: "VolumeKitCore"),
        // The iOS live layer. Every file is wrapped in `#if os(iOS)`; on Linux it only re-exports Core.
        .target(
            name: "VolumeKit",
            dependencies: ["VolumeKitCore"],
            resources: [.copy("Resources/PrivacyInfo.xcprivacy"), .copy("Resources/mute-probe.caf")]
        ),
        // The simulated iOS device and test helpers, for this package's tests and for apps' tests.
        .target(name: "VolumeKitTesting", dependencies: ["VolumeKitCore"]),
        // Network speakers: UPnP AV / DLNA renderers, Music Player Daemon (MPD) and Snapcast.
        .target(name: "RemoteVolume", dependencies: ["VolumeKitCore"]),
        .executableTarget(name: "volumekit", dependencies: ["VolumeKitCore", "VolumeKitTesting", "RemoteVolume"]),
        .executableTarget(
            name: "volumekit-bench",
            dependencies: ["VolumeKitCore", "VolumeKitTesting", "RemoteVolume", "BenchSupport"]),
        // Allocation counting for the benchmark (Linux).
        .target(name: "BenchSupport"),
        // What both test targets share: blocking work kept off the concurrency pool, waits in virtual time.
        .target(name: "TestSupport", dependencies: ["VolumeKitTesting"], path: "Tests/TestSupport"),
        .testTarget(
            name: "VolumeKitTests", dependencies: ["VolumeKitCore", "VolumeKitTesting", "VolumeKit", "TestSupport"],
            resources: [.copy("Fixtures")]),
        .testTarget(
            name: "RemoteVolumeTests",
            dependencies: ["RemoteVolume", "VolumeKitCore", "VolumeKitTesting", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
