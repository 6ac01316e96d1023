#if os(iOS)
@preconcurrency import UIKit
import VolumeKitCore

/// The HUD's bar as a UIKit view, for embedding in your own hierarchy (or used by ``VolumeHUD``'s window).
///
/// It draws exactly the shapes of ``/VolumeKitCore/VolumeHUDDrawing`` — the same ones `volumekit hud preview` renders —
/// in the style's standard or Increase Contrast palette. Its size is fixed by the style, never by Dynamic Type.
/// VoiceOver reads it as "Volume, 50 percent" in the app's language (``strings``), and speaks it in that
/// language (`accessibilityLanguage`) even where the rest of the device speaks another.
@MainActor
public final class VolumeHUDUIView: UIView {
    /// The look. Setting it redraws.
    public var style: VolumeHUDStyle { didSet { changed() } }
    /// The direction the bar runs in.
    public var axis: VolumeHUDAxis { didSet { changed() } }
    /// The level drawn, 0…1.
    public var level: Float = 0 { didSet { if level != oldValue { changed() } } }
    /// The bumped end, if a press hit a rail.
    public var bump: VolumeHUDBump? { didSet { if bump != oldValue { changed() } } }
    /// The words and speech language of the accessibility label and value: the app's language by default
    /// (``/VolumeKitCore/VolumeKitStrings/current``).
    public var strings: VolumeKitStrings = .current { didSet { changed() } }

    /// Creates the view.
    public init(style: VolumeHUDStyle = .classic, axis: VolumeHUDAxis = .horizontal) {
        self.style = style
        self.axis = axis
        super.init(frame: CGRect(origin: .zero, size: VolumeHUDUIView.plateSize(style: style, axis: axis)))
        isOpaque = false
        backgroundColor = .clear
        contentMode = .redraw
        isAccessibilityElement = true
        accessibilityTraits = .updatesFrequently
        describe()
    }

    /// Not supported: create the view in code.
    @available(*, unavailable)
    required init?(coder: NSCoder) { fatalError("init(coder:) is not supported") }

    /// The plate's size for a style and axis (what ``/VolumeKitCore/VolumeHUDLayout`` uses when there is room).
    public static func plateSize(style: VolumeHUDStyle, axis: VolumeHUDAxis) -> CGSize {
        let along = style.length + 2 * style.padding
        let across = style.thickness + 2 * style.padding
        return axis == .horizontal ? CGSize(width: along, height: across) : CGSize(width: across, height: along)
    }

    /// The style's plate size along ``axis``.
    override public var intrinsicContentSize: CGSize { VolumeHUDUIView.plateSize(style: style, axis: axis) }

    /// Whether the Increase Contrast palette applies (the trait, or the system setting).
    var increaseContrast: Bool {
        traitCollection.accessibilityContrast == .high || UIAccessibility.isDarkerSystemColorsEnabled
    }

    /// Redraws when the Increase Contrast trait changes (the palette follows it).
    override public func traitCollectionDidChange(_ previousTraitCollection: UITraitCollection?) {
        super.traitCollectionDidChange(previousTraitCollection)
        if traitCollection.accessibilityContrast != previousTraitCollection?.accessibilityContrast { setNeedsDisplay() }
    }

    /// Draws the shapes of ``/VolumeKitCore/VolumeHUDDrawing`` for ``level`` and ``bump`` in the style's palette.
    override public func draw(_ rect: CGRect) {
        let palette = style.palette(increaseContrast: increaseContrast)
        let drawing = VolumeHUDDrawing(style: style, size: bounds.size, axis: axis, level: level, bump: bump)
        for shape in drawing.shapes {
            let path = UIBezierPath(roundedRect: shape.rect, cornerRadius: shape.cornerRadius)
            UIColor(palette.color(for: shape.role)).setFill()
            path.fill()
            if shape.role == .plate, palette.outline.alpha > 0 {
                let outline = UIBezierPath(
                    roundedRect: shape.rect.insetBy(dx: 0.5, dy: 0.5), cornerRadius: max(0, shape.cornerRadius - 0.5))
                outline.lineWidth = 1
                UIColor(palette.outline).setStroke()
                outline.stroke()
            }
        }
    }

    private func changed() {
        describe()
        invalidateIntrinsicContentSize()
        setNeedsDisplay()
    }

    /// The accessibility label and value in ``strings``, spoken in its language.
    private func describe() {
        accessibilityLabel = strings.hudLabel
        accessibilityValue = strings.hudValue(level: level)
        accessibilityLanguage = strings.language.rawValue
    }
}

extension UIColor {
    /// The UIKit colour for a HUD colour (sRGB).
    public convenience init(_ color: VolumeHUDColor) {
        self.init(
            red: CGFloat(color.red), green: CGFloat(color.green), blue: CGFloat(color.blue), alpha: CGFloat(color.alpha)
        )
    }
}
#endif
