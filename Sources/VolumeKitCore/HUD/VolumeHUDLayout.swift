#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(CoreGraphics)
import CoreGraphics
#endif

/// The direction the bar runs in.
public enum VolumeHUDAxis: String, Sendable, Equatable, Hashable {
    /// Left to right (not mirrored for right-to-left languages).
    case horizontal
    /// Bottom to top.
    case vertical
}

/// Where the HUD goes on one screen: pure geometry, the same numbers for the iOS window, the SwiftUI and
/// UIKit views and the SVG preview.
///
/// Rules (seed 002; `shared/facts/volume-hud.md` §5):
/// - ``VolumeHUDPlacement/top``: horizontal, centred in the safe area, ``VolumeHUDStyle/margin`` below the
///   top safe-area edge — below the status bar, which app windows cannot cover since iOS 13;
/// - ``VolumeHUDPlacement/besideIsland``: with a Dynamic Island or notch, horizontal and centred just below it
///   in portrait (the ears hold the clock and status icons, drawn above every app window); vertical and
///   next to its inner side in landscape; without a cutout, as ``VolumeHUDPlacement/top``;
/// - ``VolumeHUDPlacement/leading`` / ``VolumeHUDPlacement/trailing``: vertical, centred in the safe area's
///   height, ``VolumeHUDStyle/margin`` inside the safe area's side (mirrored for right-to-left);
/// - the bar never grows beyond the safe area minus the margins; sizes never depend on Dynamic Type.
public struct VolumeHUDLayout: Sendable, Equatable {
    /// The plate's frame in the window's coordinates (points).
    public var frame: VolumeHUDRect
    /// The bar's direction.
    public var axis: VolumeHUDAxis
    /// The placement actually used (``VolumeHUDPlacement/besideIsland`` falls back to ``VolumeHUDPlacement/top``).
    public var placement: VolumeHUDPlacement
    /// Where the plate comes from for the slide animation: add this to the frame's origin for the hidden
    /// position (it points off screen, or into the island).
    public var slideOffset: VolumeHUDPoint

    /// Creates a layout from its parts (normally use ``init(style:screen:)``).
    public init(frame: VolumeHUDRect, axis: VolumeHUDAxis, placement: VolumeHUDPlacement, slideOffset: VolumeHUDPoint) {
        self.frame = frame
        self.axis = axis
        self.placement = placement
        self.slideOffset = slideOffset
    }

    /// Lays out `style` on `screen`.
    public init(style: VolumeHUDStyle, screen: VolumeHUDScreen) {
        let safe = screen.safeRect
        let margin = style.margin
        let across = style.thickness + 2 * style.padding
        func along(available: VolumeHUDFloat) -> VolumeHUDFloat {
            max(across, min(style.length + 2 * style.padding, available - 2 * margin))
        }

        var placement = style.placement
        if placement == .besideIsland && screen.cutoutRect == nil { placement = .top }
        let leadingIsLeft = !screen.isRightToLeft

        switch placement {
        case .top:
            let width = along(available: safe.width)
            frame = VolumeHUDRect(x: safe.midX - width / 2, y: safe.minY + margin, width: width, height: across)
            axis = .horizontal
            slideOffset = VolumeHUDPoint(x: 0, y: -(frame.maxY + 1))
        case .besideIsland:
            let cutout = screen.cutoutRect ?? .zero
            if screen.orientation.isLandscape {
                let height = along(available: safe.height)
                let x = screen.orientation == .landscapeRight ? cutout.maxX + margin : cutout.minX - margin - across
                frame = VolumeHUDRect(x: x, y: cutout.midY - height / 2, width: across, height: height)
                axis = .vertical
                slideOffset = VolumeHUDPoint(x: cutout.midX - frame.midX, y: 0)
            } else {
                let width = along(available: safe.width)
                frame = VolumeHUDRect(x: cutout.midX - width / 2, y: cutout.maxY + margin, width: width, height: across)
                axis = .horizontal
                slideOffset = VolumeHUDPoint(x: 0, y: cutout.midY - frame.midY)
            }
        case .leading, .trailing:
            let height = along(available: safe.height)
            let onLeft = (placement == .leading) == leadingIsLeft
            let x = onLeft ? safe.minX + margin : safe.maxX - margin - across
            frame = VolumeHUDRect(x: x, y: safe.midY - height / 2, width: across, height: height)
            axis = .vertical
            slideOffset = VolumeHUDPoint(x: onLeft ? -(frame.maxX + 1) : screen.size.width - frame.minX + 1, y: 0)
        }
        self.placement = placement
    }
}
