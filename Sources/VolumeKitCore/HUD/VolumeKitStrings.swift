import Foundation

/// The words VolumeKit gives VoiceOver — the HUD's label, value and announcements, the Ring/Silent states —
/// in one language, read from the string tables `VolumeKit.strings` in `<language>.lproj` of VolumeKitCore's
/// resource bundle.
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
            let parts = identifier.replacingOccurrences(of: "_", with: "-").split(separator: "-").map {
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
        table = VolumeKitStrings.loadTable(language)
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
        template.replacingOccurrences(of: "%ld", with: String(percent)).replacingOccurrences(of: "%%", with: "%")
    }

    /// English, for a missing table or key (the `en.lproj` table says the same).
    static let builtInEnglish: [String: String] = [
        "hud.label": "Volume",
        "hud.value": "%ld percent",
        "hud.announcement": "Volume %ld percent",
        "hud.announcement.maximum": "Volume %ld percent, maximum",
        "hud.announcement.minimum": "Volume %ld percent, minimum",
        "mute.silent": "Silent mode on",
        "mute.ringing": "Silent mode off",
        "mute.unknown": "Silent mode unknown",
        "mute.unavailable": "No Ring/Silent switch",
    ]

    private static let cache = Locked([Language: [String: String]]())

    private static func loadTable(_ language: Language) -> [String: String] {
        if let cached = cache.withLock({ $0[language] }) { return cached }
        let table =
            VolumeKitResources.url(forTable: "VolumeKit", language: language.rawValue)
            .flatMap { try? Data(contentsOf: $0) }
            .flatMap(StringsTable.parse) ?? [:]
        cache.withLock { $0[language] = table }
        return table
    }
}

/// Finds VolumeKitCore's resource bundle without the generated `Bundle.module`, which stops the process when
/// the bundle is missing: VolumeKit falls back to built-in English instead.
enum VolumeKitResources {
    private final class Marker {}

    /// The bundle's names: `.bundle` on Apple platforms, `.resources` on Linux.
    static let bundleNames = ["VolumeKit_VolumeKitCore.bundle", "VolumeKit_VolumeKitCore.resources"]

    /// The folder holding the resources, if found next to the main executable, in the main bundle's
    /// resources, or beside the code that links VolumeKitCore (a framework or a test bundle).
    static let directory: URL? = {
        let code = Bundle(for: Marker.self)
        var bases = [
            Bundle.main.resourceURL, Bundle.main.bundleURL, code.resourceURL, code.bundleURL,
            code.bundleURL.deletingLastPathComponent(),
        ]
        if let executable = Bundle.main.executableURL { bases.append(executable.deletingLastPathComponent()) }
        for base in bases.compactMap({ $0 }) {
            for name in bundleNames {
                let candidate = base.appendingPathComponent(name, isDirectory: true)
                // An Apple `.bundle` keeps its files in Contents/Resources on macOS, at its top on iOS.
                for folder in [candidate.appendingPathComponent("Contents/Resources", isDirectory: true), candidate] {
                    if FileManager.default.fileExists(atPath: folder.appendingPathComponent("en.lproj").path) {
                        return folder
                    }
                }
            }
        }
        return nil
    }()

    /// The URL of `<language>.lproj/<table>.strings`, if present. SwiftPM on Linux writes the folders in
    /// lower case (`zh-hant.lproj`), Xcode as declared (`zh-Hant.lproj`): both are looked for.
    static func url(forTable table: String, language: String) -> URL? {
        guard let directory else { return nil }
        for name in [language, language.lowercased()] {
            let url = directory.appendingPathComponent("\(name).lproj", isDirectory: true).appendingPathComponent(
                "\(table).strings")
            if FileManager.default.fileExists(atPath: url.path) { return url }
        }
        return nil
    }
}

/// Reads a `.strings` table: the text form (`"key" = "value";`, comments, UTF-8 or UTF-16) as written in
/// the repository, or the property list a build may turn it into (Xcode can compile string tables to binary
/// property lists).
enum StringsTable {
    /// The table's pairs, or `nil` when `data` is neither form.
    static func parse(_ data: Data) -> [String: String]? {
        if data.starts(with: Array("bplist".utf8)) || data.starts(with: Array("<?xml".utf8)) {
            return (try? PropertyListSerialization.propertyList(from: data, format: nil)) as? [String: String]
        }
        guard let text = decode(data) else { return nil }
        return parse(text)
    }

    private static func decode(_ data: Data) -> String? {
        let bytes = [UInt8](data.prefix(2))
        if bytes == [0xFF, 0xFE] {
            return String(data: data, encoding: .utf16LittleEndian).map { String($0.drop { $0 == "\u{FEFF}" }) }
        }
        if bytes == [0xFE, 0xFF] {
            return String(data: data, encoding: .utf16BigEndian).map { String($0.drop { $0 == "\u{FEFF}" }) }
        }
        return String(data: data, encoding: .utf8).map { String($0.drop { $0 == "\u{FEFF}" }) }
    }

    /// Parses the text form; `nil` on a syntax error (an unterminated string or comment, a missing `=` or `;`).
    static func parse(_ text: String) -> [String: String]? {
        var result = [String: String]()
        var scalars = Array(text.unicodeScalars)[...]

        func skipSpaceAndComments() -> Bool {
            while let first = scalars.first {
                if first.properties.isWhitespace {
                    scalars.removeFirst()
                } else if scalars.starts(with: "/*".unicodeScalars) {
                    guard
                        let end = scalars.indices.dropFirst(2).first(where: {
                            scalars[$0] == "/" && scalars[$0 - 1] == "*"
                        })
                    else { return false }
                    scalars = scalars[(end + 1)...]
                } else if scalars.starts(with: "//".unicodeScalars) {
                    while let next = scalars.first, next != "\n" { scalars.removeFirst() }
                } else {
                    return true
                }
            }
            return true
        }

        func quoted() -> String? {
            guard scalars.first == "\"" else { return nil }
            scalars.removeFirst()
            var out = String.UnicodeScalarView()
            while let scalar = scalars.popFirst() {
                switch scalar {
                case "\"": return String(out)
                case "\\":
                    guard let escaped = scalars.popFirst() else { return nil }
                    switch escaped {
                    case "n": out.append("\n")
                    case "t": out.append("\t")
                    case "r": out.append("\r")
                    case "U", "u":
                        let hex = String(String.UnicodeScalarView(scalars.prefix(4)))
                        guard hex.count == 4, let value = UInt32(hex, radix: 16), let unicode = Unicode.Scalar(value)
                        else { return nil }
                        scalars = scalars.dropFirst(4)
                        out.append(unicode)
                    default: out.append(escaped)
                    }
                default: out.append(scalar)
                }
            }
            return nil
        }

        while true {
            guard skipSpaceAndComments() else { return nil }
            if scalars.isEmpty { return result }
            guard let key = quoted(), skipSpaceAndComments(), scalars.popFirst() == "=", skipSpaceAndComments(),
                let value = quoted(), skipSpaceAndComments(), scalars.popFirst() == ";"
            else { return nil }
            result[key] = value
        }
    }
}
