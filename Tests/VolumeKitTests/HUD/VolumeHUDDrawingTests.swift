import Foundation
import Testing
import VolumeKitCore

@Suite("VolumeHUDDrawing")
struct VolumeHUDDrawingTests {
    private let size = VolumeHUDSize(width: 176, height: 22)

    @Test("16 segments; one lit per 1/16 step")
    func segments() {
        for step in 0...16 {
            let drawing = VolumeHUDDrawing(style: .classic, size: size, axis: .horizontal, level: Float(step) / 16)
            #expect(drawing.shapes(.track).count == 16)
            #expect(drawing.shapes(.fill).count == step)
        }
        let half = VolumeHUDDrawing(style: .classic, size: size, axis: .horizontal, level: 0.5)
        let tracks = half.shapes(.track)
        #expect(
            half.shapes(.fill).map(\.rect) == Array(tracks.prefix(8)).map(\.rect),
            "lit segments cover the first 8 tracks exactly")
    }

    @Test("segments fill the bar between the paddings with equal spacing")
    func segmentGeometry() {
        let style = VolumeHUDStyle.classic
        let tracks = VolumeHUDDrawing(style: style, size: size, axis: .horizontal, level: 0).shapes(.track)
        #expect(abs(tracks.first!.rect.minX - style.padding) < 0.001)
        #expect(abs(tracks.last!.rect.maxX - (size.width - style.padding)) < 0.001)
        for (a, b) in zip(tracks, tracks.dropFirst()) {
            #expect(abs(b.rect.minX - a.rect.maxX - style.segmentSpacing) < 0.001)
            #expect(abs(a.rect.width - b.rect.width) < 0.001)
        }
    }

    @Test("a level between steps lights part of a segment; a vertical bar fills from the bottom")
    func partialAndVertical() {
        let partial = VolumeHUDDrawing(style: .classic, size: size, axis: .horizontal, level: 0.5 + 1.0 / 32)
        let fills = partial.shapes(.fill)
        #expect(fills.count == 9)
        #expect(abs(fills[8].rect.width - fills[0].rect.width / 2) < 0.001)

        let vertical = VolumeHUDDrawing(
            style: .edge, size: VolumeHUDSize(width: 18, height: 150), axis: .vertical, level: 0.25)
        let track = vertical.shapes(.track)[0].rect
        let fill = vertical.shapes(.fill)[0].rect
        #expect(fill.maxY == track.maxY)
        #expect(abs(fill.height - track.height / 4) < 0.001)
    }

    @Test("a bump marks the end of the bar that was hit")
    func bump() {
        let top = VolumeHUDDrawing(style: .classic, size: size, axis: .horizontal, level: 1, bump: .maximum)
        #expect(top.shapes(.bump).map(\.rect) == [top.shapes(.track).last!.rect])
        let bottom = VolumeHUDDrawing(style: .island, size: size, axis: .horizontal, level: 0, bump: .minimum)
        let cap = bottom.shapes(.bump)[0].rect
        #expect(cap.minX == bottom.shapes(.track)[0].rect.minX)
        #expect(bottom.shapes(.fill).isEmpty)
        #expect(VolumeHUDDrawing(style: .classic, size: size, axis: .horizontal, level: 1).shapes(.bump).isEmpty)
    }
}
