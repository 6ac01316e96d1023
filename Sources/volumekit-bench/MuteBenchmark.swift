import Foundation
import VolumeKitCore
import VolumeKitTesting

/// Mute-switch probes under seeded completion jitter: VolumeKit's probe (200 ms silent sound, 100 ms
/// threshold, "ringing" decided at the threshold) beside the anchor-style probe (0.1 s sound, 0.1 s
/// threshold, decided at completion; akramhussein/Mute and its kin, `shared/facts/mute-switch.md` §1).
///
/// Completion delays come from the simulated device's ``SoundCompletionLatency`` models; the switch is on
/// silent for half of the probes, at random. Misclassification = the first answer differs from the switch.
enum MuteBenchmark {
    static let probes = 100_000
    static let seed: UInt64 = 20_240_501

    struct Figures {
        var wrong = 0
        var wrongFinal = 0
        var silentTimes: [Double] = []
        var ringingTimes: [Double] = []
        var allTimes: [Double] { silentTimes + ringingTimes }
    }

    static func run() {
        print("")
        print("mute switch probes: \(probes) per row, seed \(seed), switch on silent for ~half at random")
        print(
            "row".padding(toLength: 44, withPad: " ", startingAt: 0),
            " wrong  wrong-final     p50 all     p99 all  p50 silent  p99 silent  p50 ringing  p99 ringing")
        let models: [(String, SoundCompletionLatency)] = [
            ("documented: skipped ≤ 50 ms", .documented),
            ("recent phones: skipped ≤ 10 ms", .recentPhone),
            ("OUTSIDE: skipped ≤ 150 ms", .stalledCallbacks),
        ]
        for (name, model) in models {
            report("VolumeKit  · \(name)", volumeKit(model))
            report("anchor     · \(name)", anchor(model))
        }
        endToEnd()
    }

    static func volumeKit(_ model: SoundCompletionLatency) -> Figures {
        var random = SeededRandom(seed: seed)
        var figures = Figures()
        let timing = MuteProbeTiming.standard
        for _ in 0..<probes {
            let silent = Bool.random(using: &random)
            let completion =
                silent
                ? model.skippedDelay(using: &random)
                : model.playedDelay(duration: timing.soundDuration, using: &random)
            var probe = MuteProbe(timing: timing, startedAt: 0)
            var first: MuteState?
            // Events in time order: the threshold tick, the completion, the timeout tick.
            var events: [(Double, Bool)] = [(timing.threshold, false), (completion, true), (timing.timeout, false)]
            events.sort { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 && !$1.1) }
            for (time, isCompletion) in events where !probe.isFinished {
                let outcomes = isCompletion ? probe.completed(at: time) : probe.tick(at: time)
                for case .decided(let state) in outcomes where first == nil { first = state }
            }
            let truth: MuteState = silent ? .silent : .ringing
            if first != truth { figures.wrong += 1 }
            if probe.state != truth { figures.wrongFinal += 1 }
            let time = probe.decidedAt ?? timing.timeout
            if silent { figures.silentTimes.append(time) } else { figures.ringingTimes.append(time) }
        }
        return figures
    }

    static func anchor(_ model: SoundCompletionLatency) -> Figures {
        var random = SeededRandom(seed: seed)
        var figures = Figures()
        for _ in 0..<probes {
            let silent = Bool.random(using: &random)
            let completion =
                silent ? model.skippedDelay(using: &random) : model.playedDelay(duration: 0.1, using: &random)
            let saysSilent = completion < 0.1
            if saysSilent != silent { figures.wrong += 1; figures.wrongFinal += 1 }
            if silent { figures.silentTimes.append(completion) } else { figures.ringingTimes.append(completion) }
        }
        return figures
    }

    /// The whole engine on the simulated device: on-demand checks, with priming, timers and jitter.
    static func endToEnd() {
        let checks = 10_000
        let device = SimulatedDevice()
        device.seedSoundJitter(seed)
        let engine = MuteSwitchEngine(
            observesVolume: false, soundURL: URL(fileURLWithPath: "/mute-probe.caf"), clients: device.clients)
        var random = SeededRandom(seed: seed)
        var wrong = 0
        var times: [Double] = []
        for _ in 0..<checks {
            let silent = Bool.random(using: &random)
            device.setMuteSwitch(on: silent)
            let asked = device.now
            let answer = Locked<(MuteState, Instant)?>(nil)
            engine.check { state in answer.withLock { $0 = (state, device.now) } }
            device.advance(by: 0.6)
            guard let (state, at) = answer.current else { wrong += 1; continue }
            if state != (silent ? .silent : .ringing) { wrong += 1 }
            times.append(at - asked)
        }
        print(
            String(
                format:
                    "end to end (engine on SimulatedDevice, documented): %d checks, %d wrong, answer p50 %.1f ms, p99 %.1f ms",
                checks, wrong, percentile(times, 0.5) * 1000, percentile(times, 0.99) * 1000))
    }

    static func report(_ name: String, _ figures: Figures) {
        func ms(_ values: [Double], _ p: Double) -> String { String(format: "%7.1f ms", percentile(values, p) * 1000) }
        print(
            name.padding(toLength: 44, withPad: " ", startingAt: 0),
            String(format: "%6d  %11d ", figures.wrong, figures.wrongFinal),
            ms(figures.allTimes, 0.5), ms(figures.allTimes, 0.99),
            ms(figures.silentTimes, 0.5), ms(figures.silentTimes, 0.99), " ", ms(figures.ringingTimes, 0.5), " ",
            ms(figures.ringingTimes, 0.99))
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }
}
