#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension VolumeKitStrings.Language {
    /// The language VolumeKit speaks in an app: the first of the user's preferred languages that the app is
    /// localized in and VolumeKit has a table for; English when there is none.
    ///
    /// iOS shows an app in the first of the user's languages the app has, so VolumeKit's words follow the app,
    /// not the user alone: an English-only app announces in English to a user whose first language is Korean,
    /// and an app localized in Korean announces in Korean to that user. A language the app has and VolumeKit
    /// lacks (French, in an app in French and Korean) is passed over for the next one both have — Korean there,
    /// if the user also lists it — else English.
    ///
    /// Identifiers on both sides are read as ``init(identifier:)`` reads them: "en-GB" is English, "ko-KR"
    /// Korean, "zh-HK" Traditional Chinese; "Base" and languages VolumeKit has no table for count for nothing.
    /// - Parameters:
    ///   - preferredLanguages: BCP 47 identifiers, most preferred first (the user's: `Locale.preferredLanguages`).
    ///   - appLocalizations: the app's localizations (`Bundle.main.localizations`: "en", "ko", "zh-Hant", "Base"…).
    ///   - developmentLocalization: the app's development language (`Bundle.main.developmentLocalization`),
    ///     which counts as one of its localizations: its unlocalized and `Base` resources are in it.
    public init(preferredLanguages: [String], appLocalizations: [String], developmentLocalization: String? = nil) {
        let localizations = appLocalizations + [developmentLocalization].compactMap { $0 }
        let app = Set(localizations.compactMap(Self.init(identifier:)))
        self = preferredLanguages.lazy.compactMap(Self.init(identifier:)).first(where: app.contains) ?? .english
    }

    /// The app's language now: the user's preferred languages (`Locale.preferredLanguages`) among the main
    /// bundle's localizations, as ``init(preferredLanguages:appLocalizations:developmentLocalization:)`` chooses.
    /// Outside Apple's platforms a process has no app bundle (VolumeKit's Linux builds leave out `Bundle`, which
    /// comes with swift-corelibs-foundation there): English.
    public static var current: VolumeKitStrings.Language {
        #if canImport(FoundationEssentials)
        VolumeKitStrings.Language(preferredLanguages: Locale.preferredLanguages, appLocalizations: [])
        #else
        VolumeKitStrings.Language(
            preferredLanguages: Locale.preferredLanguages, appLocalizations: Bundle.main.localizations,
            developmentLocalization: Bundle.main.developmentLocalization)
        #endif
    }
}

extension VolumeHUDOptions {
    /// The words of the HUD's announcements and of its VoiceOver label and value: in ``language`` when one is
    /// set, else in the app's language (``VolumeKitStrings/Language/current``).
    public var strings: VolumeKitStrings {
        language.map(VolumeKitStrings.init(language:)) ?? VolumeKitStrings(language: .current)
    }
}
