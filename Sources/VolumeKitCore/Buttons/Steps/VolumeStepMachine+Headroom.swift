#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The headroom following the phone (``HeadroomPolicy``): taken only between runs of presses — while idle or
/// suspended — so the next start or resume holds the anchor it gives. Moved while running, a set of the new
/// anchor crossed presses in flight and was read as a press of the other button (randomized sessions).
extension VolumeStepMachine {
    /// Asks for `steps` of headroom: taken while idle or suspended (returns `true`), for the next
    /// ``start(volume:userVolume:at:)`` or ``resume(volume:at:)``; while running or stopping nothing changes
    /// (returns `false`) and the caller asks again after a later input.
    @discardableResult
    public mutating func headroom(_ steps: Int) -> Bool {
        guard phase == .idle || phase == .suspended, !configuration.reportsPressesAtRails else { return false }
        configuration.headroomSteps = steps
        return true
    }

    /// The headroom in force.
    public var headroomSteps: Int { configuration.headroomSteps }

    /// Expects the echo of each set issued from now on no sooner than `seconds` after it (the phone's measured
    /// round trip, less a margin: ``VolumeButtonsEngine``): an observation of a set's value sooner than that is a
    /// press or the user's change, not that set landing. 0 expects echoes at any time. Taken at once: each set
    /// keeps the window it was issued with.
    public mutating func expectEchoes(noSoonerThan seconds: TimeInterval) {
        configuration.echoSoonest = max(0, seconds.isFinite ? seconds : 0)
    }

    /// Aims each reset in a burst of down presses near a rail by the phone's slowest measured round trip
    /// (``HeadroomPolicy/aimRoundTrip(_:refusing:)``; `nil`: just below the anchor). Taken with the headroom it needs,
    /// between runs of presses (returns `true`), as ``headroom(_:)`` is: a burst keeps the aim it began with.
    @discardableResult
    public mutating func aimResets(roundTrip: TimeInterval?) -> Bool {
        guard phase == .idle || phase == .suspended else { return false }
        configuration.burstRoundTrip = roundTrip.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        return true
    }

    /// Makes a set that is not confirmed `seconds` after it again, up to `attempts` tries (the phone's measured
    /// round trip and a margin, with as many tries as keep trying as long as configured: ``VolumeButtonsEngine``).
    /// Taken from the next set or retry on.
    public mutating func retrySets(after seconds: TimeInterval, attempts: Int) {
        guard seconds.isFinite, seconds > 0, attempts > 0 else { return }
        configuration.retryDelay = seconds
        configuration.maximumAttempts = attempts
    }
}
