#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How long a set waits for its landing before it is made again, from this phone's measured set → KVO round trip.
///
/// A set can be lost: refused while a down press is held (seed 000), dropped as equal to the slider's cached value
/// (decompiled iOS 18.2 `MPVolumeControllerSystemDataSource`), or sent before the volume view takes sets. Until the
/// round trip is known, a set waits the configured delay (0.2 s: the envelope's longest round trip, 0.18 s, and a
/// margin — `shared/facts/envelope.md`: `sliderLatency`, `kvoLatency`) — right on every phone, slow on a fast one.
/// Once ``HeadroomPolicy/samplesToTrust`` round trips are measured, it waits this phone's mean plus three spreads and
/// a margin (``margin``), never longer than configured: a phone whose sets land in 30 ms makes a lost set again
/// after about 70 ms, not 200. Sooner retries take more tries for the same time: the machine keeps trying as long
/// in all as configured (``attempts(for:configuredDelay:configuredAttempts:)``), so a long held down press that
/// refuses every set does not use up the tries sooner.
enum RetryWindow {
    /// What a retry waits beyond the measured round trip: KVO's own coalescing on the main queue and timer
    /// slack, so a slow landing is not taken for a lost set and set twice.
    static let margin: TimeInterval = 0.04

    /// The wait before a set is made again, in seconds, for the measured `roundTrip` (`nil` or too few
    /// measurements: `configured`), at most `configured`.
    static func delay(roundTrip: CalibrationEstimate?, configured: TimeInterval) -> TimeInterval {
        guard let roundTrip, roundTrip.samples >= HeadroomPolicy.samplesToTrust, let mean = roundTrip.value else {
            return configured
        }
        return min(configured, mean + 3 * roundTrip.spread + margin)
    }

    /// How many tries a set gets when each waits `delay`: as many as keep trying for the configured time,
    /// `configuredDelay × configuredAttempts`, and never fewer than configured.
    static func attempts(for delay: TimeInterval, configuredDelay: TimeInterval, configuredAttempts: Int) -> Int {
        guard delay > 0, delay < configuredDelay else { return configuredAttempts }
        // At most 100 times as many: a delay a hundredth of the configured one is already shorter than any landing.
        let tries = min(
            (configuredDelay * Double(configuredAttempts) / delay).rounded(.up), Double(100 * configuredAttempts))
        return max(configuredAttempts, Int(tries))
    }
}
