#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(CoreGraphics)
import CoreGraphics
#endif

/// A device shape for previews and layout tests: screen size, safe-area insets as iOS reports them to a
/// full-screen window with the status bar shown, and the cutout.
///
/// Values are points as UIKit reports them; island/notch sizes are approximations used only for drawing
/// (see ``VolumeHUDScreen/cutoutRect``). iPhones hide the status bar in landscape, so home-button iPhones
/// have no insets there.
public struct VolumeHUDDevice: Sendable, Equatable, Identifiable {
    /// Phone or tablet.
    public enum Kind: String, Sendable, Equatable, Hashable {
        /// iPhone.
        case phone
        /// iPad.
        case pad
    }

    /// Short identifier for `volumekit hud preview --device`, e.g. `iphone-15`.
    public var id: String
    /// Human name, e.g. "iPhone 14 Pro / 15 / 15 Pro / 16".
    public var name: String
    /// Phone or tablet.
    public var kind: Kind
    /// Screen size in portrait, points.
    public var portraitSize: VolumeHUDSize
    /// Safe-area insets in portrait.
    public var portraitInsets: VolumeHUDInsets
    /// Safe-area insets in landscape-left (landscape-right mirrors left and right).
    public var landscapeInsets: VolumeHUDInsets
    /// Notch, Dynamic Island or nothing.
    public var cutout: VolumeHUDCutout
    /// Corner radius of the display, points (0 for square displays), for drawing.
    public var displayCornerRadius: VolumeHUDFloat
    /// Whether it has a home button, for drawing.
    public var hasHomeButton: Bool

    /// Creates a device shape.
    public init(
        id: String, name: String, kind: Kind, portraitSize: VolumeHUDSize,
        portraitInsets: VolumeHUDInsets, landscapeInsets: VolumeHUDInsets,
        cutout: VolumeHUDCutout, displayCornerRadius: VolumeHUDFloat, hasHomeButton: Bool
    ) {
        self.id = id
        self.name = name
        self.kind = kind
        self.portraitSize = portraitSize
        self.portraitInsets = portraitInsets
        self.landscapeInsets = landscapeInsets
        self.cutout = cutout
        self.displayCornerRadius = displayCornerRadius
        self.hasHomeButton = hasHomeButton
    }

    /// The screen in `orientation`.
    public func screen(_ orientation: VolumeHUDOrientation, isRightToLeft: Bool = false) -> VolumeHUDScreen {
        switch orientation {
        case .portrait:
            return VolumeHUDScreen(
                size: portraitSize, safeArea: portraitInsets, orientation: .portrait, cutout: cutout,
                isRightToLeft: isRightToLeft)
        case .landscapeLeft, .landscapeRight:
            var insets = landscapeInsets
            if orientation == .landscapeRight { swap(&insets.left, &insets.right) }
            return VolumeHUDScreen(
                size: VolumeHUDSize(width: portraitSize.height, height: portraitSize.width),
                safeArea: insets, orientation: orientation, cutout: cutout, isRightToLeft: isRightToLeft
            )
        }
    }

    private static func phone(
        _ id: String, _ name: String, _ width: VolumeHUDFloat, _ height: VolumeHUDFloat, top: VolumeHUDFloat,
        bottom: VolumeHUDFloat,
        side: VolumeHUDFloat, landscapeBottom: VolumeHUDFloat, cutout: VolumeHUDCutout, radius: VolumeHUDFloat
    ) -> VolumeHUDDevice {
        VolumeHUDDevice(
            id: id, name: name, kind: .phone, portraitSize: VolumeHUDSize(width: width, height: height),
            portraitInsets: VolumeHUDInsets(top: top, bottom: bottom),
            landscapeInsets: VolumeHUDInsets(left: side, bottom: landscapeBottom, right: side),
            cutout: cutout, displayCornerRadius: radius, hasHomeButton: cutout == .none
        )
    }

    private static func pad(
        _ id: String, _ name: String, _ width: VolumeHUDFloat, _ height: VolumeHUDFloat, top: VolumeHUDFloat,
        bottom: VolumeHUDFloat,
        radius: VolumeHUDFloat
    ) -> VolumeHUDDevice {
        VolumeHUDDevice(
            id: id, name: name, kind: .pad, portraitSize: VolumeHUDSize(width: width, height: height),
            portraitInsets: VolumeHUDInsets(top: top, bottom: bottom),
            landscapeInsets: VolumeHUDInsets(top: top, bottom: bottom),
            cutout: .none, displayCornerRadius: radius, hasHomeButton: radius == 0
        )
    }

    /// The main iPhone and iPad shapes since iOS 15's supported devices.
    public static let all: [VolumeHUDDevice] = [
        phone(
            "iphone-se", "iPhone SE (2nd/3rd gen) / 8", 375, 667, top: 20, bottom: 0, side: 0, landscapeBottom: 0,
            cutout: .none, radius: 0),
        phone(
            "iphone-8-plus", "iPhone 8 Plus", 414, 736, top: 20, bottom: 0, side: 0, landscapeBottom: 0, cutout: .none,
            radius: 0),
        phone(
            "iphone-x", "iPhone X / XS / 11 Pro", 375, 812, top: 44, bottom: 34, side: 44, landscapeBottom: 21,
            cutout: .notch, radius: 39),
        phone(
            "iphone-11", "iPhone XR / 11", 414, 896, top: 48, bottom: 34, side: 48, landscapeBottom: 21, cutout: .notch,
            radius: 41.5),
        phone(
            "iphone-13-mini", "iPhone 12 mini / 13 mini", 375, 812, top: 50, bottom: 34, side: 50, landscapeBottom: 21,
            cutout: .notch, radius: 44),
        phone(
            "iphone-14", "iPhone 13 / 14", 390, 844, top: 47, bottom: 34, side: 47, landscapeBottom: 21, cutout: .notch,
            radius: 47.33),
        phone(
            "iphone-15", "iPhone 14 Pro / 15 / 15 Pro / 16", 393, 852, top: 59, bottom: 34, side: 59,
            landscapeBottom: 21, cutout: .dynamicIsland, radius: 55),
        phone(
            "iphone-15-pro-max", "iPhone 14 Pro Max / 15 Plus / 15 Pro Max / 16 Plus", 430, 932, top: 59, bottom: 34,
            side: 59, landscapeBottom: 21, cutout: .dynamicIsland, radius: 55),
        phone(
            "iphone-16-pro", "iPhone 16 Pro", 402, 874, top: 62, bottom: 34, side: 62, landscapeBottom: 21,
            cutout: .dynamicIsland, radius: 62),
        pad("ipad", "iPad (9th gen)", 810, 1080, top: 20, bottom: 0, radius: 0),
        pad("ipad-air", "iPad Air / iPad (10th gen)", 820, 1180, top: 24, bottom: 20, radius: 18),
        pad("ipad-mini", "iPad mini (6th gen)", 744, 1133, top: 24, bottom: 20, radius: 21.5),
        pad("ipad-pro-11", "iPad Pro 11-inch", 834, 1194, top: 24, bottom: 20, radius: 18),
        pad("ipad-pro-13", "iPad Pro 12.9/13-inch", 1024, 1366, top: 24, bottom: 20, radius: 18),
    ]

    /// The device called `id` (case-insensitive), or `nil`.
    public static func named(_ id: String) -> VolumeHUDDevice? {
        all.first { $0.id.lowercased() == id.lowercased() }
    }
}
