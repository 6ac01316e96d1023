import Testing
import VolumeKitCore

@Suite("Mute probe: classifying one silent sound from monotonic times")
struct MuteProbeTests {
    let timing = MuteProbeTiming.standard

    @Test("A completion before the threshold is silent, decided at the completion")
    func silent() {
        var probe = MuteProbe(timing: timing, startedAt: 10)
        #expect(probe.tick(at: 10.03).isEmpty)
        #expect(probe.completed(at: 10.049) == [.decided(.silent)])
        #expect(probe.decidedAt == 10.049)
        #expect(probe.isFinished)
        #expect(probe.nextDeadline == nil)
    }

    @Test("No completion by the threshold is ringing, decided at the threshold, not at the sound's end")
    func ringingAtThreshold() {
        var probe = MuteProbe(timing: timing, startedAt: 5)
        #expect(probe.nextDeadline == 5 + timing.threshold)
        #expect(probe.tick(at: 5 + timing.threshold - 0.001).isEmpty)
        #expect(probe.tick(at: 5 + timing.threshold) == [.decided(.ringing)])
        #expect(probe.decidedAt == 5 + timing.threshold)
        #expect(!probe.isFinished)
        // The sound finishing afterwards confirms it.
        #expect(probe.completed(at: 5 + timing.soundDuration + 0.05).isEmpty)
        #expect(probe.state == .ringing)
    }

    @Test("A completion exactly at the threshold is not silent")
    func completionAtThreshold() {
        var probe = MuteProbe(timing: timing, startedAt: 0)
        #expect(probe.tick(at: timing.threshold) == [.decided(.ringing)])
        #expect(probe.completed(at: timing.threshold) == [.revised(.silent)])
    }

    @Test("A completion too early for a played sound revises ringing to silent")
    func lateSilentRevises() {
        var probe = MuteProbe(timing: timing, startedAt: 0)
        _ = probe.tick(at: timing.threshold)
        #expect(probe.completed(at: 0.12) == [.revised(.silent)])
        #expect(probe.state == .silent)
    }

    @Test("A completion the timer has not yet seen is classified by its own time")
    func lateTick() {
        var early = MuteProbe(timing: timing, startedAt: 0)
        #expect(early.completed(at: 0.13) == [.decided(.silent)])
        var played = MuteProbe(timing: timing, startedAt: 0)
        #expect(played.completed(at: 0.25) == [.decided(.ringing)])
    }

    @Test("No completion by the timeout is unknown(noCompletion)")
    func timeout() {
        var probe = MuteProbe(timing: timing, startedAt: 0)
        _ = probe.tick(at: timing.threshold)
        #expect(probe.nextDeadline == timing.timeout)
        #expect(probe.tick(at: timing.timeout) == [.revised(.unknown(.noCompletion))])
        #expect(probe.isFinished)
        #expect(probe.completed(at: timing.timeout + 1).isEmpty)
    }

    @Test("The standard timing keeps a stated margin on both sides")
    func margins() {
        #expect(timing.silentMargin >= 0.05 - 1e-12)
        #expect(timing.ringingMargin >= 0.1 - 1e-12)
        #expect(timing.threshold > MuteProbeTiming.measuredSilentMaximum)
        #expect(timing.lateSilentBound > timing.threshold && timing.lateSilentBound < timing.soundDuration)
    }

    @Test("Timings that cannot classify are refused with a typed error")
    func invalidTimings() {
        #expect(throws: MuteTimingError.thresholdOutsideSound) {
            try MuteProbeTiming(soundDuration: 0.1, threshold: 0.1, timeout: 1)
        }
        #expect(throws: MuteTimingError.thresholdOutsideSound) {
            try MuteProbeTiming(soundDuration: 0.2, threshold: 0, timeout: 1)
        }
        #expect(throws: MuteTimingError.timeoutTooShort) {
            try MuteProbeTiming(soundDuration: 0.2, threshold: 0.1, timeout: 0.2)
        }
        #expect(throws: MuteTimingError.soundTooLong) {
            try MuteProbeTiming(soundDuration: 31, threshold: 0.1, timeout: 40)
        }
        #expect(throws: MuteTimingError.notFinite) {
            try MuteProbeTiming(soundDuration: .nan, threshold: 0.1, timeout: 1)
        }
    }
}

@Suite("Mute probe after a lost completion")
struct MuteProbeAfterLossTests {
    @Test("It waits for its completion instead of answering ringing at the threshold")
    func waitsForCompletion() {
        var probe = MuteProbe(startedAt: 0, decidesRingingAtThreshold: false)
        #expect(probe.nextDeadline == MuteProbeTiming.standard.timeout)
        #expect(probe.tick(at: 0.5).isEmpty)
        #expect(probe.completed(at: 0.31) == [.decided(.ringing)])
        var lost = MuteProbe(startedAt: 0, decidesRingingAtThreshold: false)
        #expect(lost.tick(at: 1) == [.decided(.unknown(.noCompletion))])
    }
}
