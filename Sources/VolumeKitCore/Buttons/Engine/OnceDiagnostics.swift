#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The diagnostics ``VolumeButtonsEngine`` raises once for a cause, not once for every input that shows it
/// again: each is raised when it is first seen, and may be raised again only after its cause went away
/// (``clear(_:)``).
struct OnceDiagnostics: OptionSet {
    let rawValue: UInt8

    /// ``VolumeButtonsDiagnostic/sessionActivationFailed(_:)``: once until reads are live again.
    static let activationFailure = OnceDiagnostics(rawValue: 1 << 0)
    /// ``VolumeButtonsDiagnostic/captureEventsNotDelivered``: once a run.
    static let captureEventsMissing = OnceDiagnostics(rawValue: 1 << 1)
    /// ``VolumeButtonsDiagnostic/headroomExhausted``: each time the volume arrives at a rail (or is found stuck
    /// there), not again while it stays there.
    static let atRail = OnceDiagnostics(rawValue: 1 << 2)

    /// ``VolumeButtonsDiagnostic/outsideEnvelope(_:_:)`` for `rule`: once a run for each rule.
    static func outside(_ rule: CalibrationRule) -> OnceDiagnostics {
        let index = CalibrationRule.allCases.firstIndex(of: rule) ?? 0
        return OnceDiagnostics(rawValue: 1 << (3 + UInt8(index)))
    }

    /// Whether `kind` is raised now: `true` the first time, `false` until it is cleared.
    mutating func raise(_ kind: OnceDiagnostics) -> Bool {
        insert(kind).inserted
    }

    /// `kind`'s cause went away: the next ``raise(_:)`` raises it again.
    mutating func clear(_ kind: OnceDiagnostics) {
        remove(kind)
    }
}
