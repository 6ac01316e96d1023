#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(CoreGraphics)
import CoreGraphics
#endif

/// What a shape in a HUD drawing stands for; renderers map it to a ``VolumeHUDPalette`` colour.
public enum VolumeHUDShapeRole: String, Sendable, Equatable, Hashable {
    /// The plate behind the bar.
    case plate
    /// One segment's (or the continuous bar's) unfilled track.
    case track
    /// The filled part of a segment or of the bar.
    case fill
    /// The bumped end of the bar, when a press hit 0 or 1.
    case bump
}

/// One rounded rectangle of a HUD drawing.
public struct VolumeHUDShape: Sendable, Equatable {
    /// What it stands for.
    public var role: VolumeHUDShapeRole
    /// Its rectangle, in the plate's coordinates (origin at the plate's top-left corner).
    public var rect: VolumeHUDRect
    /// Its corner radius.
    public var cornerRadius: VolumeHUDFloat

    /// Creates a shape.
    public init(role: VolumeHUDShapeRole, rect: VolumeHUDRect, cornerRadius: VolumeHUDFloat) {
        self.role = role
        self.rect = rect
        self.cornerRadius = cornerRadius
    }
}

/// The HUD as rounded rectangles, back to front: the plate, one track per segment, the lit fills, the bump.
///
/// The iOS views and the SVG preview both draw exactly these shapes, so the preview is what users get.
/// Segment `i` of `n` is lit by `clamp(level × n − i, 0, 1)`: one segment per 1/16 volume step with 16
/// segments; a level between steps (set by a slider or a remote device) lights part of a segment.
public struct VolumeHUDDrawing: Sendable, Equatable {
    /// All shapes, back to front.
    public var shapes: [VolumeHUDShape]

    /// Draws `style` in a plate of `size` (from ``VolumeHUDLayout/frame``) along `axis` at `level` (0…1).
    public init(
        style: VolumeHUDStyle, size: VolumeHUDSize, axis: VolumeHUDAxis, level: Float, bump: VolumeHUDBump? = nil
    ) {
        let level = level.isFinite ? VolumeHUDFloat(min(1, max(0, level))) : 0
        let plateRadius = min(style.cornerRadius, min(size.width, size.height) / 2)
        var shapes = [
            VolumeHUDShape(role: .plate, rect: VolumeHUDRect(origin: .zero, size: size), cornerRadius: plateRadius)
        ]

        let bar = VolumeHUDRect(origin: .zero, size: size).insetBy(dx: style.padding, dy: style.padding)
        let barLength = max(0, axis == .horizontal ? bar.width : bar.height)
        let barThickness = max(0, axis == .horizontal ? bar.height : bar.width)
        let count = style.fill.segmentCount
        let spacing = count > 1 ? min(style.segmentSpacing, barLength / VolumeHUDFloat(count)) : 0
        let pieceLength = max(0, (barLength - spacing * VolumeHUDFloat(count - 1)) / VolumeHUDFloat(count))
        let radius = min(style.barCornerRadius, barThickness / 2, pieceLength / 2)

        /// The rectangle covering `start ..< start + length` along the bar (horizontal: from the left;
        /// vertical: from the bottom).
        func piece(from start: VolumeHUDFloat, length: VolumeHUDFloat) -> VolumeHUDRect {
            switch axis {
            case .horizontal:
                return VolumeHUDRect(x: bar.minX + start, y: bar.minY, width: length, height: barThickness)
            case .vertical:
                return VolumeHUDRect(x: bar.minX, y: bar.maxY - start - length, width: barThickness, height: length)
            }
        }

        var fills: [VolumeHUDShape] = []
        for index in 0..<count {
            let start = VolumeHUDFloat(index) * (pieceLength + spacing)
            shapes.append(
                VolumeHUDShape(role: .track, rect: piece(from: start, length: pieceLength), cornerRadius: radius))
            let lit = min(1, max(0, level * VolumeHUDFloat(count) - VolumeHUDFloat(index)))
            if lit > 0 {
                fills.append(
                    VolumeHUDShape(
                        role: .fill, rect: piece(from: start, length: pieceLength * lit),
                        cornerRadius: min(radius, pieceLength * lit / 2)))
            }
        }
        shapes += fills

        if let bump {
            // Segmented: the end segment; continuous: an end cap as long as the bar is thick (at least 1/8 of it).
            let capLength = count > 1 ? pieceLength : min(barLength, max(barThickness * 2, barLength / 8))
            let start = bump == .maximum ? barLength - capLength : 0
            shapes.append(
                VolumeHUDShape(role: .bump, rect: piece(from: start, length: capLength), cornerRadius: radius))
        }
        self.shapes = shapes
    }

    /// The shapes with one role.
    public func shapes(_ role: VolumeHUDShapeRole) -> [VolumeHUDShape] { shapes.filter { $0.role == role } }
}

extension VolumeHUDPalette {
    /// The colour for a shape role.
    public func color(for role: VolumeHUDShapeRole) -> VolumeHUDColor {
        switch role {
        case .plate: return background
        case .track: return track
        case .fill: return fill
        case .bump: return bump
        }
    }
}
