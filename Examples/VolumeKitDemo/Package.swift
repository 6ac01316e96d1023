// swift-tools-version: 6.2
import PackageDescription

// VolumeKit's example app, as a library of SwiftUI screens: open this package in Xcode, add an iOS App
// target whose only file is App/VolumeKitDemoApp.swift, and link the VolumeKitDemo library (README.md).
// On Linux it compiles for iOS through `../shared/ios/build-for-ios.sh Examples/VolumeKitDemo`, and its
// platform-free part (the field check's protocol) is tested with `swift test` in this folder.
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
