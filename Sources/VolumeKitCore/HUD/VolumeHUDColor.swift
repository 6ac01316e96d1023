#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A colour as plain RGBA components (0…1, sRGB), so that styles stay platform-free and comparable.
public struct VolumeHUDColor: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Red, 0…1.
    public var red: Double
    /// Green, 0…1.
    public var green: Double
    /// Blue, 0…1.
    public var blue: Double
    /// Opacity, 0…1.
    public var alpha: Double

    /// Creates a colour; components are clamped to 0…1 (NaN becomes 0).
    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        func clamp(_ value: Double) -> Double { value.isNaN ? 0 : min(1, max(0, value)) }
        self.red = clamp(red)
        self.green = clamp(green)
        self.blue = clamp(blue)
        self.alpha = clamp(alpha)
    }

    /// Creates a colour from `0xRRGGBB` and an opacity.
    public init(hex: UInt32, alpha: Double = 1) {
        self.init(
            red: Double((hex >> 16) & 0xFF) / 255,
            green: Double((hex >> 8) & 0xFF) / 255,
            blue: Double(hex & 0xFF) / 255,
            alpha: alpha
        )
    }

    /// A grey of `white` brightness.
    public init(white: Double, alpha: Double = 1) {
        self.init(red: white, green: white, blue: white, alpha: alpha)
    }

    /// The same colour with another opacity.
    public func withAlpha(_ alpha: Double) -> VolumeHUDColor {
        VolumeHUDColor(red: red, green: green, blue: blue, alpha: alpha)
    }

    /// `#RRGGBB`, ignoring opacity (SVG's `fill`; opacity goes in `fill-opacity`).
    public var hexString: String {
        func byte(_ value: Double) -> Int { Int((value * 255).rounded()) }
        return cFormat("#%02X%02X%02X", byte(red), byte(green), byte(blue))
    }

    /// `#RRGGBB@0.50`.
    public var description: String { hexString + cFormat("@%.2f", alpha) }

    /// Opaque white.
    public static let white = VolumeHUDColor(white: 1)
    /// Opaque black.
    public static let black = VolumeHUDColor(white: 0)
    /// Fully transparent.
    public static let clear = VolumeHUDColor(white: 0, alpha: 0)
    /// iOS's system blue (light appearance), 0x007AFF.
    public static let systemBlue = VolumeHUDColor(hex: 0x007AFF)
}

/// The colours of one HUD appearance.
public struct VolumeHUDPalette: Sendable, Equatable, Hashable {
    /// The plate behind the bar (clear for a bare bar).
    public var background: VolumeHUDColor
    /// The unfilled part of the bar / unlit segments.
    public var track: VolumeHUDColor
    /// The filled part of the bar / lit segments.
    public var fill: VolumeHUDColor
    /// The end of the bar that was bumped when a press hits 0 or 1.
    public var bump: VolumeHUDColor
    /// A hairline around the plate (clear for none); Increase Contrast palettes use it to separate the HUD
    /// from any content behind.
    public var outline: VolumeHUDColor

    /// Creates a palette.
    public init(
        background: VolumeHUDColor,
        track: VolumeHUDColor,
        fill: VolumeHUDColor,
        bump: VolumeHUDColor,
        outline: VolumeHUDColor = .clear
    ) {
        self.background = background
        self.track = track
        self.fill = fill
        self.bump = bump
        self.outline = outline
    }
}
