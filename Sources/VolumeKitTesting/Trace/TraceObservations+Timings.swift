import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The timings a trace shows beside sets and presses: route changes against their volume jump, volume views
/// becoming ready, the mute probe's sound completions and capture events' tap lengths.
extension TraceObservations {
    /// What the route changes show: for each notified one, the nearest volume jump no set explains within
    /// 100 ms (which came first, and how far apart); and the route changes the app saw in its own reads of the
    /// route, while listening throughout, with no notification of that route within ``notificationWindow``.
    struct RouteFit {
        var order: RuleEstimate
        /// Notification → KVO, for the changes notified before their KVO.
        var beforeKVO: [Double]
        /// KVO → notification, for the changes notified after their KVO.
        var afterKVO: [Double]
        /// The reads that showed a route change nothing notified.
        var unnotified: [Double]
    }

    /// How far a route read may be from the notification of the same route: the KVO delay and the gap after
    /// the notification (0–30 + 0–20 ms) with room to spare.
    static let notificationWindow = 0.15

    /// The reads of the route that show a change with no notification of it: times.
    var unnotifiedRouteChanges: [Double] {
        routeReads.filter { read in
            guard let now = state(at: read.time), now.listening, state(at: read.since)?.epoch == now.epoch else {
                return false
            }
            return !notifiedRoutes.contains {
                $0.route == read.route && abs($0.time - read.time) <= Self.notificationWindow
            }
        }.map(\.time)
    }

    func routeOrder(claimed: Set<Int>) -> RouteFit {
        var before: [Double] = []
        var after: [Double] = []
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
            if gap > 0 || (gap == 0 && streamOrder[index] > routeIndex) {
                before.append(abs(gap))
            } else {
                after.append(abs(gap))
            }
        }
        let unnotified = unnotifiedRouteChanges
        let counts = [("beforeKVO", before.count), ("afterKVO", after.count), ("missing", unnotified.count)]
        let total = before.count + after.count + unnotified.count
        guard total > 0 else {
            let why =
                routes.isEmpty
                ? "the trace has no route change (neither notified nor seen in the app's reads of the route)"
                : "no route change moved the volume (same volume on both routes)"
            return RouteFit(order: .notObserved("routeNotification", why), beforeKVO: [], afterKVO: [], unnotified: [])
        }
        // The most frequent; on a tie, the earlier in this list.
        let most = counts.map(\.1).max() ?? 0
        let chosen = counts.first { $0.1 == most }!
        let order = RuleEstimate(
            rule: "routeNotification", value: .variant(chosen.0), samples: total,
            how:
                "\(before.count) route changes notified before their KVO, \(after.count) after, \(unnotified.count) seen only in the app's reads of the route (never notified)"
        )
        return RouteFit(order: order, beforeKVO: before, afterKVO: after, unnotified: unnotified)
    }

    /// When each volume view became ready, from the sets made through it (`matched`: each set with the KVO of its
    /// value, ``matchSets()``). iOS gives no readiness signal — the host's `viewReady` record is its own timer,
    /// ``/VolumeKitCore/VolumeViewReadiness/hostDelay`` — but a set made before the view is ready is lost and one
    /// made after lands. A view's readiness lies after the last set through it that did not land though it would
    /// have moved the volume, and no later than the first that landed; the views' bounds are intersected (one phone, one
    /// rule), their hull taken if jitter leaves none. A view whose first set landed shows only an upper bound, and
    /// the fit says so rather than guess.
    func viewReadyDelay(_ matched: SetFit) -> RuleEstimate {
        guard matched.delays.count == sets.count else {
            return .notObserved("volumeViewReadyDelay", "no set made through a volume view landed")
        }
        var bounds = [ClosedRange<Double>]()
        var upper: Double?
        for (view, installed) in installs.sorted(by: { $0.key < $1.key }) {
            let mine = sets.indices.filter { setViews[$0] == view && sets[$0].time >= installed }
            guard let landed = mine.first(where: { matched.delays[$0] != nil }) else { continue }
            let by = sets[landed].time - installed
            if let lost = mine.last(where: { $0 < landed && wouldMove(sets[$0]) }) {
                bounds.append((sets[lost].time - installed)...by)
            } else {
                upper = min(upper ?? by, by)
            }
        }
        guard !bounds.isEmpty else {
            let why =
                upper.map {
                    cFormat("every view's first set landed: ready within %.1f ms, with no sooner bound", $0 * 1000)
                } ?? "no set made through a volume view landed"
            return .notObserved("volumeViewReadyDelay", why)
        }
        let lower = bounds.map(\.lowerBound).max()!
        let upperBound = bounds.map(\.upperBound).min()!
        let range =
            lower <= upperBound
            ? lower...upperBound : bounds.map(\.lowerBound).min()!...bounds.map(\.upperBound).max()!
        return .bound(
            "volumeViewReadyDelay", range, samples: bounds.count,
            how: "after each view's last set that did not land, by its first set that did")
    }

    /// Whether `set` would have moved the volume: its value differs from the last the app saw before it, observed or
    /// read (right after a start, only read).
    private func wouldMove(_ set: Sample) -> Bool {
        let observed = stream.last { $0.time < set.time }
        let read = volumeReads.last { $0.time <= set.time }
        guard let known = [observed, read].compactMap({ $0 }).max(by: { $0.time < $1.time }) else { return false }
        return abs(known.value - set.value) > VolumeStepMachine.readTolerance
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
                    : "the short group of the probe's play-to-completion delays (max \(cFormat("%.1f", (skipped.max() ?? 0) * 1000)) ms)"
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
