// swift-tools-version: 6.0
import PackageDescription

// VolumeKit's example app, as a library of SwiftUI screens. The app itself is VolumeKitDemo.xcodeproj in
// this folder (its target's only file is App/VolumeKitDemoApp.swift; it links this package's VolumeKitDemo
// library): open it in Xcode 16 or later (README.md). Tools version 6.0, as the library's manifest.
// The screens compile for iOS as a library target (scripts/check-demo.sh), and the platform-free part
// (the field check's protocol) is tested on Linux with `swift test` in this folder.
let package = Package(
    name: "VolumeKitDemo",
    platforms: [.iOS(.v15), .macOS(.v13)],
    products: [
        .library(name: "VolumeKitDemo", targets: ["VolumeKitDemo"]),
    ],
    dependencies: [
        .package(name: "VolumeKit", path: "../.."),
    ],
    targets: [
        .target(
            name: "VolumeKitDemo",
            dependencies: [
                .product(name: "VolumeKit", package: "VolumeKit"),
                .product(name: "RemoteVolume", package: "VolumeKit"),
            ]
        ),
        .testTarget(
            name: "VolumeKitDemoTests",
            dependencies: ["VolumeKitDemo", .product(name: "VolumeKitTesting", package: "VolumeKit")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
