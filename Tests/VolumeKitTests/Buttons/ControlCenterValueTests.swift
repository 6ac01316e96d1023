import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Control Center's slider: each value it shows is the user's as it is — never a press of whole steps, never undone by
/// a set of VolumeKit's that lands after it.
@Suite("Control Center's values are the user's as they are")
struct ControlCenterValueTests {
    /// sn-8542-67644098, ov-8542, ov-5519: a Control Center drag while VolumeKit is not capturing, whose samples come
    /// a read's width from a step apart (0.0624288 of 0.0625), must report the user's values as they are — not
    /// userVolume + a step each time, which drifted the user's 0.64 to 0.6403.
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

    /// Held-out sample 44348: a drag's last two samples 8e-5 apart (0.2499186 → 0.25), closer than a read's
    /// tolerance. KVO reports changes only, so the last sample is where the user left the volume; taken for "no
    /// change", the machine kept 0.2499186 as theirs, and an up press after the interruption snapped from there onto
    /// 0.25 unseen (a press lost while VolumeKit said it was capturing).
    @Test("A drag's last sample a hair from the one before is the user's volume, and the next press is seen")
    func dragEndsAHairApart() {
        var machine = VolumeStepMachine()
        _ = machine.start(volume: 0.3125, userVolume: 0.3125, at: 0)
        _ = machine.observe(0.3125, at: 0.05)
        _ = machine.suspend(at: 1)
        for (index, value) in [Float(0.28), 0.2499186, 0.25].enumerated() {
            _ = machine.observe(value, at: 1.1 + 0.06 * Double(index))
        }
        #expect(machine.userVolume == 0.25, "the drag ended on 0.25: \(machine.userVolume)")
        // Back, the volume read where the drag left it: an up press from there is one step up, reported.
        _ = machine.resume(volume: 0.25, at: 2)
        #expect(machine.observe(0.3125, at: 2.5).contains(.steps(.up, count: 1)))
    }

    @Test("Control Center while a restore is on its way: the user's value wins over the set landing after it")
    func controlCenterDuringRestore() throws {
        var behaviour = DeviceBehaviour()
        try behaviour.set("sliderLatency=0.15")
        try behaviour.set("volumeViewReadyDelay=0.5")
        let device = SimulatedDevice(.init(volume: 1, behaviour: behaviour))
        let engine = VolumeButtonsEngine(configuration: .init(), clients: device.clients, onEvent: { _ in })
        try engine.start()
        device.advance(by: 0.3)
        // Control Center opens (the app inactive); the view gets ready meanwhile and VolumeKit's sets (the anchor,
        // then the user's 1.0 back) are on their way when the user's 0.49 arrives: they land after it.
        device.controlCenterSlider(0.49)
        device.advance(by: 2)
        engine.stop()
        device.advance(by: 2)
        #expect(device.volume == 0.49)
    }

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

    @Test("A Control Center value close to whole steps from the user's is not taken for presses")
    func controlCenterNearWholeSteps() {
        var machine = VolumeStepMachine()
        _ = machine.start(volume: 0.31, at: 0)
        var value: Float = 0.31
        for press in 1...5 {
            let sets = machine.observe(value - VolumeStepMachine.step, at: Double(press))
            for case .setVolume(let nudged) in sets {
                value = nudged
                _ = machine.observe(nudged, at: Double(press) + 0.02)
            }
        }
        _ = machine.suspend(at: 6)
        _ = machine.assumeSetsLanded(at: 6)
        _ = machine.resume(volume: 0.12, at: 8)
        #expect(machine.userVolume == 0.12)
    }
}
