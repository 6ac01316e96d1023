import Foundation

/// The words VoiceOver speaks for the HUD, as pure functions so that they are tested on Linux.
///
/// None of the prior-art HUDs announced anything (`shared/facts/volume-hud.md` §6); the pattern here follows
/// horologist's volume screen, which announces the percentage on each change. English only for now.
public enum VolumeHUDAccessibility {
    /// The whole percentage for `level` (0…1), rounded to nearest: 0.5 → 50, 0.0625 → 6.
    public static func percent(_ level: Float) -> Int {
        guard level.isFinite else { return 0 }
        return Int((Double(min(1, max(0, level))) * 100).rounded())
    }

    /// The announcement for a change: "Volume 50 percent"; at a rail "Volume 100 percent, maximum" or
    /// "Volume 0 percent, minimum".
    public static func announcement(level: Float, bump: VolumeHUDBump? = nil) -> String {
        let base = "Volume \(percent(level)) percent"
        switch bump {
        case .none: return base
        case .minimum?: return base + ", minimum"
        case .maximum?: return base + ", maximum"
        }
    }

    /// The label of the HUD view: "Volume".
    public static let label = "Volume"

    /// The value of the HUD view: "50 percent".
    public static func value(level: Float) -> String { "\(percent(level)) percent" }
}
