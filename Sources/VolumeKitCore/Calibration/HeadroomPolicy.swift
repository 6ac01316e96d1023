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
/// mean plus twice its spread (a slow set among fast ones; ``slowest(_:)``), rounded up to whole steps, and capped
/// at ``maximumSteps``. Until ``samplesToTrust`` sets have shown the phone's own round trip, the envelope's longest
/// (0.18 s, ``CalibrationRule/range``) sizes it — right on every phone the envelope covers whose down presses leave
/// a reset a moment to land, the safety net: 4 steps at the default spacing. A measurement outside the envelope is
/// never used (``CalibrationEstimate``), but a spread of round trips inside it can ask for more than 4 steps (0.06,
/// 0.18 and 0.18 s: 6), up to ``maximumSteps``; a fast phone, once measured, is held only the configured steps away.
///
/// A phone shown to refuse sets during a down press (iOS 11+ refuses a set at or above where a held down press
/// started, seed 000; ``CalibrationMachine/refusesSetsDuringDownPress``) needs more once measured: in a down burst
/// there every reset lands under a later press and is refused, so VolumeKit aims each below the press foreseen held
/// when it lands (``VolumeStepMachine/aimResets(roundTrip:)``) — from the burst's second press on, since the first
/// press's reset is made before a burst shows and is refused. The headroom is then the presses the round trip spans
/// (rounded down) and two: the first press's, and the step the second press's aimed reset must find above the rail —
/// one step more than otherwise, two where the round trip is a whole number of spacings. Capped at ``maximumSteps``
/// as always: a slowest round trip of 0.25 s or more at the default spacing asks for more than six, and such a burst
/// from the rail still loses presses. Phones not shown to refuse keep the smaller headroom: the larger one would hold
/// them further from their user's volume for nothing.
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

    /// The slowest round trip a phone with the measured `roundTrip` shows: its mean plus twice its spread, once
    /// ``samplesToTrust`` sets measured it (`nil` before).
    public static func slowest(_ roundTrip: CalibrationEstimate?) -> TimeInterval? {
        guard let roundTrip, roundTrip.samples >= samplesToTrust, let mean = roundTrip.value,
            (mean + 2 * roundTrip.spread).isFinite
        else { return nil }
        return mean + 2 * roundTrip.spread
    }

    /// The headroom for a phone whose measured round trip is `roundTrip` (`nil`: not measured yet — the envelope's
    /// longest then), with at least `minimum` steps; `refusing`: the phone was shown to refuse sets during a down
    /// press, and its down bursts' resets are aimed once the round trip is measured (``aimRoundTrip(_:refusing:)``).
    public func steps(roundTrip: CalibrationEstimate?, minimum: Int, refusing: Bool = false) -> Int {
        guard burstSpacing > 0 else { return minimum }
        let needed: Int
        if let slow = Self.aimRoundTrip(roundTrip, refusing: refusing) {
            // The presses the round trip spans, the first press's refused reset, and the step the second press's
            // aimed reset must find above the rail.
            needed = Int((slow / burstSpacing + 1e-9).rounded(.down)) + 2
        } else {
            let slow = Self.slowest(roundTrip) ?? CalibrationRule.roundTrip.range.upperBound
            // A round trip of exactly 3 spacings needs 3 steps: the estimate's float noise must not round it up to 4.
            needed = Int((slow / burstSpacing - 1e-9).rounded(.up))
        }
        return max(minimum, min(maximumSteps, needed))
    }

    /// The round trip by which a down burst's resets are aimed (``VolumeStepMachine/aimResets(roundTrip:)``): the
    /// ``slowest(_:)`` one measured, on a phone shown `refusing` sets during a down press; `nil` otherwise — on a
    /// phone whose sets land under a held down press, a reset just below the anchor lands, and an aimed one would only
    /// spend its headroom.
    public static func aimRoundTrip(_ roundTrip: CalibrationEstimate?, refusing: Bool) -> TimeInterval? {
        refusing ? slowest(roundTrip) : nil
    }
}
