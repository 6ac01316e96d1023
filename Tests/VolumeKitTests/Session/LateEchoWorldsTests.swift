import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// A set of VolumeKit's observed only after the app came back, and the read that follows (issue 11, ov-19692):
/// each world the machine cannot tell apart gets the answer that is right in all of them.
@Suite("The user's volume is never lost: a late echo and the read after a pause")
struct LateEchoWorldsTests {
    /// The user's 1.0, held at the headroom anchor 0.875; a down press (its nudge below the anchor observed or not,
    /// `nudgeObserved`); with `settled` its reset to the anchor is issued once the buttons are quiet. The app then
    /// leaves before that last set's echo: the restore to 1.0 is issued and taken as landed. Returns the machine
    /// and the last set issued before the restore.
    private static func leaving(nudgeObserved: Bool, settled: Bool) -> (VolumeStepMachine, Float) {
        var machine = VolumeStepMachine()
        var sets: [Float] = []
        func run(_ actions: VolumeStepMachine.Actions) { for case .setVolume(let v) in actions { sets.append(v) } }
        run(machine.start(volume: 1, at: 0))
        for value in sets { _ = machine.observe(value, at: 0.03) }
        #expect(machine.anchor == 0.875)
        sets = []
        run(machine.observe(0.8125, at: 1))
        var last = sets.last ?? 0
        if nudgeObserved {
            for value in sets { _ = machine.observe(value, at: 1.03) }
        }
        if settled {
            sets = []
            run(machine.tick(at: 1.4))
            #expect(sets == [0.875], "the reset to the anchor once the buttons are quiet")
            last = sets.last ?? 0
        }
        _ = machine.suspend(at: 1.41)
        _ = machine.assumeSetsLanded(at: 1.41)
        return (machine, last)
    }

    @Test("The anchor's reset seen on return, then presses: the value the system showed (ov-19692)")
    func pressesAfterLateAnchorEcho() {
        // The reset to 0.875 landed as the app left, its KVO delivered on return. Either the restore landed and
        // four presses went 1.0 → 0.75, or a new down press refused it and two went 0.875 → 0.75: 0.75 in both.
        var (machine, anchor) = Self.leaving(nudgeObserved: true, settled: true)
        _ = machine.observe(anchor, at: 2.4)
        _ = machine.resume(volume: 0.75, at: 2.4)
        #expect(machine.userVolume == 0.75, "not 1.0 − 2 steps = 0.875 (presses from the anchor put on the user's)")
    }

    @Test(
        "The anchor's reset seen on return, then a read of the anchor's value: the user's presses (or Control Center)"
    )
    func lateAnchorEchoThenReadAtAnchor() {
        // The reset to the anchor landed before the restore, which lands over it (a held down press would have
        // refused the anchor itself: it is the value before that press); two presses went 1.0 → 0.875, or Control
        // Center. A restore that did not land leaves the volume at the anchor only with no press at all, which
        // takes both of its sets dropped (they differ: no cached value equals both).
        var (machine, anchor) = Self.leaving(nudgeObserved: true, settled: true)
        _ = machine.observe(anchor, at: 2.4)
        _ = machine.resume(volume: 0.875, at: 2.4)
        #expect(machine.userVolume == 0.875, "the user's 0.875, not 1.0 kept as if the restore never landed")
    }

    @Test(
        "The press's nudge seen on return: the press may still be held and refuse the restore — no press of the user's"
    )
    func lateNudgeEchoRestoreRefused() {
        // The nudge below the anchor is accepted during the down press, so its landing says nothing of the press's
        // end: a press still held refuses the restore (seed 000), leaving the volume at the nudge. That is
        // VolumeKit's value, not the user's choice.
        var (machine, nudge) = Self.leaving(nudgeObserved: false, settled: false)
        #expect(nudge < 0.875)
        _ = machine.observe(nudge, at: 2.4)
        _ = machine.resume(volume: nudge, at: 2.4)
        #expect(machine.userVolume == 1)
    }

    @Test("The press's nudge seen on return, then the held press repeats: the value the system showed")
    func lateNudgeEchoThenRepeat() {
        // The held press refused the restore and repeated once from the nudge: the system showed 0.8123, one step
        // below VolumeKit's value — not one step below the user's 1.0.
        var (machine, nudge) = Self.leaving(nudgeObserved: false, settled: false)
        _ = machine.observe(nudge, at: 2.4)
        let read = nudge - VolumeStepMachine.step
        _ = machine.resume(volume: read, at: 2.4)
        #expect(machine.userVolume == read, "not 1.0 − 1 step = 0.9375")
    }

    @Test("A grid device: the anchor's reset lands as the app leaves and presses follow in the background (ov-19692)")
    func lateAnchorEchoOnDevice() throws {
        // The sample's rules: a fast slider, KVO 30 ms late, the app suspended at once (its pending KVO delivered
        // on return).
        let run = try CaptureRun(
            [
                "stepQuantization=grid", "downPressRefusal=none", "kvoLatency=0.03", "sliderLatency=0.005",
                "suspensionDelay=0", "firstRepeatDelay=0.607", "repeatInterval=0.1403", "tapLength=0.0941",
            ], volume: 1)
        run.device.hold(.down, for: 0.3)
        // The press's KVO (+0.03), the nudge, the reset to the anchor 0.35 later lands (+0.385); its KVO is due at
        // +0.415 when the app has left.
        run.device.advance(by: 0.4)
        run.device.background()
        run.device.advance(by: 0.2)
        for _ in 0..<4 {
            run.device.press(.down)
            run.device.advance(by: 0.18)
        }
        run.device.advance(by: 0.2)
        run.device.foreground()
        run.device.advance(by: 1)
        run.stop()
        #expect(run.device.volume == 0.75, "four presses down from the user's 1.0")
    }

    /// The user's 1.0 and the headroom anchor 0.875, whose set a volume view not ready lost; three down steps from
    /// 1.0 to 0.8125 observed `gaps` apart (their resets unobserved), the anchor set once the buttons are quiet; an
    /// interruption begins as it lands, the restore to 1.0 is issued and taken as landed, and the anchor's KVO comes
    /// after. Returns the machine.
    private static func interruptedAfterDownSteps(gaps: [Double]) -> VolumeStepMachine {
        var machine = VolumeStepMachine()
        var sets: [Float] = []
        func run(_ actions: VolumeStepMachine.Actions) { for case .setVolume(let v) in actions { sets.append(v) } }
        run(machine.start(volume: 1, at: 0))
        #expect(machine.anchor == 0.875)
        var time = 1.0
        for (value, gap) in zip([Float(0.9375), 0.875, 0.8125], [0] + gaps) {
            time += gap
            run(machine.tick(at: time))  // Echoes expire (the engine ticks at the machine's deadlines).
            run(machine.observe(value, at: time))
        }
        sets = []
        run(machine.tick(at: time + 0.4))
        #expect(sets.last == 0.875, "the reset to the anchor once the buttons are quiet")
        _ = machine.suspend(at: time + 0.45)
        _ = machine.assumeSetsLanded(at: time + 0.45)
        _ = machine.observe(0.875, at: time + 0.451)
        return machine
    }

    @Test("Taps too quick for one hold, the anchor's reset seen as an interruption begins: the restore landed (92392)")
    func tapsThenLateAnchorEcho() {
        // Down steps 0.24 s apart: sooner than any hold's first auto-repeat (0.3 s), so each is a new press and the
        // last began at 0.875 — the anchor's landing shows it over (a press held refuses a set at or above the value
        // before it, seed 000), and the restore of 1.0 landed over it. The read of 0.875 on return is two presses.
        var machine = Self.interruptedAfterDownSteps(gaps: [0.24, 0.24])
        _ = machine.resume(volume: 0.875, at: 3)
        #expect(machine.userVolume == 0.875, "the user's 0.875, not 1.0 kept as if the restore never landed")
    }

    @Test("Steps on a hold's rhythm, the anchor's reset seen as an interruption begins: the restore may be refused")
    func holdThenLateAnchorEcho() {
        // A first repeat 0.5 s after the press, then 0.2 s: one hold from 1.0 may still be held, which accepts the
        // anchor (below 1.0) and refuses the restore — the volume is VolumeKit's anchor, not the user's choice.
        var machine = Self.interruptedAfterDownSteps(gaps: [0.5, 0.2])
        _ = machine.resume(volume: 0.875, at: 3)
        #expect(machine.userVolume == 1)
    }
}
