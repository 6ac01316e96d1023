import Foundation
import Testing
import VolumeKitCore

@Suite("Errors a person reads")
struct ErrorSentenceTests {
    @Test("capture errors and diagnostics read as sentences that say what to do, never as enum text")
    func sentences() {
        let errors: [VolumeButtonsError] = [
            .privateAPINotAllowed, .strategyUnavailable(.captureEvents), .audioSession("busy"),
            .recoveryIncomplete("the route changed"),
        ]
        let diagnostics: [VolumeButtonsDiagnostic] = [
            .unreadableNotification(.missingValue(key: "Reason")), .volumeSetFailed(0.5),
            .sessionActivationFailed("busy"),
            .sessionTakenOver(.playAndRecord), .captureEventsNotDelivered, .headroomExhausted,
            .routeChangeNotNotified, .railPressesUnseen(0), .routeVolumeUncertain, .recoveredAtUnconfirmedSet,
            .ambiguousStep,
        ]
        for text in errors.map(String.init(describing:)) + diagnostics.map(String.init(describing:)) {
            #expect(text.first?.isUppercase == true && text.hasSuffix("."), "\(text)")
            #expect(!text.contains("VolumeKitCore."), "\(text)")
        }
        #expect(String(describing: VolumeButtonsError.strategyUnavailable(.captureEvents)).contains("iOS 17.2"))
        #expect(VolumeButtonsError.privateAPINotAllowed.localizedDescription.contains("allowsPrivateAPI"))
    }

    @Test("the version the CLI prints is the newest release CHANGELOG.md names")
    func versionMatchesChangelog() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let changelog = try String(contentsOf: root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let released = changelog.split(separator: "\n").first {
            $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]")
        }
        #expect(released?.hasPrefix("## [\(VolumeKitVersion.current)]") == true, "\(released ?? "none")")
    }
}
