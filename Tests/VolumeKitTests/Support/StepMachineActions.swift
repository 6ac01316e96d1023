import VolumeKitCore

extension Sequence<VolumeStepMachine.Action> {
    /// The values these actions set (``VolumeStepMachine/Action/setVolume(_:)``), in order.
    var setValues: [Float] {
        compactMap { if case .setVolume(let value) = $0 { value } else { nil } }
    }
}
