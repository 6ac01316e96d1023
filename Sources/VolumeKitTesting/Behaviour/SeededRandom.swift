#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A small, fast, seeded random number generator (SplitMix64), so simulated jitter and sampled device
/// behaviours are reproducible: the same seed gives the same sequence on every run and every machine.
public struct SeededRandom: RandomNumberGenerator, Sendable, Equatable {
    private var state: UInt64

    /// Creates a generator; the same seed gives the same sequence.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0..<1 from the top 53 bits of ``next()``: integer arithmetic only, so it does not depend
    /// on the standard library's floating-point sampling.
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// An index in 0..<count (`count` > 0).
    public mutating func index(below count: Int) -> Int {
        Int(next() % UInt64(max(1, count)))
    }
}
