#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How soon after a set its echo may come, from this phone's measured set → KVO round trip.
///
/// Before the round trip is known an echo may come at any time: the envelope's shortest round trip is 5 ms
/// (`shared/facts/envelope.md`: `sliderLatency` 0.005–0.15 s plus `kvoLatency`), and a press landing on the
/// value of a set in flight cannot be told from that set's landing. Once ``HeadroomPolicy/samplesToTrust`` round
/// trips are measured, an echo sooner than half this phone's mean round trip is no echo: such an observation is
/// the press (or the user's change) it looks like. Half, not the mean less a few spreads: the measurements
/// themselves include such presses taken for echoes (short ones), which widen the spread without making the
/// phone faster. A phone whose round trips vary by more than half their mean (spread over half the mean) gets no
/// window: its echoes may come at any time.
enum EchoWindow {
    /// The soonest an echo may come after its set, in seconds, for the measured `roundTrip` (`nil`, too few
    /// measurements, or too erratic ones: 0).
    static func soonest(roundTrip: CalibrationEstimate?) -> TimeInterval {
        guard let roundTrip, roundTrip.samples >= HeadroomPolicy.samplesToTrust, let mean = roundTrip.value,
            roundTrip.spread <= mean / 2
        else { return 0 }
        return mean / 2
    }
}
