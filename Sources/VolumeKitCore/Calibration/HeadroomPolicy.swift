#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How many steps from 0 and 1 capture holds the volume (``VolumeButtonsConfiguration/headroomSteps`` at the
/// least), from the round trip of VolumeKit's own sets measured on this phone (``CalibrationRule/roundTrip``).
///
/// KVO is silent at the rails (seed 000): a press there is seen only if a reset of VolumeKit's has brought the
/// volume back first. A reset takes one round trip to land, so a burst of presses `burstSpacing` apart makes
/// `roundTrip / burstSpacing` presses before the first reset lands — and no later set can save those: the
/// headroom has to be there before the burst, sized to the phone's round trip. Once the first reset lands,
/// each later one lands a press apart, so the headroom is not used up further. The round trip is taken at its
/// mean plus twice its spread (a slow set among fast ones), rounded up to whole steps, and capped at
/// ``maximumSteps``. Until ``samplesToTrust`` sets have shown the phone's own round trip, the envelope's longest
/// (0.18 s, ``CalibrationRule/range``) sizes it — right on every phone the envelope covers, the safety net: 4
/// steps at the default spacing. A measurement outside the envelope is never used (``CalibrationEstimate``), but
/// a spread of round trips inside it can ask for more than 4 steps (0.06, 0.18 and 0.18 s: 6), up to
/// ``maximumSteps``; a fast phone, once measured, is held only the configured steps away.
public struct HeadroomPolicy: Sendable, Equatable {
    /// The shortest gap between presses whose every press is kept at a rail: 0.05 s by default — faster than a
    /// person taps (about 10 presses a second at most) and than a hold's auto-repeat (0.06 s at the fastest,
    /// SLVolumeButtonListener.m), as a burst of quick taps or a hold's repeats come.
    public var burstSpacing: TimeInterval
    /// The most steps of headroom: the volume is never held further than this from the user's own near a rail.
    /// At or below the configured ``VolumeButtonsConfiguration/headroomSteps``, the headroom never grows.
    public var maximumSteps: Int

    /// Creates a policy.
    public init(burstSpacing: TimeInterval = 0.05, maximumSteps: Int = 6) {
        self.burstSpacing = burstSpacing
        self.maximumSteps = maximumSteps
    }

    /// How many of the phone's own round trips replace the envelope's longest: one set can be a fast one among
    /// slow ones.
    public static let samplesToTrust = 3

    /// The headroom for a phone whose measured round trip is `roundTrip` (`nil`: not measured yet — the envelope's
    /// longest then), with at least `minimum` steps.
    public func steps(roundTrip: CalibrationEstimate?, minimum: Int) -> Int {
        guard burstSpacing > 0 else { return minimum }
        let slow: TimeInterval
        if let roundTrip, roundTrip.samples >= Self.samplesToTrust, let mean = roundTrip.value,
            (mean + 2 * roundTrip.spread).isFinite
        {
            slow = mean + 2 * roundTrip.spread
        } else {
            slow = CalibrationRule.roundTrip.range.upperBound
        }
        // A round trip of exactly 3 spacings needs 3 steps: the estimate's float noise must not round it up to 4.
        let needed = Int((slow / burstSpacing - 1e-9).rounded(.up))
        return max(minimum, min(maximumSteps, needed))
    }
}
