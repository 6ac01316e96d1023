#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(CoreGraphics)
import CoreGraphics
#endif

/// Renders the HUD on a device outline as SVG, from the same ``VolumeHUDStyle``, ``VolumeHUDLayout`` and
/// ``VolumeHUDDrawing`` values the iOS views use: what `volumekit hud preview` prints and the README shows.
///
/// The HUD's tracks carry `class="segment"`, lit parts `class="fill"`, the plate `class="plate"` and a
/// bumped end `class="bump"`, so that tests and tools can find them.
public enum VolumeHUDPreview {
    /// The SVG document for `style` on `device` in `orientation` at `level`.
    /// - Parameters:
    ///   - style: the HUD's look.
    ///   - device: the device shape to draw it on.
    ///   - orientation: the interface orientation.
    ///   - level: the volume shown, 0…1.
    ///   - bump: draw the bump state of a press at a rail.
    ///   - increaseContrast: use the style's Increase Contrast palette.
    ///   - showsSafeArea: outline the safe area with a dashed line.
    public static func svg(
        style: VolumeHUDStyle,
        device: VolumeHUDDevice,
        orientation: VolumeHUDOrientation = .portrait,
        level: Float = 0.5,
        bump: VolumeHUDBump? = nil,
        increaseContrast: Bool = false,
        showsSafeArea: Bool = true
    ) -> String {
        let screen = device.screen(orientation)
        let layout = VolumeHUDLayout(style: style, screen: screen)
        let drawing = VolumeHUDDrawing(
            style: style, size: layout.frame.size, axis: layout.axis, level: level, bump: bump)
        let palette = style.palette(increaseContrast: increaseContrast)

        let bezel: VolumeHUDFloat = device.kind == .phone ? 12 : 20
        let chin: VolumeHUDFloat = device.hasHomeButton ? (device.kind == .phone ? 64 : 40) : 0
        let landscape = orientation.isLandscape
        let screenOrigin = VolumeHUDPoint(x: bezel + (landscape ? chin : 0), y: bezel + (landscape ? 0 : chin))
        let bodySize = VolumeHUDSize(
            width: screen.size.width + 2 * bezel + (landscape ? 2 * chin : 0),
            height: screen.size.height + 2 * bezel + (landscape ? 0 : 2 * chin)
        )
        let margin: VolumeHUDFloat = 16
        let captionHeight: VolumeHUDFloat = 28
        let canvas = VolumeHUDSize(
            width: bodySize.width + 2 * margin, height: bodySize.height + 2 * margin + captionHeight)

        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(n(canvas.width))" height="\(n(canvas.height))" \
            viewBox="0 0 \(n(canvas.width)) \(n(canvas.height))" font-family="-apple-system, Helvetica, Arial, sans-serif">
            <title>\(escape("VolumeKit HUD \(style.name) on \(device.name), \(orientation.rawValue), \(VolumeHUDAccessibility.value(level: level))"))</title>
            <defs>
            <linearGradient id="wallpaper" x1="0" y1="0" x2="1" y2="1">
            <stop offset="0" stop-color="#8EC5FC"/><stop offset="1" stop-color="#E0C3FC"/>
            </linearGradient>
            <clipPath id="display"><rect x="0" y="0" width="\(n(screen.size.width))" height="\(n(screen.size.height))" rx="\(n(device.displayCornerRadius))"/></clipPath>
            </defs>
            <rect x="0" y="0" width="\(n(canvas.width))" height="\(n(canvas.height))" fill="#FFFFFF"/>
            <g transform="translate(\(n(margin)) \(n(margin)))">
            <rect class="device" x="0" y="0" width="\(n(bodySize.width))" height="\(n(bodySize.height))" \
            rx="\(n(device.displayCornerRadius + bezel + (device.hasHomeButton ? 24 : 0)))" fill="#1D1D1F"/>

            """
        if device.hasHomeButton {
            let home: VolumeHUDPoint
            switch orientation {
            case .portrait: home = VolumeHUDPoint(x: bodySize.width / 2, y: bodySize.height - bezel - chin / 2)
            case .landscapeLeft: home = VolumeHUDPoint(x: bezel + chin / 2, y: bodySize.height / 2)
            case .landscapeRight: home = VolumeHUDPoint(x: bodySize.width - bezel - chin / 2, y: bodySize.height / 2)
            }
            out +=
                "<circle class=\"home-button\" cx=\"\(n(home.x))\" cy=\"\(n(home.y))\" r=\"\(n(chin * 0.3))\" fill=\"none\" stroke=\"#555555\" stroke-width=\"2\"/>\n"
        }
        out +=
            "<g class=\"screen\" transform=\"translate(\(n(screenOrigin.x)) \(n(screenOrigin.y)))\">\n<g clip-path=\"url(#display)\">\n"
        out +=
            "<rect x=\"0\" y=\"0\" width=\"\(n(screen.size.width))\" height=\"\(n(screen.size.height))\" fill=\"url(#wallpaper)\"/>\n"
        out += content(screen: screen)
        out += statusBar(screen: screen, device: device)
        if let cutout = screen.cutoutRect {
            let radius = screen.cutout == .dynamicIsland ? min(cutout.width, cutout.height) / 2 : 14
            out +=
                "<rect class=\"cutout\" x=\"\(n(cutout.minX))\" y=\"\(n(cutout.minY))\" width=\"\(n(cutout.width))\" height=\"\(n(cutout.height))\" rx=\"\(n(radius))\" fill=\"#000000\"/>\n"
        }
        if showsSafeArea {
            let safe = screen.safeRect
            out +=
                "<rect class=\"safe-area\" x=\"\(n(safe.minX))\" y=\"\(n(safe.minY))\" width=\"\(n(safe.width))\" height=\"\(n(safe.height))\" fill=\"none\" stroke=\"#FF2D55\" stroke-opacity=\"0.5\" stroke-width=\"1\" stroke-dasharray=\"4 4\"/>\n"
        }
        out += "<g class=\"hud\" transform=\"translate(\(n(layout.frame.minX)) \(n(layout.frame.minY)))\">\n"
        for shape in drawing.shapes {
            let color = palette.color(for: shape.role)
            let className = shape.role == .track ? "segment" : shape.role.rawValue
            var rect =
                "<rect class=\"\(className)\" x=\"\(n(shape.rect.minX))\" y=\"\(n(shape.rect.minY))\" width=\"\(n(shape.rect.width))\" height=\"\(n(shape.rect.height))\" rx=\"\(n(shape.cornerRadius))\" fill=\"\(color.hexString)\" fill-opacity=\"\(n(VolumeHUDFloat(color.alpha)))\""
            if shape.role == .plate, palette.outline.alpha > 0 {
                rect +=
                    " stroke=\"\(palette.outline.hexString)\" stroke-opacity=\"\(n(VolumeHUDFloat(palette.outline.alpha)))\" stroke-width=\"1\""
            }
            out += rect + "/>\n"
        }
        out += "</g>\n</g>\n</g>\n</g>\n"
        let caption =
            "\(style.name) · \(device.name) · \(orientation.rawValue) · \(VolumeHUDAccessibility.value(level: level))"
            + (bump.map { " · bump \($0.rawValue)" } ?? "") + (increaseContrast ? " · increase contrast" : "")
        // Shrink the caption to fit narrow devices (≈ 0.56 em per character in a sans-serif face).
        let fontSize = min(14, (canvas.width - 16) / (VolumeHUDFloat(caption.count) * 0.56))
        out +=
            "<text x=\"\(n(canvas.width / 2))\" y=\"\(n(canvas.height - margin))\" text-anchor=\"middle\" font-size=\"\(n(fontSize))\" fill=\"#3C3C43\">\(escape(caption))</text>\n"
        out += "</svg>\n"
        return out
    }

    /// Placeholder app content (a few cards) so the HUD is seen over something.
    private static func content(screen: VolumeHUDScreen) -> String {
        let safe = screen.safeRect
        let inset: VolumeHUDFloat = 16
        let width = max(0, safe.width - 2 * inset)
        var out = ""
        var y = safe.minY + 48
        var index = 0
        while y + 60 < safe.maxY - 16 && index < 12 {
            let height: VolumeHUDFloat = index == 0 ? 160 : 72
            if y + height > safe.maxY - 16 { break }
            out +=
                "<rect class=\"content\" x=\"\(n(safe.minX + inset))\" y=\"\(n(y))\" width=\"\(n(width))\" height=\"\(n(height))\" rx=\"12\" fill=\"#FFFFFF\" fill-opacity=\"0.55\"/>\n"
            y += height + 12
            index += 1
        }
        return out
    }

    /// The clock and the battery where iOS draws them (only when the status bar shows: not on landscape iPhones).
    private static func statusBar(screen: VolumeHUDScreen, device: VolumeHUDDevice) -> String {
        guard device.kind == .pad || screen.orientation == .portrait else { return "" }
        let height = max(20, screen.safeArea.top)
        let mid = screen.cutout == .none ? height / 2 : height / 2 + 2
        let side: VolumeHUDFloat = screen.cutout == .none ? 8 : screen.size.width * 0.14
        var out =
            "<text class=\"status-bar\" x=\"\(n(side))\" y=\"\(n(mid + 5))\" font-size=\"15\" font-weight=\"600\" fill=\"#000000\""
        out += screen.cutout == .none ? ">9:41</text>\n" : " text-anchor=\"middle\">9:41</text>\n"
        let batteryX = screen.size.width - side - (screen.cutout == .none ? 25 : 12)
        out +=
            "<rect class=\"status-bar\" x=\"\(n(batteryX))\" y=\"\(n(mid - 6))\" width=\"25\" height=\"12\" rx=\"3.5\" fill=\"#000000\" fill-opacity=\"0.8\"/>\n"
        return out
    }

    /// Compact decimal for SVG: up to two decimals, no trailing zeros.
    static func n(_ value: VolumeHUDFloat) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 100).rounded() / 100
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        var text = cFormat("%.2f", Double(rounded))
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }

    /// Escapes text for XML content and attributes.
    static func escape(_ text: String) -> String {
        text.replacingAll("&", with: "&amp;")
            .replacingAll("<", with: "&lt;")
            .replacingAll(">", with: "&gt;")
            .replacingAll("\"", with: "&quot;")
    }
}
