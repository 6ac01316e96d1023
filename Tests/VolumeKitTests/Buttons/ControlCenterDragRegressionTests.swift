import Testing
import VolumeKitCore

/// sn-8542-67644098, ov-8542, ov-5519: a Control Center drag while VolumeKit is not capturing, whose samples come a read's width
/// from a step apart (0.0624288 of 0.0625), must report the user's values as they are — not userVolume + a step
/// each time, which drifted the user's 0.64 to 0.6403.
@Suite struct ControlCenterDragRegressionTests {
    @Test("A Control Center drag about a step per sample, not capturing: the values are the user's as they are")
    func dragNearWholeSteps() {
        var machine = VolumeStepMachine()
        var time = 0.0
        var reported = [Float]()
        func run(_ actions: VolumeStepMachine.Actions) {
            for action in actions {
                switch action {
                case .userVolumeChanged(let value): reported.append(value)
                case .setVolume(let value):
                    time += 0.001
                    run(machine.observe(value, at: time))
                default: break
                }
            }
        }
        run(machine.start(volume: 0.33, userVolume: 0.33, at: 0))
        time = 1
        run(machine.suspend(at: time))
        // The slider starts from a nudge of ours (0.32785586) and reaches 0.64 in five samples 0.06 s apart.
        let start: Float = 0.32785586
        for k in 1...5 {
            time += 0.06
            let value: Float = k == 5 ? 0.64 : start + Float(k) * (0.64 - start) / 5
            run(machine.observe(value, at: time))
        }
        #expect(abs((reported.last ?? 0) - 0.64) < 1e-5, "reported \(reported)")
        #expect(abs(machine.userVolume - 0.64) < 1e-5)
    }
}
