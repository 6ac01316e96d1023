import Foundation
import Testing
import VolumeKitCore

/// A restore on its way while the user drags Control Center's slider (issue 11, ov-9872-78176368): the machine
/// follows each value the slider showed with a set of its own (a nudge and the value, so that the user's value
/// lands last), and every one of those sets is still on its way when the restore lands. The restore's landing
/// must read as VolumeKit's, never as the user's choice.
@Suite("Correct across the envelope: a restore landing after the user's slider")
struct StoppingEchoesRegressionTests {
    @Test("The restore's landing after three slider values is VolumeKit's, not the user's volume")
    func restoreLandsAfterSlider() {
        var machine = VolumeStepMachine()
        // A recovery: the volume VolumeKit left (its anchor 0.875), the user's 0.9375 given back.
        var actions = Array(machine.restore(volume: 0.875, userVolume: 0.9375, at: 0))
        #expect(actions.contains(.setVolume(0.9375)))
        // The slider's values arrive before the restore lands (a slow slider: 0.14 s per set).
        for (index, value) in [Float(0.836), 0.797, 0.758].enumerated() {
            actions = Array(machine.observe(value, at: 0.02 + 0.06 * Double(index)))
            #expect(actions.contains(.userVolumeChanged(value)))
        }
        // The restore's sets land now: VolumeKit's, over the user's 0.758.
        var seen = [VolumeStepMachine.Action]()
        for value in [0.9375 + VolumeStepMachine.nudge, Float(0.9375)] {
            seen += Array(machine.observe(value, at: 0.15))
        }
        #expect(!seen.contains(.userVolumeChanged(0.9375)), "the restore's landing taken for the user's change")
        #expect(machine.userVolume == 0.758)
        #expect(!seen.contains(.restored), "stopped before the user's value landed last")
    }
}
