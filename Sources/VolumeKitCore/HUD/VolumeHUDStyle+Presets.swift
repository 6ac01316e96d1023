#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension VolumeHUDStyle {
    /// A dark capsule with 16 segments below the status bar: the look most apps want.
    public static let classic = VolumeHUDStyle(
        name: "classic",
        fill: .segmented(count: 16),
        placement: .top,
        animation: .fade,
        colors: VolumeHUDPalette(
            background: VolumeHUDColor(hex: 0x1C1C1E, alpha: 0.82),
            track: VolumeHUDColor(white: 1, alpha: 0.25),
            fill: .white,
            bump: VolumeHUDColor(hex: 0xFFD60A)
        ),
        highContrastColors: VolumeHUDPalette(
            background: VolumeHUDColor(hex: 0x000000),
            track: VolumeHUDColor(white: 1, alpha: 0.45),
            fill: .white,
            bump: VolumeHUDColor(hex: 0xFFD60A),
            outline: .white
        ),
        length: 160, thickness: 6, padding: 8, margin: 8, segmentSpacing: 2
    )

    /// A black pill that grows out of the Dynamic Island (below it in portrait, beside it in landscape),
    /// continuous bar; below the status bar on devices without a cutout.
    public static let island = VolumeHUDStyle(
        name: "island",
        fill: .continuous,
        placement: .besideIsland,
        animation: .slide,
        colors: VolumeHUDPalette(
            background: .black,
            track: VolumeHUDColor(white: 1, alpha: 0.28),
            fill: .white,
            bump: VolumeHUDColor(hex: 0x30D158)
        ),
        highContrastColors: VolumeHUDPalette(
            background: .black,
            track: VolumeHUDColor(white: 1, alpha: 0.5),
            fill: .white,
            bump: VolumeHUDColor(hex: 0x30D158),
            outline: VolumeHUDColor(white: 1, alpha: 0.9)
        ),
        length: 100, thickness: 5, padding: 9, margin: 6, segmentSpacing: 0, barCornerRadius: 2.5
    )

    /// A vertical bar on the leading edge, next to the iPhone's volume buttons, like iOS's own compact HUD.
    public static let edge = VolumeHUDStyle(
        name: "edge",
        fill: .continuous,
        placement: .leading,
        animation: .slide,
        colors: VolumeHUDPalette(
            background: VolumeHUDColor(hex: 0xF2F2F7, alpha: 0.92),
            track: VolumeHUDColor(hex: 0x3C3C43, alpha: 0.22),
            fill: VolumeHUDColor(hex: 0x1C1C1E),
            bump: VolumeHUDColor(hex: 0xFF9F0A)
        ),
        highContrastColors: VolumeHUDPalette(
            background: .white,
            track: VolumeHUDColor(hex: 0x3C3C43, alpha: 0.45),
            fill: .black,
            bump: VolumeHUDColor(hex: 0xC93400),
            outline: .black
        ),
        length: 140, thickness: 8, padding: 5, margin: 6, segmentSpacing: 0, barCornerRadius: 4
    )

    /// A bare 16-segment line in the system tint, no plate, for apps with their own chrome.
    public static let minimal = VolumeHUDStyle(
        name: "minimal",
        fill: .segmented(count: 16),
        placement: .top,
        animation: .none,
        colors: VolumeHUDPalette(
            background: .clear,
            track: VolumeHUDColor(hex: 0x8E8E93, alpha: 0.35),
            fill: .systemBlue,
            bump: VolumeHUDColor(hex: 0xFF3B30)
        ),
        highContrastColors: VolumeHUDPalette(
            background: VolumeHUDColor(white: 1, alpha: 0.9),
            track: VolumeHUDColor(hex: 0x3C3C43, alpha: 0.6),
            fill: VolumeHUDColor(hex: 0x0040DD),
            bump: VolumeHUDColor(hex: 0xD70015)
        ),
        length: 200, thickness: 4, padding: 2, margin: 4, segmentSpacing: 1.5, cornerRadius: 3, barCornerRadius: 1
    )

    /// Every preset, in the order documentation shows them.
    public static let presets: [VolumeHUDStyle] = [.classic, .island, .edge, .minimal]

    /// The preset called `name` (case-insensitive), or `nil`.
    public static func preset(named name: String) -> VolumeHUDStyle? {
        presets.first { $0.name.lowercased() == name.lowercased() }
    }
}
