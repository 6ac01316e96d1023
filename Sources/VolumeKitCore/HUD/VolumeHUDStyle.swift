#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(CoreGraphics)
import CoreGraphics
#endif

/// How the bar is drawn.
public enum VolumeHUDFill: Sendable, Equatable, Hashable {
    /// One segment per step. iOS has 16 volume steps of 0.0625 (`shared/facts/volume-hud.md` §4; seed 002),
    /// so `.segmented(count: 16)` lights one segment per press.
    case segmented(count: Int)
    /// One continuous bar.
    case continuous

    /// The number of drawn pieces: the segment count (at least 1), or 1 for a continuous bar.
    public var segmentCount: Int {
        switch self {
        case .segmented(let count): return max(1, count)
        case .continuous: return 1
        }
    }
}

/// Where the HUD sits on screen. See ``VolumeHUDLayout`` for the exact geometry.
public enum VolumeHUDPlacement: String, Sendable, Equatable, Hashable, CaseIterable {
    /// A horizontal bar centred just below the top safe-area edge (below the status bar: since iOS 13 no app
    /// window can draw over it, `shared/facts/volume-hud.md` §5).
    case top
    /// Next to the Dynamic Island or notch: just below it in portrait, on its inner side in landscape.
    /// Falls back to ``top`` on devices without a cutout.
    case besideIsland
    /// A vertical bar along the leading edge (the side of the iPhone's volume buttons in portrait).
    case leading
    /// A vertical bar along the trailing edge.
    case trailing
}

/// How the HUD appears and disappears.
public enum VolumeHUDAnimation: String, Sendable, Equatable, Hashable, CaseIterable {
    /// Cross-fade.
    case fade
    /// Slide in from the nearest edge (or out of the island) while fading.
    case slide
    /// Appear and disappear at once.
    case none

    /// The animation to use when the user turned on Reduce Motion: ``slide`` becomes ``fade``.
    public func resolved(reduceMotion: Bool) -> VolumeHUDAnimation {
        reduceMotion && self == .slide ? .fade : self
    }

    /// Seconds an appearance or disappearance takes (0.2 s as VolumeBar's presets; 0 for ``none``).
    public var duration: TimeInterval { self == .none ? 0 : 0.2 }
}

/// Everything about how the HUD looks, as one value: platform-free, so that the iOS views, the SVG preview
/// and the tests read the same numbers.
///
/// Sizes are points and deliberately ignore Dynamic Type: the HUD carries no text, and a bar that grows with
/// the text size would cover content. VoiceOver gets the level as words instead
/// (``VolumeHUDAccessibility``).
public struct VolumeHUDStyle: Sendable, Equatable, Hashable {
    /// A short identifier (`classic`, `island`, …); used by `volumekit hud preview --style`.
    public var name: String
    /// Segmented or continuous.
    public var fill: VolumeHUDFill
    /// Where it sits.
    public var placement: VolumeHUDPlacement
    /// How it appears.
    public var animation: VolumeHUDAnimation
    /// Seconds the HUD stays after the last change (VolumeBar's 1.5 s by default).
    public var autoHideDelay: TimeInterval
    /// Colours in the standard appearance.
    public var colors: VolumeHUDPalette
    /// Colours when Increase Contrast (Darken Colors) is on.
    public var highContrastColors: VolumeHUDPalette
    /// The bar's length along its axis, in points (the plate adds ``padding`` on each side).
    public var length: VolumeHUDFloat
    /// The bar's thickness, in points.
    public var thickness: VolumeHUDFloat
    /// Space between the bar and the plate's edge, in points.
    public var padding: VolumeHUDFloat
    /// Distance between the plate and the safe-area edge (or the island), in points.
    public var margin: VolumeHUDFloat
    /// Gap between segments, in points.
    public var segmentSpacing: VolumeHUDFloat
    /// The plate's corner radius in points; clamped to half the plate's thickness (a capsule).
    public var cornerRadius: VolumeHUDFloat
    /// The corner radius of the bar and of each segment; clamped to half the bar's thickness.
    public var barCornerRadius: VolumeHUDFloat

    /// Creates a style. Negative or non-finite sizes are replaced by 0, lengths by at least 1 point.
    public init(
        name: String,
        fill: VolumeHUDFill = .segmented(count: 16),
        placement: VolumeHUDPlacement = .top,
        animation: VolumeHUDAnimation = .fade,
        autoHideDelay: TimeInterval = 1.5,
        colors: VolumeHUDPalette,
        highContrastColors: VolumeHUDPalette? = nil,
        length: VolumeHUDFloat = 160,
        thickness: VolumeHUDFloat = 6,
        padding: VolumeHUDFloat = 8,
        margin: VolumeHUDFloat = 8,
        segmentSpacing: VolumeHUDFloat = 2,
        cornerRadius: VolumeHUDFloat = .greatestFiniteMagnitude,
        barCornerRadius: VolumeHUDFloat = 1.5
    ) {
        func size(_ value: VolumeHUDFloat) -> VolumeHUDFloat { value.isFinite ? max(0, value) : 0 }
        self.name = name
        self.fill = fill
        self.placement = placement
        self.animation = animation
        self.autoHideDelay = autoHideDelay.isFinite ? max(0, autoHideDelay) : 1.5
        self.colors = colors
        self.highContrastColors = highContrastColors ?? colors
        self.length = max(1, size(length))
        self.thickness = max(1, size(thickness))
        self.padding = size(padding)
        self.margin = size(margin)
        self.segmentSpacing = size(segmentSpacing)
        self.cornerRadius = size(cornerRadius)
        self.barCornerRadius = size(barCornerRadius)
    }

    /// The palette for the current accessibility setting.
    public func palette(increaseContrast: Bool) -> VolumeHUDPalette {
        increaseContrast ? highContrastColors : colors
    }

    /// A copy with another name (for apps deriving their own style from a preset).
    public func named(_ name: String) -> VolumeHUDStyle {
        var copy = self
        copy.name = name
        return copy
    }
}
