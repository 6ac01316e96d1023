import Foundation
import Testing

@testable import VolumeKitCore

/// Which of VolumeKit's languages an app speaks (issue 26): the user's preferred languages among the app's own
/// localizations, English when they share none of VolumeKit's.
@Suite("The app's language")
struct AppLanguageTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var preferred: [String]
        var app: [String]
        var development: String?
        var expected: VolumeKitStrings.Language
        var why: String
        var testDescription: String { why }
    }

    static let cases: [Case] = [
        Case(
            preferred: ["ko-KR", "en-US"], app: ["en"], expected: .english,
            why: "an English-only app announces in English to a Korean user"),
        Case(
            preferred: ["ko-KR"], app: ["en", "Base"], expected: .english,
            why: "a language the app lacks is never chosen, even the user's only one"),
        Case(
            preferred: ["ko-KR", "en"], app: ["en", "ko"], expected: .korean,
            why: "an app localized in Korean announces in Korean"),
        Case(
            preferred: ["en-GB", "ko-KR"], app: ["ko", "en"], expected: .english,
            why: "the user's order decides, not the app's"),
        Case(
            preferred: ["fr-FR", "ko-KR"], app: ["fr", "ko", "en"], expected: .korean,
            why: "a language VolumeKit lacks is passed over for the next one both have"),
        Case(
            preferred: ["fr-FR"], app: ["fr", "en"], expected: .english,
            why: "English when the app's language is not one of VolumeKit's"),
        Case(
            preferred: ["zh-Hant-TW", "en"], app: ["en", "zh-Hant"], expected: .traditionalChinese,
            why: "Traditional Chinese by script"),
        Case(
            preferred: ["zh-HK"], app: ["zh-Hans", "zh-Hant"], expected: .traditionalChinese,
            why: "Chinese without a script follows the region on the user's side"),
        Case(
            preferred: ["zh-Hant-TW"], app: ["en", "zh-Hans"], expected: .english,
            why: "Simplified Chinese is not offered to a Traditional Chinese user"),
        Case(
            preferred: ["zh-Hans-CN"], app: ["zh_CN", "en"], expected: .simplifiedChinese,
            why: "the app's identifiers are read as the user's (zh_CN is Simplified)"),
        Case(
            preferred: ["ko"], app: ["ko-KR"], expected: .korean,
            why: "a localization with a region matches the language"),
        Case(
            preferred: ["ko-KR"], app: [], development: "ko", expected: .korean,
            why: "an app without localizations speaks its development language"),
        Case(
            preferred: ["ko-KR"], app: ["Base"], development: "ko", expected: .korean,
            why: "Base resources are in the development language"),
        Case(
            preferred: ["ko-KR"], app: ["ja"], development: "en", expected: .english,
            why: "the development language counts only where the user lists it"),
        Case(preferred: ["ko-KR"], app: [], development: nil, expected: .english, why: "nothing known: English"),
        Case(preferred: [], app: ["ko"], development: "ko", expected: .english, why: "no preference: English"),
    ]

    @Test("the user's preferred languages among the app's localizations, else English", arguments: cases)
    func choice(_ example: Case) {
        let language = VolumeKitStrings.Language(
            preferredLanguages: example.preferred, appLocalizations: example.app,
            developmentLocalization: example.development)
        #expect(language == example.expected)
    }

    @Test("the user's languages alone still choose where asked to (init(preferredLanguages:))")
    func userAlone() {
        #expect(VolumeKitStrings(preferredLanguages: ["ko-KR", "en"]).language == .korean)
    }

    @Test("VolumeHUDOptions(language:) fixes the HUD's words; without it they are the app's (this runner's)")
    func options() {
        for language in VolumeKitStrings.Language.allCases {
            #expect(VolumeHUDOptions(language: language).strings.language == language)
        }
        #expect(VolumeHUDOptions().strings == VolumeKitStrings(language: .current))
        #expect(VolumeKitStrings.current == VolumeKitStrings(language: .current))
        #if canImport(Darwin)
        let current = VolumeKitStrings.Language(
            preferredLanguages: Locale.preferredLanguages, appLocalizations: Bundle.main.localizations,
            developmentLocalization: Bundle.main.developmentLocalization)
        #else
        // No app bundle outside Apple's platforms: the app's languages are none, so English.
        let current = VolumeKitStrings.Language(preferredLanguages: Locale.preferredLanguages, appLocalizations: [])
        #endif
        #expect(VolumeKitStrings.Language.current == current)
    }
}
