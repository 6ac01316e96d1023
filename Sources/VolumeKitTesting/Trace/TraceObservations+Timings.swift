import Foundation
import VolumeKitCore

/// The timings a trace shows beside sets and presses: route changes against their volume jump, volume views
/// becoming ready, the mute probe's sound completions and capture events' tap lengths.
extension TraceObservations {
    /// For each route change, the nearest volume jump no set explains within 100 ms: which came first, and
    /// how far apart.
    func routeOrder(claimed: Set<Int>) -> [RuleEstimate] {
        var gaps: [Double] = []
        var beforeKVO = 0
        var afterKVO = 0
        for (route, routeIndex) in zip(routes, routeOrder) {
            let nearby = stream.indices.filter {
                !claimed.contains($0) && abs(stream[$0].time - route) <= 0.1
                    && ($0 == 0 || stream[$0 - 1].value != stream[$0].value)
            }
            guard let index = nearby.min(by: { abs(stream[$0].time - route) < abs(stream[$1].time - route) }) else {
                continue
            }
            let gap = stream[index].time - route
            // At the same instant, the order of the records says which came first.
            if gap > 0 || (gap == 0 && streamOrder[index] > routeIndex) { beforeKVO += 1 } else { afterKVO += 1 }
            gaps.append(abs(gap))
        }
        guard !gaps.isEmpty else {
            let why =
                routes.isEmpty
                ? "the trace has no route change" : "no route change moved the volume (same volume on both routes)"
            return [.notObserved("routeNotification", why), .notObserved("routeKVOGap", why)]
        }
        let order = RuleEstimate(
            rule: "routeNotification", value: .variant(beforeKVO >= afterKVO ? "beforeKVO" : "afterKVO"),
            samples: gaps.count, how: "\(beforeKVO) route changes notified before the KVO, \(afterKVO) after"
        )
        return [
            order,
            .seconds(
                "routeKVOGap", gaps, how: "the route-change notification to the nearest volume jump no set explains"),
        ]
    }

    func viewReadyDelay() -> RuleEstimate {
        let delays = installs.compactMap { view, time in readies[view].map { $0 - time } }
        return .seconds(
            "volumeViewReadyDelay", delays,
            how: delays.isEmpty ? "no volume view became ready" : "each volume view's install to its readiness")
    }

    /// The sound probe's completion delays in two groups — skipped sounds (switch on silent) complete almost
    /// at once, played ones after the sound's length: of the splits between delays at least 3× apart, the one
    /// leaving the least spread (in log time) within the groups.
    func soundCompletions() -> [RuleEstimate] {
        let delays = playStarts.compactMap { play, start in playEnds[play].map { $0 - start } }.sorted()
        guard !delays.isEmpty else {
            return [
                .notObserved("soundSkippedDelay", "no system sound was played (the mute probe did not run)"),
                .notObserved("soundPlayedDelay", "no system sound was played (the mute probe did not run)"),
            ]
        }
        let logs = delays.map { log(max($0, 1e-6)) }
        func spread(_ part: ArraySlice<Double>) -> Double {
            guard !part.isEmpty else { return 0 }
            let mean = part.reduce(0, +) / Double(part.count)
            return part.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        }
        var split = delays.count
        var best = Double.infinity
        for index in delays.indices.dropFirst() where delays[index] >= 3 * max(delays[index - 1], 1e-6) {
            let within = spread(logs[..<index]) + spread(logs[index...])
            if within < best { best = within; split = index }
        }
        var skipped = Array(delays[..<split])
        var played = Array(delays[split...])
        // One group only: short delays are skips, long ones plays (50 ms: the longest skip reported).
        if skipped.isEmpty || played.isEmpty {
            let all = skipped + played
            skipped = all.filter { $0 <= 0.05 }
            played = all.filter { $0 > 0.05 }
        }
        return [
            .seconds(
                "soundSkippedDelay", skipped, floor: 0.0001,
                how: skipped.isEmpty
                    ? "no sound completed early (the switch never on silent)"
                    : "the short group of the probe's play-to-completion delays (max \(String(format: "%.1f", (skipped.max() ?? 0) * 1000)) ms)"
            ),
            .seconds(
                "soundPlayedDelay", played, floor: 0.0001,
                how: played.isEmpty
                    ? "no sound played out (the switch always on silent)"
                    : "the long group of the probe's play-to-completion delays: the sound's length plus output latency"),
        ]
    }

    func tapLength() -> RuleEstimate {
        var lengths: [Double] = []
        var began: [CaptureEventSource: Double] = [:]
        for (time, event) in captures {
            switch event.phase {
            case .began: began[event.source] = time
            case .ended, .cancelled:
                // Presses held longer than half a second are holds, not taps.
                if let start = began.removeValue(forKey: event.source), time - start <= 0.5 {
                    lengths.append(time - start)
                }
            }
        }
        return .seconds(
            "tapLength", lengths,
            how: lengths.isEmpty
                ? "needs capture events (strategy captureEvents)" : "each capture event's began to its end, up to 0.5 s"
        )
    }
}
