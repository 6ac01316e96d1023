import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// A press landing exactly on the value of a set of VolumeKit's still on its way: its observation takes that
/// set's echo, and the set's own landing, later, must still be taken as VolumeKit's (issue 11, ov-11626).
@Suite("The user's volume is never lost: a press landing on a set of ours in flight")
struct EchoTheftTests {
    @Test("The anchor's set lands after a press took its echo, once the app has left: not the user's change")
    func stolenEchoLandsWhileSuspended() {
        // Grid device, slider 0.15 s: the user's 0.0625, the anchor 0.125 set as capture starts; a held up press
        // lands on 0.125 first (its KVO takes the anchor's echo), repeats to 0.1875, then the anchor lands over it
        // (taking the echo of the press's reset). The app leaves; the reset lands: VolumeKit's, not the user's.
        var machine = VolumeStepMachine()
        let start = machine.start(volume: 0.0625, at: 0)
        #expect(start == [.setVolume(0.125)])
        _ = machine.observe(0.125, at: 0.03)
        let reset = machine.observe(0.1875, at: 0.13)
        #expect(reset.contains(.setVolume(0.125)))
        _ = machine.observe(0.125, at: 0.18)
        _ = machine.suspend(at: 0.22)
        for case .setVolume(let value) in reset { _ = machine.observe(value, at: 0.31) }
        #expect(machine.userVolume == 0.0625, "the reset's landing is VolumeKit's, not the user's 0.125")
    }

    @Test("Up taps faster than the slider after a press took the anchor's echo: no user's change, no down press")
    func lateNudgeAndAnchor() {
        // Grid device, slider 0.118 s, KVO 0.018 s (sweep outputVolume sample 241): capture starts at the user's
        // 0.1 with the anchor 0.125 on its way; three up taps 0.084 s apart. The first lands on 0.125 and takes
        // the anchor's echo (no app can tell), the anchor's own landing then takes the echo of the first reset's
        // anchor, and the last reset's nudge and anchor land with no echo left for them. Each is VolumeKit's:
        // neither the user's volume nor a down press from the nudge onto the anchor.
        var machine = VolumeStepMachine()
        #expect(machine.start(volume: 0.1, userVolume: 0.1, at: 0.3825) == [.setVolume(0.125)])
        var actions = machine.observe(0.125, at: 0.4184)
        actions += machine.observe(0.1875, at: 0.5028)
        actions += machine.observe(0.125, at: 0.5193)
        actions += machine.observe(0.1875, at: 0.5871)
        for time in [0.6396, 0.7239] {
            actions += machine.observe(0.12524414, at: time)
            actions += machine.observe(0.125, at: time)
        }
        #expect(
            actions.filter { if case .steps = $0 { true } else { false } } == [
                .steps(.up, count: 1), .steps(.up, count: 1),
            ])
        #expect(!actions.contains { if case .userVolumeChanged = $0 { true } else { false } })
        #expect(machine.userVolume == 0.1)
    }

    @Test("A set's own landing first, then the user's value given back and a press onto the set's value: the user's")
    func landingThenPressBack() {
        // The anchor's set lands on its own (a fast slider: its observation was no press); the app leaves and the
        // user's 0.0625 is given back; the user presses up, onto the anchor's value, within its echo's life: a
        // set issued after the anchor has landed since, so this is the user's press, not the anchor landing again.
        var machine = VolumeStepMachine()
        _ = machine.start(volume: 0.0625, at: 0)
        _ = machine.observe(0.125, at: 0.01)
        let restore = machine.suspend(at: 0.02)
        for case .setVolume(let value) in restore { _ = machine.observe(value, at: 0.04) }
        #expect(machine.userVolume == 0.0625)
        let press = machine.observe(0.125, at: 0.1)
        #expect(machine.userVolume == 0.125)
        #expect(!press.contains { if case .setVolume = $0 { true } else { false } }, "nothing set over the press")
    }

    @Test("A grid device, slow slider: two quick presses as capture resumes, then the app leaves (ov-11626)")
    func pressesOnAnchorInFlightOnDevice() throws {
        let run = try CaptureRun(
            [
                "stepQuantization=grid", "downPressRefusal=seedShape", "kvoLatency=0.03", "sliderLatency=0.15",
                "suspensionDelay=5", "tapLength=0.05",
            ], volume: 0.0625)
        run.device.background()
        run.device.advance(by: 0.5)
        // Back: VolumeKit reads the user's 0.0625 and sets the anchor 0.125, which lands 0.15 s later. The user
        // presses up at once (0.125: the anchor's value) and again (0.1875) — both captured.
        run.device.foreground()
        run.device.advance(by: 0.02)
        run.device.press(.up)
        run.device.advance(by: 0.08)
        run.device.press(.up)
        run.device.advance(by: 0.1)
        run.device.background()
        run.device.advance(by: 1)
        run.device.foreground()
        run.device.advance(by: 1)
        run.stop()
        #expect(run.device.volume == 0.0625, "both presses were captured: the user's volume is still 0.0625")
    }

    @Test(
        "systemNotification: a hold through the background, chased by restores one step behind — no phantom press on return"
    )
    func holdThroughBackgroundNoPhantom() throws {
        // Corpus background-during-hold under sample 1 (slider 0.15 s, repeats every 0.09 s): the suspended machine
        // puts the user's value back behind each repeat; repeats land on values of its restores in flight. A spare
        // taken before a later set of the same value had to be used first (sets land in order), or every later
        // restore's echo went to the one before it and the last landing, after the return, read as a press.
        let run = try CaptureRun(
            [
                "firstRepeatDelay=0.3851", "repeatInterval=0.0903", "tapLength=0.1085", "stepQuantization=grid",
                "downPressRefusal=none", "kvoLatency=0.0271", "sliderLatency=0.15", "suspensionDelay=4.0748",
            ], volume: 0.5, configuration: .init(strategy: .systemNotification, allowsPrivateAPI: true))
        run.device.hold(.down, for: 1.5)
        run.device.advance(by: 0.9)
        run.device.background()
        run.device.advance(by: 1)
        let before = run.events.current.count
        run.device.foreground()
        run.device.advance(by: 1)
        let after = run.events.current.dropFirst(before).map { "\($0.button) \($0.phase)" }
        #expect(after.isEmpty, "no press after the return: \(after)")
        run.stop()
    }
}
