import VolumeKitCore

#if !canImport(CoreGraphics)
/// What the layout tests ask of a rectangle, as CoreGraphics' `CGRect` answers it (VolumeKit's own
/// rectangle outside Apple's platforms has only what the layout uses).
extension VolumeHUDRect {
    func contains(_ point: VolumeHUDPoint) -> Bool {
        point.x >= minX && point.x < maxX && point.y >= minY && point.y < maxY
    }

    func contains(_ other: VolumeHUDRect) -> Bool {
        other.minX >= minX && other.maxX <= maxX && other.minY >= minY && other.maxY <= maxY
    }

    func intersects(_ other: VolumeHUDRect) -> Bool {
        other.minX < maxX && minX < other.maxX && other.minY < maxY && minY < other.maxY
            && width > 0 && height > 0 && other.width > 0 && other.height > 0
    }

    func offsetBy(dx: VolumeHUDFloat, dy: VolumeHUDFloat) -> VolumeHUDRect {
        VolumeHUDRect(x: origin.x + dx, y: origin.y + dy, width: size.width, height: size.height)
    }
}
#endif
