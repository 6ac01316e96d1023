import Foundation
import Testing
import VolumeKitCore

@Suite("VolumeHUDStyle")
struct VolumeHUDStyleTests {
    @Test("presets have distinct names and are found by name, case-insensitively")
    func presetNames() {
        let names = VolumeHUDStyle.presets.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(names.contains("classic"))
        for style in VolumeHUDStyle.presets {
            #expect(VolumeHUDStyle.preset(named: style.name.uppercased()) == style)
        }
        #expect(VolumeHUDStyle.preset(named: "nope") == nil)
    }

    @Test("presets cover segmented (16 steps) and continuous, and every placement but trailing")
    func presetVariety() {
        #expect(VolumeHUDStyle.classic.fill.segmentCount == 16)
        #expect(VolumeHUDStyle.island.fill == .continuous)
        #expect(Set(VolumeHUDStyle.presets.map(\.placement)) == [.top, .besideIsland, .leading])
        #expect(VolumeHUDStyle.presets.allSatisfy { $0.autoHideDelay == 1.5 })
    }

    @Test("every preset's Increase Contrast palette separates the bar more: stronger track or an outline")
    func increaseContrast() {
        for style in VolumeHUDStyle.presets {
            let normal = style.palette(increaseContrast: false)
            let high = style.palette(increaseContrast: true)
            #expect(normal == style.colors)
            #expect(high != normal, "\(style.name)")
            #expect(high.track.alpha > normal.track.alpha || high.outline.alpha > 0, "\(style.name)")
            #expect(high.background.alpha >= normal.background.alpha, "\(style.name)")
        }
    }

    @Test("Reduce Motion turns slide into fade and leaves fade and none alone")
    func reduceMotion() {
        #expect(VolumeHUDAnimation.slide.resolved(reduceMotion: true) == .fade)
        #expect(VolumeHUDAnimation.slide.resolved(reduceMotion: false) == .slide)
        #expect(VolumeHUDAnimation.none.resolved(reduceMotion: true) == .none)
        #expect(VolumeHUDAnimation.fade.resolved(reduceMotion: true) == .fade)
    }

    @Test("bad sizes and colours are cleaned, not trusted")
    func cleaning() {
        let style = VolumeHUDStyle(
            name: "bad", autoHideDelay: .nan,
            colors: VolumeHUDPalette(
                background: VolumeHUDColor(red: 2, green: -1, blue: .nan, alpha: 0.5), track: .clear, fill: .white,
                bump: .white),
            length: -5, thickness: .infinity, padding: -1, segmentSpacing: .nan
        )
        #expect(style.autoHideDelay == 1.5)
        #expect(style.length == 1 && style.thickness == 1 && style.padding == 0 && style.segmentSpacing == 0)
        #expect(style.colors.background.hexString == "#FF0000")
        #expect(VolumeHUDColor(hex: 0x007AFF).hexString == "#007AFF")
    }

    @Test("VoiceOver text: 'Volume 50 percent', rounded, with the rail named")
    func accessibilityText() {
        #expect(VolumeHUDAccessibility.announcement(level: 0.5) == "Volume 50 percent")
        #expect(VolumeHUDAccessibility.announcement(level: 0.0625) == "Volume 6 percent")
        #expect(VolumeHUDAccessibility.announcement(level: 1, bump: .maximum) == "Volume 100 percent, maximum")
        #expect(VolumeHUDAccessibility.announcement(level: 0, bump: .minimum) == "Volume 0 percent, minimum")
        #expect(VolumeHUDAccessibility.value(level: .nan) == "0 percent")
        #expect(VolumeHUDAccessibility.percent(0.995) == 100)
    }
}
