import Foundation
import Testing
import VolumeKitCore

@Suite("VolumeHUDLayout")
struct VolumeHUDLayoutTests {
    static let orientations: [VolumeHUDOrientation] = [.portrait, .landscapeLeft, .landscapeRight]

    private func layout(_ style: VolumeHUDStyle, _ deviceID: String, _ orientation: VolumeHUDOrientation) -> (
        VolumeHUDLayout, VolumeHUDScreen
    ) {
        let screen = VolumeHUDDevice.named(deviceID)!.screen(orientation)
        return (VolumeHUDLayout(style: style, screen: screen), screen)
    }

    @Test("device table: the cutout inferred from safe-area insets (59 pt = island) matches the table")
    func cutoutInference() {
        for device in VolumeHUDDevice.all {
            for orientation in Self.orientations {
                let screen = device.screen(orientation)
                let inferred = VolumeHUDCutout.inferred(
                    from: screen.safeArea, orientation: orientation, isPad: device.kind == .pad)
                #expect(inferred == device.cutout, "\(device.id) \(orientation)")
            }
        }
        #expect(VolumeHUDCutout.inferred(from: VolumeHUDInsets(top: 59), orientation: .portrait) == .dynamicIsland)
        #expect(VolumeHUDCutout.inferred(from: VolumeHUDInsets(top: 47), orientation: .portrait) == .notch)
        #expect(VolumeHUDCutout.inferred(from: VolumeHUDInsets(top: 20), orientation: .portrait) == .none)
        #expect(
            VolumeHUDCutout.inferred(from: VolumeHUDInsets(left: 59), orientation: .landscapeRight) == .dynamicIsland)
        #expect(VolumeHUDCutout.inferred(from: VolumeHUDInsets(left: 59), orientation: .landscapeLeft) == .none)
    }

    @Test(
        "every preset on every device and orientation: on screen, clear of the cutout, inside the safe area except beside the island"
    )
    func everyShape() {
        for device in VolumeHUDDevice.all {
            for orientation in Self.orientations {
                let screen = device.screen(orientation)
                for style in VolumeHUDStyle.presets {
                    let result = VolumeHUDLayout(style: style, screen: screen)
                    let name = "\(style.name) on \(device.id) \(orientation)"
                    let bounds = VolumeHUDRect(origin: .zero, size: screen.size)
                    #expect(bounds.contains(result.frame), "\(name): \(result.frame)")
                    if let cutout = screen.cutoutRect {
                        #expect(!cutout.intersects(result.frame), "\(name) overlaps the cutout")
                    }
                    if result.placement != .besideIsland {
                        #expect(screen.safeRect.contains(result.frame), "\(name) leaves the safe area")
                    }
                    let hidden = result.frame.offsetBy(dx: result.slideOffset.x, dy: result.slideOffset.y)
                    if result.placement != .besideIsland {
                        #expect(!bounds.intersects(hidden), "\(name): the slide starts off screen")
                    } else {
                        #expect(
                            screen.cutoutRect!.contains(VolumeHUDPoint(x: hidden.midX, y: hidden.midY)),
                            "\(name): the slide starts in the island")
                    }
                }
            }
        }
    }

    @Test("top: centred, the style's margin below the top safe-area edge, Dynamic Type-independent size")
    func top() {
        let style = VolumeHUDStyle.classic
        let expectedSize = VolumeHUDSize(
            width: style.length + 2 * style.padding, height: style.thickness + 2 * style.padding)
        let cases: [(String, VolumeHUDOrientation, VolumeHUDFloat)] = [
            ("iphone-se", .portrait, 20), ("iphone-se", .landscapeLeft, 0),
            ("iphone-14", .portrait, 47), ("iphone-14", .landscapeRight, 0),
            ("iphone-15", .portrait, 59), ("iphone-15", .landscapeLeft, 0),
            ("iphone-16-pro", .portrait, 62),
            ("ipad", .portrait, 20), ("ipad", .landscapeLeft, 20),
            ("ipad-pro-11", .portrait, 24), ("ipad-pro-11", .landscapeRight, 24),
            ("ipad-pro-13", .landscapeLeft, 24),
        ]
        for (id, orientation, safeTop) in cases {
            let (result, screen) = layout(style, id, orientation)
            #expect(result.frame.size == expectedSize, "\(id) \(orientation)")
            #expect(result.frame.minY == safeTop + style.margin, "\(id) \(orientation)")
            #expect(abs(result.frame.midX - screen.size.width / 2) < 0.001, "\(id) \(orientation)")
            #expect(result.axis == .horizontal)
        }
    }

    @Test("beside the island: below it in portrait, on its inner side in landscape; top without a cutout")
    func besideIsland() {
        let style = VolumeHUDStyle.island
        let (portrait, screen) = layout(style, "iphone-15", .portrait)
        let island = screen.cutoutRect!
        #expect(island.minY == 11 && island.width == 126)
        #expect(portrait.placement == .besideIsland && portrait.axis == .horizontal)
        #expect(portrait.frame.minY == island.maxY + style.margin)
        #expect(portrait.frame.midX == island.midX)

        let (left, leftScreen) = layout(style, "iphone-15", .landscapeLeft)
        let leftIsland = leftScreen.cutoutRect!
        #expect(leftIsland.maxX == leftScreen.size.width - 11, "landscape-left: the island is on the right")
        #expect(left.axis == .vertical)
        #expect(left.frame.maxX == leftIsland.minX - style.margin)
        #expect(left.frame.midY == leftIsland.midY)

        let (right, rightScreen) = layout(style, "iphone-15", .landscapeRight)
        #expect(right.frame.minX == rightScreen.cutoutRect!.maxX + style.margin)

        let (notch, notchScreen) = layout(style, "iphone-14", .portrait)
        #expect(notch.placement == .besideIsland)
        #expect(notch.frame.minY == notchScreen.cutoutRect!.maxY + style.margin)

        for id in ["iphone-se", "ipad-air"] {
            let (fallback, _) = layout(style, id, .portrait)
            #expect(fallback.placement == .top, "\(id) has no cutout")
        }
    }

    @Test("leading and trailing: vertical, inside the side safe-area edges, mirrored for right-to-left")
    func edges() {
        let style = VolumeHUDStyle.edge
        let (portrait, screen) = layout(style, "iphone-15", .portrait)
        #expect(portrait.axis == .vertical)
        #expect(portrait.frame.minX == style.margin)
        #expect(abs(portrait.frame.midY - screen.safeRect.midY) < 0.001)

        let (landscape, _) = layout(style, "iphone-15", .landscapeLeft)
        #expect(landscape.frame.minX == 59 + style.margin, "landscape: clear of the 59 pt side inset")

        var trailing = style
        trailing.placement = .trailing
        let (right, rightScreen) = layout(trailing, "ipad-pro-11", .landscapeLeft)
        #expect(right.frame.maxX == rightScreen.size.width - style.margin)

        let rtl = VolumeHUDLayout(
            style: style, screen: VolumeHUDDevice.named("iphone-15")!.screen(.portrait, isRightToLeft: true))
        #expect(rtl.frame.maxX == 393 - style.margin, "leading is the right edge in right-to-left")
    }

    @Test("a bar longer than the screen is shortened to fit within the margins")
    func tooLong() {
        var style = VolumeHUDStyle.classic
        style.length = 5000
        let (result, screen) = layout(style, "iphone-se", .portrait)
        #expect(result.frame.width == screen.size.width - 2 * style.margin)
        let tiny = VolumeHUDLayout(
            style: style, screen: VolumeHUDScreen(size: .zero, safeArea: .zero, orientation: .portrait, cutout: .none))
        #expect(tiny.frame.width >= 0 && tiny.frame.height >= 0, "a zero screen gives a degenerate frame, not a crash")
    }
}
