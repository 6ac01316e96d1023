#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RemoteVolumeDevice {
    /// `level` (device units) as the 0…1 fraction a volume HUD draws, using ``volumeRange``: the range's lower
    /// bound is 0 and its upper bound is 1 (RenderingControl:1 lets a device declare any `Volume` range in its
    /// SCPD, so 50 is half only on a 0…100 device).
    ///
    /// Levels outside the range are clamped; a range of a single level gives 0.
    public func fraction(ofLevel level: Int) -> Float {
        let range = volumeRange
        guard range.upperBound > range.lowerBound else { return 0 }
        let clamped = min(max(level, range.lowerBound), range.upperBound)
        return Float(clamped - range.lowerBound) / Float(range.upperBound - range.lowerBound)
    }

    /// The level in device units nearest to `fraction` (0…1) of ``volumeRange``, e.g. for a slider driving
    /// ``RemoteVolumeController/setLevel(_:)``. Fractions outside 0…1 are clamped; NaN gives the lower bound.
    public func level(forFraction fraction: Float) -> Int {
        let range = volumeRange
        let clean = fraction.isNaN ? 0 : min(max(Double(fraction), 0), 1)
        let offset = (clean * Double(range.upperBound - range.lowerBound)).rounded()
        return range.lowerBound + Int(offset)
    }
}
