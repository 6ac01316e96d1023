import Foundation
import Testing
import VolumeKitCore

/// A read when observations come back (another component had taken the session over) against what the machine
/// last saw: the value it already judged is no new change of the user's.
@Suite("Reads after a take-over: the value last seen is no change")
struct ResyncReadTests {
    @Test(
        "Presses walked the volume to 0 while every reset was refused; a take-over's read of 0 keeps the user's volume"
    )
    func readOfLastSeenValue() {
        var machine = VolumeStepMachine(configuration: .init(maximumAttempts: 1))
        _ = machine.start(volume: 0.0625, at: 0)
        _ = machine.observe(0.125, at: 0.1)
        #expect(machine.userVolume == 0.0625)
        // Two down presses; iOS refuses the resets (a down press held), so the volume walks down to 0.
        #expect(Array(machine.observe(0.0625, at: 1)).first == .steps(.down, count: 1))
        #expect(Array(machine.observe(0, at: 1.2)).first == .steps(.down, count: 1))
        let ticks = [1.5, 2, 2.5].flatMap { Array(machine.tick(at: $0, volume: 0)) }
        #expect(ticks.contains { if case .setFailed = $0 { true } else { false } }, "the anchor set gave up: \(ticks)")
        // Well after any set of ours could land, the session comes back: the read is what was last seen.
        let actions = Array(machine.resync(volume: 0, at: 3))
        #expect(!actions.contains { if case .userVolumeChanged = $0 { true } else { false } }, "\(actions)")
        #expect(machine.userVolume == 0.0625)
    }
}

/// A live read's own change observed late is no new change.
@Suite("A read's own change, observed late")
struct LateObservationOfReadTests {
    @Test("A recovery gives 0.51 back from a read of 0.5073; that 0.5073's KVO arriving afterwards keeps 0.51")
    func lateObservationOfTheRead() {
        var machine = VolumeStepMachine()
        let restore = Array(machine.restore(volume: 0.5073, userVolume: 0.51, at: 0))
        #expect(restore.contains(.setVolume(0.51)), "\(restore)")
        let late = Array(machine.observe(0.5073, at: 0.01))
        #expect(!late.contains { if case .userVolumeChanged = $0 { true } else { false } }, "\(late)")
        #expect(machine.userVolume == 0.51)
    }
}
