import Foundation

/// The headroom following the phone (``HeadroomPolicy``): the anchor moves to the new headroom at a quiet moment,
/// so a set of the new anchor never crosses a burst's sets.
extension VolumeStepMachine {
    /// Asks for `steps` of headroom. While capturing it takes effect only when the machine is quiet — nothing of
    /// its own in flight or waiting to be confirmed, no down press that may still be held — and returns the set
    /// of the new anchor; otherwise nothing changes yet and the caller asks again after a later input (see
    /// ``headroomSteps``). Idle or suspended, it is taken at once for the next start or resume.
    public mutating func headroom(_ steps: Int, at time: Instant) -> Actions {
        guard steps != configuration.headroomSteps, !configuration.reportsPressesAtRails else { return [] }
        guard phase == .running else {
            if phase != .stopping { configuration.headroomSteps = steps }
            return []
        }
        guard echoes.isEmpty, !retrier.isWaiting, downPress.anchor == .held else { return [] }
        configuration.headroomSteps = steps
        return hold(anchorFor(userVolume), at: time)
    }

    /// The headroom in force.
    public var headroomSteps: Int { configuration.headroomSteps }
}
