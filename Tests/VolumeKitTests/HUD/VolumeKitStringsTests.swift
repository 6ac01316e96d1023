import Foundation
import Testing

@testable import VolumeKitCore

/// What VoiceOver says, in each language VolumeKit ships a table for (issue 16 item 4).
struct LanguageCase: Sendable, CustomTestStringConvertible {
    var language: VolumeKitStrings.Language
    var volume50: String
    var maximum: String
    var minimum: String
    var value25: String
    var label: String
    var silent: String
    var ringing: String
    var unknown: String
    var unavailable: String
    var testDescription: String { language.rawValue }

    static let all: [LanguageCase] = [
        LanguageCase(
            language: .english, volume50: "Volume 50 percent", maximum: "Volume 100 percent, maximum",
            minimum: "Volume 0 percent, minimum", value25: "25 percent", label: "Volume",
            silent: "Silent mode on", ringing: "Silent mode off", unknown: "Silent mode unknown",
            unavailable: "No Ring/Silent switch"),
        LanguageCase(
            language: .simplifiedChinese, volume50: "音量 50%", maximum: "音量 100%，已是最大",
            minimum: "音量 0%，已是最小", value25: "25%", label: "音量",
            silent: "静音模式已开启", ringing: "静音模式已关闭", unknown: "无法判断静音模式",
            unavailable: "没有响铃/静音开关"),
        LanguageCase(
            language: .traditionalChinese, volume50: "音量 50%", maximum: "音量 100%，已是最大",
            minimum: "音量 0%，已是最小", value25: "25%", label: "音量",
            silent: "靜音模式已開啟", ringing: "靜音模式已關閉", unknown: "無法判斷靜音模式",
            unavailable: "沒有響鈴/靜音切換開關"),
        LanguageCase(
            language: .korean, volume50: "음량 50%", maximum: "음량 100%, 최대",
            minimum: "음량 0%, 최소", value25: "25%", label: "음량",
            silent: "무음 모드 켬", ringing: "무음 모드 끔", unknown: "무음 모드를 알 수 없음",
            unavailable: "벨소리/무음 스위치 없음"),
    ]
}

@Suite("Localized VoiceOver strings")
struct VolumeKitStringsTests {
    @Test("each language's table gives the level, the bump and the Ring/Silent states", arguments: LanguageCase.all)
    func tables(_ expected: LanguageCase) {
        let strings = VolumeKitStrings(language: expected.language)
        #expect(strings.announcement(level: 0.5) == expected.volume50)
        #expect(strings.announcement(level: 1, bump: .maximum) == expected.maximum)
        #expect(strings.announcement(level: 0, bump: .minimum) == expected.minimum)
        #expect(strings.hudValue(level: 0.25) == expected.value25)
        #expect(strings.hudLabel == expected.label)
        #expect(strings.muteState(.silent) == expected.silent)
        #expect(strings.muteState(.ringing) == expected.ringing)
        #expect(strings.muteState(.unknown(.noCompletion)) == expected.unknown)
        #expect(strings.muteState(.unavailable) == expected.unavailable)
    }

    @Test("every language's table has every key English has, no others, and keeps the level's %ld")
    func tablesComplete() throws {
        for language in VolumeKitStrings.Language.allCases {
            let table = try #require(VolumeKitStrings.tables[language], "\(language.rawValue)")
            #expect(Set(table.keys) == Set(VolumeKitStrings.builtInEnglish.keys), "\(language.rawValue)")
            for (key, english) in VolumeKitStrings.builtInEnglish where english.contains("%ld") {
                #expect(table[key]?.contains("%ld") == true, "\(language.rawValue) \(key)")
            }
        }
    }

    @Test(
        "the language follows the user's preferred languages, first supported one wins",
        arguments: [
            (["ko-KR"], VolumeKitStrings.Language.korean),
            (["zh-Hans-CN"], .simplifiedChinese),
            (["zh-Hant-TW"], .traditionalChinese),
            (["zh-HK"], .traditionalChinese),
            (["zh-TW"], .traditionalChinese),
            (["zh-CN"], .simplifiedChinese),
            (["zh"], .simplifiedChinese),
            (["zh_Hant_HK"], .traditionalChinese),
            (["fr-FR", "ko"], .korean),
            (["fr-FR", "de"], .english),
            ([], .english),
            (["en-GB", "ko"], .english),
        ])
    func languageChoice(preferred: [String], expected: VolumeKitStrings.Language) {
        #expect(VolumeKitStrings(preferredLanguages: preferred).language == expected)
    }

    @Test("the HUD model announces in the language it is given")
    func modelLanguage() {
        var model = VolumeHUDModel(level: 0.5, strings: VolumeKitStrings(language: .korean))
        let actions = model.levelChanged(0.5625, at: 1)
        #expect(actions.contains(.announce("음량 56%")))
        let bump = model.buttonPressed(.up, at: 2)
        #expect(bump.isEmpty)
        _ = model.levelChanged(1, at: 3)
        #expect(model.buttonPressed(.up, at: 4).contains(.announce("음량 100%, 최대")))
    }
}

@Suite("VolumeHUDModel: the press that reached a rail")
struct CausingPressTests {
    @Test("a press reported just after the change it caused is no bump, in either order")
    func causingPress() {
        var model = VolumeHUDModel(level: 0.9375)
        _ = model.levelChanged(1, at: 1)
        #expect(model.buttonPressed(.up, at: 1.005).isEmpty)
        #expect(model.display.bump == nil)
        // The next press at the top is a real one.
        #expect(
            model.buttonPressed(.up, at: 1.3).contains(
                .display(VolumeHUDDisplay(isVisible: true, level: 1, bump: .maximum))))

        var reversed = VolumeHUDModel(level: 0.9375)
        #expect(reversed.buttonPressed(.up, at: 1).isEmpty)
        _ = reversed.levelChanged(1, at: 1.005)
        #expect(reversed.display == VolumeHUDDisplay(isVisible: true, level: 1))
    }

    @Test("a press toward the other rail, or later than the window, still bumps")
    func otherPresses() {
        var model = VolumeHUDModel(level: 0.0625)
        _ = model.levelChanged(0, at: 1)
        #expect(
            model.buttonPressed(.down, at: 1 + VolumeHUDModel.causingPressWindow + 0.01).contains {
                if case .display(let display) = $0 { return display.bump == .minimum } else { return false }
            })
    }
}
