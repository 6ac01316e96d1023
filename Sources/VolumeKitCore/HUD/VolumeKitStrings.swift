#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The words VolumeKit gives VoiceOver — the HUD's label, value and announcements, the Ring/Silent states —
/// in one language, from the string tables VolumeKit carries in its code (no resource bundle).
///
/// Languages: English, Simplified Chinese, Traditional Chinese and Korean — the languages of the articles
/// VolumeKit comes from (`shared/seeds/`). ``current`` speaks the app's language — the first of the user's
/// preferred languages the app is localized in (``Language/current``), so an English-only app never announces
/// in Korean — and tests and previews pick one (``init(language:)``). A missing table or key falls back to
/// English built into the code: an announcement is never empty.
///
/// Every lookup is a pure function of the table, so each language is tested on Linux.
public struct VolumeKitStrings: Sendable, Equatable {
    /// A language VolumeKit has a table for.
    public enum Language: String, Sendable, Equatable, CaseIterable {
        /// English (`en`), the development language.
        case english = "en"
        /// Simplified Chinese (`zh-Hans`).
        case simplifiedChinese = "zh-Hans"
        /// Traditional Chinese (`zh-Hant`).
        case traditionalChinese = "zh-Hant"
        /// Korean (`ko`).
        case korean = "ko"

        /// The table's language for one BCP 47 language identifier as `Locale.preferredLanguages` gives
        /// them ("ko-KR", "zh-Hant-TW", "zh-HK", "en_GB"), or `nil` when VolumeKit has no table for it.
        ///
        /// Chinese without a script follows the region, as iOS does: Taiwan, Hong Kong and Macao read
        /// Traditional, every other region (and none) Simplified.
        public init?(identifier: String) {
            let parts = identifier.replacingAll("_", with: "-").split(separator: "-").map {
                $0.lowercased()
            }
            guard let language = parts.first else { return nil }
            switch language {
            case "en": self = .english
            case "ko": self = .korean
            case "zh":
                let rest = parts.dropFirst()
                if rest.contains("hant") {
                    self = .traditionalChinese
                } else if rest.contains("hans") {
                    self = .simplifiedChinese
                } else if rest.contains(where: { ["tw", "hk", "mo"].contains($0) }) {
                    self = .traditionalChinese
                } else {
                    self = .simplifiedChinese
                }
            default: return nil
            }
        }
    }

    /// The language of the strings.
    public let language: Language
    private let table: [String: String]

    /// The strings for `language`, read from its table.
    public init(language: Language) {
        self.language = language
        table = VolumeKitStrings.tables[language] ?? [:]
    }

    /// The strings for the first of `preferredLanguages` VolumeKit has a table for, English if none, whatever
    /// languages the app itself has (``current`` also weighs those).
    /// - Parameter preferredLanguages: BCP 47 identifiers, most preferred first (by default the user's,
    ///   `Locale.preferredLanguages`).
    public init(preferredLanguages: [String] = Locale.preferredLanguages) {
        self.init(language: preferredLanguages.lazy.compactMap(Language.init(identifier:)).first ?? .english)
    }

    /// The strings in the app's language now (``Language/current``): the first of the user's preferred
    /// languages that the app is localized in and VolumeKit has a table for, English when there is none.
    public static var current: VolumeKitStrings { VolumeKitStrings(language: .current) }

    /// English.
    public static let english = VolumeKitStrings(language: .english)

    // MARK: - The HUD

    /// The HUD view's label: "Volume".
    public var hudLabel: String { text("hud.label") }

    /// The HUD view's value: "50 percent".
    public func hudValue(level: Float) -> String { format("hud.value", level: level) }

    /// The announcement for a change: "Volume 50 percent"; at a rail "Volume 100 percent, maximum" or
    /// "Volume 0 percent, minimum".
    public func announcement(level: Float, bump: VolumeHUDBump? = nil) -> String {
        switch bump {
        case .none: format("hud.announcement", level: level)
        case .maximum?: format("hud.announcement.maximum", level: level)
        case .minimum?: format("hud.announcement.minimum", level: level)
        }
    }

    // MARK: - The Ring/Silent switch

    /// The words for a Ring/Silent state: "Silent mode on", "Silent mode off", "Silent mode unknown",
    /// "No Ring/Silent switch".
    public func muteState(_ state: MuteState) -> String {
        switch state {
        case .silent: text("mute.silent")
        case .ringing: text("mute.ringing")
        case .unknown: text("mute.unknown")
        case .unavailable: text("mute.unavailable")
        }
    }

    // MARK: - Lookup

    /// The table's text for `key`, else the built-in English.
    func text(_ key: String) -> String {
        table[key] ?? VolumeKitStrings.builtInEnglish[key] ?? key
    }

    private func format(_ key: String, level: Float) -> String {
        let percent = VolumeHUDAccessibility.percent(level)
        let template = text(key)
        // A template a translator broke (no `%ld`, or another specifier) must not garble the number:
        // only `%ld` and `%%` are honoured.
        guard template.contains("%ld") else {
            return VolumeKitStrings.builtInEnglish[key].map { Self.fill($0, percent) } ?? template
        }
        return Self.fill(template, percent)
    }

    private static func fill(_ template: String, _ percent: Int) -> String {
        template.replacingAll("%ld", with: String(percent)).replacingAll("%%", with: "%")
    }

    /// English, for a missing key.
    static var builtInEnglish: [String: String] { tables[.english] ?? [:] }
}
