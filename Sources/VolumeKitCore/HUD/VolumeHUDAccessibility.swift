#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The words VoiceOver speaks for the HUD, as pure functions so that they are tested on Linux.
///
/// None of the prior-art HUDs announced anything (`shared/facts/volume-hud.md` §6); the pattern here follows
/// horologist's volume screen, which announces the percentage on each change. These are the English forms;
/// ``VolumeKitStrings`` gives them in the app's language (English, Simplified and Traditional Chinese, Korean).
public enum VolumeHUDAccessibility {
    /// The whole percentage for `level` (0…1), rounded to nearest: 0.5 → 50, 0.0625 → 6.
    public static func percent(_ level: Float) -> Int {
        guard level.isFinite else { return 0 }
        return Int((Double(min(1, max(0, level))) * 100).rounded())
    }

    /// The announcement for a change: "Volume 50 percent"; at a rail "Volume 100 percent, maximum" or
    /// "Volume 0 percent, minimum".
    public static func announcement(level: Float, bump: VolumeHUDBump? = nil) -> String {
        VolumeKitStrings.english.announcement(level: level, bump: bump)
    }

    /// The label of the HUD view: "Volume".
    public static var label: String { VolumeKitStrings.english.hudLabel }

    /// The value of the HUD view: "50 percent".
    public static func value(level: Float) -> String { VolumeKitStrings.english.hudValue(level: level) }
}
