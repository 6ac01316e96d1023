#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The activation retries while interrupted and active: the pending one, and which delay comes next.
struct ActivationRetry {
    /// The scheduled retry, if any.
    var pending: CancellationHandle?
    /// The index of the next delay in ``VolumeButtonsEngine/activationRetryDelays``.
    var index = 0

    /// The next delay (the last one repeats), counted.
    mutating func nextDelay() -> TimeInterval {
        let delays = VolumeButtonsEngine.activationRetryDelays
        defer { index += 1 }
        return delays[min(index, delays.count - 1)]
    }
}
