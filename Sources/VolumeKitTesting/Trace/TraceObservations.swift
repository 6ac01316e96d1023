import Foundation
import VolumeKitCore

/// What a trace shows, reduced for the fitter: the volume stream (each KVO value once, whichever observers
/// received it; the private notification when no KVO was recorded), the sets, the app's listening and
/// active intervals, route changes, views, gestures and capture events.
struct TraceObservations {
    struct Sample: Hashable {
        let time: Double
        let value: Float
    }

    /// A change of the volume not explained by the app's sets: a button press or auto-repeat.
    struct Move {
        let time: Double
        let previous: Float
        let value: Float
        var delta: Double { Double(value) - Double(previous) }
        /// The press hit a rail, so the move is shorter than a step.
        var clamped: Bool { value == 0 || value == 1 }
    }

    private struct Snapshot {
        let time: Double
        let listening: Bool
        let active: Bool
        /// Counts the times listening started: two samples in the same epoch saw every change between them.
        let epoch: Int
    }

    private(set) var stream: [Sample] = []
    /// The index in the trace of each ``stream`` sample's record: at equal times, the record order says what
    /// came first.
    private var streamOrder: [Int] = []
    private(set) var sets: [Sample] = []
    private(set) var routes: [Double] = []
    /// The index in the trace of each route change's record.
    private var routeOrder: [Int] = []
    private var snapshots: [Snapshot] = []
    private var installs: [Int: Double] = [:]
    private var readies: [Int: Double] = [:]
    private var gestures: [(time: Double, gesture: TraceGesture?)] = []
    private var captures: [(time: Double, event: CaptureEvent)] = []
    private var playStarts: [Int: Double] = [:]
    private var playEnds: [Int: Double] = [:]

    init(_ trace: Trace) {
        let usesKVO = trace.records.contains { if case .outputVolume = $0.event { true } else { false } }
        let channel: TraceChannel = usesKVO ? .outputVolume : .systemNotifications
        var seen = Set<Sample>()
        var seenRoutes = Set<Double>()
        var seenCaptures = Set<String>()
        var subscribers = 0
        var sessionActive = true
        var state: AppState?
        var epoch = 0
        var wasListening = false
        func snapshot(_ time: Double) {
            let listening = subscribers > 0 && sessionActive && state != .background
            if listening, !wasListening { epoch += 1 }
            wasListening = listening
            snapshots.append(
                Snapshot(time: time, listening: listening, active: (state ?? .active) == .active, epoch: epoch))
        }
        for (order, record) in trace.records.enumerated() {
            let time = record.time
            switch record.event {
            case .outputVolume(let value, _):
                let sample = Sample(time: time, value: value)
                if seen.insert(sample).inserted {
                    stream.append(sample)
                    streamOrder.append(order)
                }
            case .systemNotification(let notification, _) where !usesKVO:
                guard let parsed = try? notification.parse(),
                    parsed.reason == .explicitVolumeChange || parsed.reason == .routeChange
                else { break }
                let sample = Sample(time: time, value: parsed.volume)
                if seen.insert(sample).inserted {
                    stream.append(sample)
                    streamOrder.append(order)
                }
            case .setVolume(let value, _):
                sets.append(Sample(time: time, value: value))
            case .subscribed(channel, _):
                subscribers += 1
                snapshot(time)
            case .unsubscribed(channel, _):
                subscribers -= 1
                snapshot(time)
            case .setActive(let active, _, nil):
                sessionActive = active
                snapshot(time)
            case .read(.appState(let appState)) where state == nil:
                state = appState
                snapshot(time)
            case .lifecycle(let event, _):
                switch event {
                case .willResignActive: state = .inactive
                case .didBecomeActive: state = .active
                case .didEnterBackground: state = .background; sessionActive = false
                case .willEnterForeground: state = .inactive
                case .interruptionBegan, .mediaServicesWereReset: sessionActive = false
                case .interruptionEnded: break
                case .routeChanged:
                    if seenRoutes.insert(time).inserted {
                        routes.append(time)
                        routeOrder.append(order)
                    }
                }
                snapshot(time)
            case .volumeViewInstalled(let view): installs[view] = time
            case .volumeViewReady(let view): readies[view] = readies[view] ?? time
            case .gesture(let gesture): gestures.append((time, gesture))
            case .mark, .app: gestures.append((time, nil))
            case .soundStarted(_, _, let play): playStarts[play] = time
            case .soundCompleted(let play): playEnds[play] = playEnds[play] ?? time
            case .captureEvent(let event, _):
                if seenCaptures.insert("\(time) \(event.source.rawValue) \(event.phase.rawValue)").inserted {
                    captures.append((time, event))
                }
            default: break
            }
        }
    }

    private func state(at time: Double) -> Snapshot? {
        var low = 0
        var high = snapshots.count
        while low < high {
            let middle = (low + high) / 2
            if snapshots[middle].time <= time { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : snapshots[low - 1]
    }

    /// The last stream value strictly before `time`.
    private func volume(before time: Double) -> Float? {
        var low = 0
        var high = stream.count
        while low < high {
            let middle = (low + high) / 2
            if stream[middle].time < time { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : stream[low - 1].value
    }

    // MARK: - Sets

    struct SetFit {
        var latency: RuleEstimate
        var dropped: RuleEstimate
        /// Stream indices explained by a set landing.
        var claimed: Set<Int>
    }

    /// Matches each set with the KVO of its value (within read rounding): the latency common to most sets is the mode of every
    /// candidate delay; a set with a candidate near it landed, one without (whose value differed from the
    /// volume then, while the app was listening) was dropped.
    func matchSets() -> SetFit {
        // A device may read `outputVolume` rounded (Apple forums 756484; envelope.md): then the KVO of a set of
        // 0.4998 says 0.5, and values match within the rounding. Otherwise exactly, so that VolumeKit's
        // sub-step nudges (0.49988 vs 0.5) stay apart.
        let rounding = readRounding
        let same: (Float, Float) -> Bool = { abs($0 - $1) <= rounding }
        var candidates: [[(index: Int, delay: Double)]] = []
        for set in sets {
            var list: [(Int, Double)] = []
            var index = firstStreamIndex(atOrAfter: set.time)
            while index < stream.count, stream[index].time <= set.time + 1.0 {
                if same(stream[index].value, set.value) { list.append((index, stream[index].time - set.time)) }
                index += 1
            }
            candidates.append(list)
        }
        guard let mode = TraceStatistics.mode(candidates.flatMap { $0.map(\.delay) }, width: 0.004) else {
            return SetFit(
                latency: .notObserved("setToKVOLatency", "no set was followed by the KVO of its value"),
                dropped: sets.isEmpty
                    ? .notObserved("droppedSets", "the app made no sets")
                    : .notObserved("droppedSets", "no set could be matched to a KVO"),
                claimed: []
            )
        }
        let window = (lower: mode * 0.5 - 0.005, upper: mode * 2 + 0.01)
        // Pairs closest to the common latency first, each set and each KVO at most once: when the app sets one
        // value over and over (an auto-repeat held at the anchor), a dropped set must not take the KVO of a
        // later set of the same value, which would then look dropped itself.
        var pairs: [(set: Int, index: Int, delay: Double)] = []
        for (set, list) in candidates.enumerated() {
            for candidate in list where candidate.delay >= window.lower && candidate.delay <= window.upper {
                pairs.append((set, candidate.index, candidate.delay))
            }
        }
        pairs.sort { (abs($0.delay - mode), $0.set) < (abs($1.delay - mode), $1.set) }
        var claimed = Set<Int>()
        var matched = [Double?](repeating: nil, count: sets.count)
        for pair in pairs where matched[pair.set] == nil && !claimed.contains(pair.index) {
            matched[pair.set] = pair.delay
            claimed.insert(pair.index)
        }
        let delays = matched.compactMap { $0 }
        let landed = delays.count
        var dropped = 0
        for (set, delay) in zip(sets, matched) where delay == nil {
            let landing = set.time + mode
            guard let snapshot = state(at: landing), snapshot.listening, state(at: landing + mode)?.listening == true,
                let before = volume(before: landing), !same(before, set.value)
            else { continue }
            dropped += 1
        }
        let latency = RuleEstimate.seconds(
            "setToKVOLatency", delays, how: "each set to the KVO of its value (the mode of the delays, then the median)"
        )
        let total = landed + dropped
        let droppedEstimate = RuleEstimate(
            rule: "droppedSets", value: .fraction(Double(dropped) / Double(max(total, 1))),
            tolerance: 0, samples: total,
            how:
                "\(dropped) of \(total) sets that should have moved the volume (app listening, value not already there) never reached KVO"
        )
        return SetFit(latency: latency, dropped: droppedEstimate, claimed: claimed)
    }

    /// Half the decimal step every stream value is a multiple of (2 to 4 decimals), when all of at least five
    /// are and some set is not: the reads are rounded. 1e-6 (float noise) otherwise.
    var readRounding: Float {
        guard stream.count >= 5 else { return 1e-6 }
        for decimals in 2...4 {
            let scale = pow(10, Double(decimals))
            func isMultiple(_ value: Float) -> Bool {
                let scaled = Double(value) * scale
                return abs(scaled - scaled.rounded()) <= 1e-3
            }
            if stream.allSatisfy({ isMultiple($0.value) }), sets.contains(where: { !isMultiple($0.value) }) {
                return Float(0.5 / scale)
            }
        }
        return 1e-6
    }

    /// A power of ten as people write it: `0.0001`.
    static func decimal(_ power: Double) -> String {
        let decimals = max(0, Int((-log10(power)).rounded()))
        return String(format: "%.\(decimals)f", power)
    }

    private func firstStreamIndex(atOrAfter time: Double) -> Int {
        var low = 0
        var high = stream.count
        while low < high {
            let middle = (low + high) / 2
            if stream[middle].time < time { low = middle + 1 } else { high = middle }
        }
        return low
    }

    // MARK: - Presses

    /// The volume changes that no set explains, seen while the app was active and listening without a gap,
    /// away from route changes: presses and auto-repeats.
    ///
    /// None when the buttons sent capture events: pressed then, they leave the volume alone (AVKit
    /// `AVCaptureEventInteraction`), so every volume change is something else — a route change whose
    /// notification never came, say.
    func buttonMoves(claimed: Set<Int>) -> [Move] {
        guard captures.isEmpty else { return [] }
        var moves: [Move] = []
        for index in stream.indices.dropFirst() where !claimed.contains(index) {
            let sample = stream[index]
            let previous = stream[index - 1]
            guard let now = state(at: sample.time), now.listening, now.active,
                let before = state(at: previous.time), before.epoch == now.epoch,
                !routes.contains(where: { abs($0 - sample.time) <= 0.1 }),
                sample.value != previous.value
            else { continue }
            moves.append(Move(time: sample.time, previous: previous.value, value: sample.value))
        }
        return moves
    }

    /// The step and the quantization variant the moves show. Variants are judged against the 1/16 grid of
    /// the envelope (`shared/facts/envelope.md`): from a value off the grid, a press moves exactly one step
    /// (`exact`), lands on the grid (`grid`), or lands near neither (`rounded`: reads rounded, or
    /// float noise). The step is the median size of the moves that started on the grid, or of all moves
    /// when none did and they do not snap.
    func step(_ moves: [Move]) -> [RuleEstimate] {
        let nominal = 1.0 / 16.0
        func onGrid(_ value: Float) -> Bool {
            let scaled = Double(value) * 16
            return abs(scaled - scaled.rounded()) <= 1e-4
        }
        let usable = moves.filter { !$0.clamped && abs($0.delta) >= 0.005 && abs($0.delta) <= 0.25 }
        guard !usable.isEmpty else {
            let why =
                captures.isEmpty
                ? "no press moved the volume while the app was listening"
                : "the buttons sent capture events, which leave the volume alone"
            return [
                .notObserved("step", why),
                .notObserved("stepQuantization", why),
            ]
        }
        let fromGrid = usable.filter { onGrid($0.previous) }.map { abs($0.delta) }
        let all = usable.map { abs($0.delta) }
        let provisional = TraceStatistics.median(fromGrid.isEmpty ? all : fromGrid)!
        // Exactness is judged against 1/16 unless presses from the grid show another step, so that neither a
        // rounded read nor a snapped press can pass as exact.
        let reference = fromGrid.isEmpty || abs(provisional - nominal) <= nominal * 0.1 ? nominal : provisional
        var fromValue = 0
        var grid = 0
        var rounded = 0
        var ambiguous = 0
        for move in usable {
            let error = abs(abs(move.delta) - reference)
            let exact = error <= 1e-5
            if onGrid(move.previous) {
                if exact { ambiguous += 1 } else if error <= 0.005 { rounded += 1 }
            } else if exact {
                fromValue += 1
            } else if onGrid(move.value) {
                grid += 1
            } else if error <= 0.005 {
                rounded += 1
            }
        }
        let counts = [("exact", fromValue), ("grid", grid), ("rounded", rounded)]
        let best = counts.max { $0.1 < $1.1 }!
        let presses =
            "presses from off-grid values: \(fromValue) moved exactly one step, \(grid) snapped to the grid, \(rounded) were off by rounding"
        // Reads rounded to a few decimals (Apple forums 756484) are the `rounded` variant whatever the presses
        // look like: rounding to 1e-4 keeps a whole step's size (1/16 = 0.0625), so only the reads tell.
        let readRounding = readRounding
        let quantization =
            readRounding > 1e-6
            ? RuleEstimate(
                rule: "stepQuantization", value: .variant("rounded"), samples: stream.count,
                how:
                    "every volume read is a multiple of \(Self.decimal(2 * Double(readRounding))) while some of the app's sets are not: the reads are rounded; "
                    + presses)
            : best.1 == 0
                ? RuleEstimate.notObserved(
                    "stepQuantization",
                    "every press (\(ambiguous)) started on the 1/16 grid, where stepping from the value and snapping to the grid look the same"
                )
                : RuleEstimate(
                    rule: "stepQuantization", value: .variant(best.0), samples: fromValue + grid + rounded, how: presses
                )
        let sizes = fromGrid.isEmpty ? all : fromGrid
        if fromGrid.isEmpty, best.0 == "grid", best.1 > 0 {
            return [
                .notObserved("step", "every press started off the grid and snapped to it, so none shows a whole step"),
                quantization,
            ]
        }
        let near = sizes.filter { abs($0 - provisional) <= provisional * 0.2 }
        let tolerance = max(1e-5, ((near.max() ?? provisional) - (near.min() ?? provisional)) / 2)
        let step = RuleEstimate(
            rule: "step", value: .number(provisional), tolerance: tolerance, samples: sizes.count,
            how: "the median size of the volume changes no set explains"
                + (fromGrid.isEmpty ? "" : ", from values on the grid"))
        return [step, quantization]
    }

    /// The auto-repeat rhythm: within each hold gesture (up to the next gesture or mark), the gaps between
    /// moves in the held direction. Without hold gestures, a run of same-direction moves whose later gaps
    /// agree and are shorter than the first is taken as a hold.
    func holdRhythm(_ moves: [Move]) -> [RuleEstimate] {
        var first: [Double] = []
        var later: [Double] = []
        let holds = gestures.enumerated().compactMap { offset, item -> (Double, VolumeButton, Double, Double)? in
            guard case .hold(let button, let seconds)? = item.gesture else { return nil }
            let next = gestures.dropFirst(offset + 1).first { $0.time > item.time }?.time ?? .infinity
            return (item.time, button, seconds, min(next, item.time + seconds + 1.0))
        }
        var how = "the gaps between moves within each hold gesture"
        if !holds.isEmpty {
            for (start, button, _, end) in holds {
                // From the gesture's instant: in a simulated trace the press is at that instant, and with no
                // KVO delay so is its KVO.
                let times = moves.filter { $0.time >= start && $0.time <= end && ($0.delta > 0) == (button == .up) }
                    .map(
                        \.time)
                add(times, &first, &later)
            }
        } else {
            how = "runs of same-direction moves whose later gaps agree (no hold gestures in the trace)"
            var run: [Move] = []
            for move in moves + [Move(time: .infinity, previous: 0, value: 0)] {
                if let last = run.last, move.time - last.time <= 1.0, (move.delta > 0) == (last.delta > 0) {
                    run.append(move)
                    continue
                }
                let gaps = zip(run.dropFirst(), run).map { $0.time - $1.time }
                if gaps.count >= 2, let interval = TraceStatistics.median(Array(gaps.dropFirst())),
                    gaps[0] > interval * 1.2,
                    gaps.dropFirst().allSatisfy({ abs($0 - interval) <= max(0.01, interval * 0.15) })
                {
                    add(run.map(\.time), &first, &later)
                }
                run = [move]
            }
        }
        return [
            RuleEstimate.seconds("firstRepeatDelay", first, how: how + ": the first gap"),
            RuleEstimate.seconds("repeatInterval", later, how: how + ": the later gaps"),
        ]
    }

    private func add(_ times: [Double], _ first: inout [Double], _ later: inout [Double]) {
        guard times.count >= 2 else { return }
        first.append(times[1] - times[0])
        later += zip(times.dropFirst(2), times.dropFirst()).map { $0 - $1 }
    }

    // MARK: - Routes, views, capture events

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
