#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What VolumeKit has learned of one timed rule: the measurements inside the envelope's range, as a mean with
/// its sample count and spread, and those outside it, kept apart.
public struct CalibrationEstimate: Sendable, Equatable, Codable {
    /// How many measurements inside the range.
    public private(set) var samples: Int = 0
    /// Their mean, in seconds (0 while there are none).
    public private(set) var mean: Double = 0
    /// The sum of squared distances from the mean (Welford's running variance).
    private var squares: Double = 0
    /// How many measurements fell outside the range.
    public private(set) var outsideSamples: Int = 0
    /// The last measurement outside the range, if any.
    public private(set) var lastOutside: Double?

    /// The most measurements an estimate weighs: beyond it, a new measurement counts as one of this many, so the
    /// estimate follows a phone that changes (a new iOS version keeps the store apart anyway).
    public static let horizon = 200

    /// How far outside the range a measurement may lie and still count as inside (clamped): timer and
    /// rounding noise, not news of another phone.
    public static let measurementNoise: TimeInterval = 0.002

    /// No measurement yet.
    public init() {}

    /// The estimate: the mean once there is at least one measurement inside the range, else `nil`.
    public var value: Double? { samples > 0 ? mean : nil }

    /// The most measurements a stored estimate may claim: far more than any phone makes (a set a second for 30
    /// years), few enough that counting on never overflows.
    public static let maximumCount = 1_000_000_000

    /// Whether a stored estimate could have been written by VolumeKit for a rule whose envelope is `range`: its
    /// counts within 0…``maximumCount``, its mean inside the range (0 while empty), its running sum of squares finite
    /// and not negative (0 while there are fewer than two), the last outside measurement a number. Anything else
    /// would later give a spread that is not a number, or a count that overflows.
    public func isPlausible(for range: ClosedRange<Double>) -> Bool {
        (0...Self.maximumCount).contains(samples) && (0...Self.maximumCount).contains(outsideSamples)
            && squares.isFinite && squares >= 0 && (samples > 1 || squares == 0)
            && (samples == 0 ? mean == 0 : range.contains(mean)) && (lastOutside?.isFinite ?? true)
    }

    /// The standard deviation of the measurements inside the range (0 with fewer than two).
    public var spread: Double {
        let count = min(samples, Self.horizon)
        return count > 1 ? (squares / Double(count - 1)).squareRoot() : 0
    }

    /// Adds `measurement` for a rule whose envelope is `range`; returns whether it was inside.
    @discardableResult
    public mutating func add(_ measurement: Double, range: ClosedRange<Double>) -> Bool {
        guard measurement.isFinite else { return false }
        // Within the measurement's own noise of the range, it is inside, and clamped to it.
        let noise = Self.measurementNoise
        guard measurement >= range.lowerBound - noise, measurement <= range.upperBound + noise else {
            outsideSamples += 1
            lastOutside = measurement
            return false
        }
        let measurement = min(max(measurement, range.lowerBound), range.upperBound)
        // Welford's running mean and variance, counting at most `horizon` measurements (older ones fade).
        let weight = Double(min(samples + 1, Self.horizon))
        if samples >= Self.horizon { squares *= (weight - 1) / weight }
        let delta = measurement - mean
        mean += delta / weight
        squares += delta * (measurement - mean)
        samples += 1
        return true
    }
}
