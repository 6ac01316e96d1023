import Foundation

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
}
