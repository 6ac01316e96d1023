#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(CoreGraphics)
import CoreGraphics
#endif

/// The interface orientation, named as UIKit names them (`UIInterfaceOrientation`).
public enum VolumeHUDOrientation: String, Sendable, Equatable, Hashable, CaseIterable {
    /// Upright.
    case portrait
    /// Home button (or bottom edge) on the left: the top of the device — and its cutout — is on the right.
    case landscapeLeft
    /// Home button (or bottom edge) on the right: the top of the device — and its cutout — is on the left.
    case landscapeRight

    /// Whether this is a landscape orientation.
    public var isLandscape: Bool { self != .portrait }
}

/// What interrupts the top of an iPhone's display.
public enum VolumeHUDCutout: String, Sendable, Equatable, Hashable, CaseIterable {
    /// Nothing (home-button iPhones, iPads).
    case none
    /// The notch (iPhone X … 14): top safe-area inset 44–50 pt.
    case notch
    /// The Dynamic Island (iPhone 14 Pro and later): top safe-area inset 59 pt or more.
    case dynamicIsland

    /// The top safe-area inset from which a portrait iPhone has a Dynamic Island: 59 pt (iPhone 14 Pro,
    /// `shared/facts/volume-hud.md` §5, apache/cordova-plugin-statusbar #243); 16 Pro reports 62.
    public static let islandTopInset: VolumeHUDFloat = 59
    /// The smallest top inset a notch gives (iPhone X: 44 pt; 13/14: 47; 11/XR: 48; 12/13 mini: 50).
    public static let notchTopInset: VolumeHUDFloat = 44

    /// Infers the cutout from safe-area insets, as an app can read them at run time: the inset on the side of
    /// the device's top edge (top in portrait, the right in landscape-left, the left in landscape-right).
    /// Pass `isPad: true` on iPad, which has no cutout whatever its insets.
    public static func inferred(from insets: VolumeHUDInsets, orientation: VolumeHUDOrientation, isPad: Bool = false)
        -> VolumeHUDCutout
    {
        guard !isPad else { return .none }
        let inset: VolumeHUDFloat
        switch orientation {
        case .portrait: inset = insets.top
        case .landscapeLeft: inset = insets.right
        case .landscapeRight: inset = insets.left
        }
        if inset >= islandTopInset { return .dynamicIsland }
        if inset >= notchTopInset { return .notch }
        return .none
    }
}

/// Safe-area insets in points (UIKit's `UIEdgeInsets`, without UIKit).
public struct VolumeHUDInsets: Sendable, Equatable, Hashable {
    /// Top inset.
    public var top: VolumeHUDFloat
    /// Left inset.
    public var left: VolumeHUDFloat
    /// Bottom inset.
    public var bottom: VolumeHUDFloat
    /// Right inset.
    public var right: VolumeHUDFloat

    /// Creates insets; negative or non-finite values become 0.
    public init(
        top: VolumeHUDFloat = 0, left: VolumeHUDFloat = 0, bottom: VolumeHUDFloat = 0, right: VolumeHUDFloat = 0
    ) {
        func clean(_ value: VolumeHUDFloat) -> VolumeHUDFloat { value.isFinite ? max(0, value) : 0 }
        self.top = clean(top)
        self.left = clean(left)
        self.bottom = clean(bottom)
        self.right = clean(right)
    }

    /// No insets.
    public static let zero = VolumeHUDInsets()
}

/// The screen the HUD is laid out on, in the current interface orientation.
public struct VolumeHUDScreen: Sendable, Equatable {
    /// The window's size in points, in the current orientation (width > height in landscape).
    public var size: VolumeHUDSize
    /// The window's safe-area insets in the current orientation.
    public var safeArea: VolumeHUDInsets
    /// The interface orientation.
    public var orientation: VolumeHUDOrientation
    /// The device's cutout (use ``VolumeHUDCutout/inferred(from:orientation:isPad:)`` at run time).
    public var cutout: VolumeHUDCutout
    /// Right-to-left layout: ``VolumeHUDPlacement/leading`` is then the right edge.
    public var isRightToLeft: Bool

    /// Creates a screen description. A non-finite or negative size becomes zero.
    public init(
        size: VolumeHUDSize,
        safeArea: VolumeHUDInsets,
        orientation: VolumeHUDOrientation,
        cutout: VolumeHUDCutout,
        isRightToLeft: Bool = false
    ) {
        func clean(_ value: VolumeHUDFloat) -> VolumeHUDFloat { value.isFinite ? max(0, value) : 0 }
        self.size = VolumeHUDSize(width: clean(size.width), height: clean(size.height))
        self.safeArea = safeArea
        self.orientation = orientation
        self.cutout = cutout
        self.isRightToLeft = isRightToLeft
    }

    /// The rectangle inside the safe area.
    public var safeRect: VolumeHUDRect {
        VolumeHUDRect(
            x: safeArea.left,
            y: safeArea.top,
            width: max(0, size.width - safeArea.left - safeArea.right),
            height: max(0, size.height - safeArea.top - safeArea.bottom)
        )
    }

    /// Approximate size of the Dynamic Island in portrait (iPhone 14 Pro: 126 × 37 pt, 11 pt below the top edge).
    public static let islandSize = VolumeHUDSize(width: 126, height: 37)
    /// Distance of the Dynamic Island from the device's top edge.
    public static let islandTop: VolumeHUDFloat = 11
    /// Approximate size of the notch in portrait (iPhone 13/14: about 162 × 33 pt; iPhone X: about 209 × 30).
    public static let notchSize = VolumeHUDSize(width: 162, height: 33)

    /// Where the cutout is on screen in this orientation, or `nil` without one. Approximate: used to place
    /// the HUD next to it and to draw previews, never to hit-test.
    public var cutoutRect: VolumeHUDRect? {
        let portrait: VolumeHUDSize
        let inset: VolumeHUDFloat
        switch cutout {
        case .none: return nil
        case .dynamicIsland:
            portrait = VolumeHUDScreen.islandSize
            inset =
                VolumeHUDScreen.islandTop
                + max(
                    0,
                    (orientation.isLandscape ? max(safeArea.left, safeArea.right) : safeArea.top)
                        - VolumeHUDCutout.islandTopInset)
        case .notch:
            portrait = VolumeHUDScreen.notchSize
            inset = 0
        }
        switch orientation {
        case .portrait:
            return VolumeHUDRect(
                x: (size.width - portrait.width) / 2, y: inset, width: portrait.width, height: portrait.height)
        case .landscapeLeft:
            return VolumeHUDRect(
                x: size.width - inset - portrait.height, y: (size.height - portrait.width) / 2, width: portrait.height,
                height: portrait.width)
        case .landscapeRight:
            return VolumeHUDRect(
                x: inset, y: (size.height - portrait.width) / 2, width: portrait.height, height: portrait.width)
        }
    }
}
