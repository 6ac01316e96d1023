#if canImport(CoreGraphics)
import CoreGraphics

/// A length in the HUD's geometry, in points: `CGFloat` on Apple platforms.
public typealias VolumeHUDFloat = CGFloat
/// A point in the HUD's geometry: `CGPoint` on Apple platforms.
public typealias VolumeHUDPoint = CGPoint
/// A size in the HUD's geometry: `CGSize` on Apple platforms.
public typealias VolumeHUDSize = CGSize
/// A rectangle in the HUD's geometry: `CGRect` on Apple platforms.
public typealias VolumeHUDRect = CGRect
#else

// Outside Apple's platforms the HUD's geometry has types of its own, so that VolumeKitCore needs only
// FoundationEssentials there: `CGFloat`, `CGRect`, `CGSize` and `CGPoint` come with swift-corelibs-foundation
// on Linux, whose start alone would double a one-shot `volumekit` process (docs/decisions/cli.md, "On Linux VolumeKit builds on FoundationEssentials").
// They have the members the HUD's layout uses, with the same meaning as CoreGraphics'.

/// A length in the HUD's geometry, in points: `CGFloat` on Apple platforms, `Double` elsewhere.
public typealias VolumeHUDFloat = Double

/// A point in the HUD's geometry: `CGPoint` on Apple platforms.
public struct VolumeHUDPoint: Sendable, Hashable {
    /// The horizontal coordinate.
    public var x: VolumeHUDFloat
    /// The vertical coordinate, growing downwards as UIKit's does.
    public var y: VolumeHUDFloat
    /// The point at `x`, `y`.
    public init(x: VolumeHUDFloat, y: VolumeHUDFloat) {
        self.x = x
        self.y = y
    }
    /// The origin.
    public static let zero = VolumeHUDPoint(x: 0, y: 0)
}

/// A size in the HUD's geometry: `CGSize` on Apple platforms.
public struct VolumeHUDSize: Sendable, Hashable {
    /// The width.
    public var width: VolumeHUDFloat
    /// The height.
    public var height: VolumeHUDFloat
    /// The size `width` × `height`.
    public init(width: VolumeHUDFloat, height: VolumeHUDFloat) {
        self.width = width
        self.height = height
    }
    /// No size.
    public static let zero = VolumeHUDSize(width: 0, height: 0)
}

/// A rectangle in the HUD's geometry: `CGRect` on Apple platforms.
public struct VolumeHUDRect: Sendable, Hashable {
    /// The top-left corner (for a rectangle of positive size).
    public var origin: VolumeHUDPoint
    /// The width and height.
    public var size: VolumeHUDSize
    /// The rectangle at `origin` of `size`.
    public init(origin: VolumeHUDPoint, size: VolumeHUDSize) {
        self.origin = origin
        self.size = size
    }
    /// The rectangle at (`x`, `y`) of `width` × `height`.
    public init(x: VolumeHUDFloat, y: VolumeHUDFloat, width: VolumeHUDFloat, height: VolumeHUDFloat) {
        self.init(origin: VolumeHUDPoint(x: x, y: y), size: VolumeHUDSize(width: width, height: height))
    }
    /// The empty rectangle at the origin.
    public static let zero = VolumeHUDRect(origin: .zero, size: .zero)

    /// The width (of a rectangle of positive size).
    public var width: VolumeHUDFloat { abs(size.width) }
    /// The height (of a rectangle of positive size).
    public var height: VolumeHUDFloat { abs(size.height) }
    /// The smallest x.
    public var minX: VolumeHUDFloat { min(origin.x, origin.x + size.width) }
    /// The largest x.
    public var maxX: VolumeHUDFloat { max(origin.x, origin.x + size.width) }
    /// The x of the centre.
    public var midX: VolumeHUDFloat { origin.x + size.width / 2 }
    /// The smallest y.
    public var minY: VolumeHUDFloat { min(origin.y, origin.y + size.height) }
    /// The largest y.
    public var maxY: VolumeHUDFloat { max(origin.y, origin.y + size.height) }
    /// The y of the centre.
    public var midY: VolumeHUDFloat { origin.y + size.height / 2 }

    /// The rectangle shrunk by `dx` on the left and right and `dy` at the top and bottom (grown for negative
    /// values), as CoreGraphics' `insetBy` does for a rectangle of positive size.
    public func insetBy(dx: VolumeHUDFloat, dy: VolumeHUDFloat) -> VolumeHUDRect {
        VolumeHUDRect(x: minX + dx, y: minY + dy, width: width - 2 * dx, height: height - 2 * dy)
    }
}
#endif
