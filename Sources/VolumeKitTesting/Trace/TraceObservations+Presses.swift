import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The presses in a trace — the volume changes no set explains — and what they show: the step, its
/// quantization and the auto-repeat rhythm.
extension TraceObservations {
    /// The volume changes that no set explains, seen while the app was active and listening without a gap,
    /// away from route changes (notified, or seen only in the app's reads of the route): presses and
    /// auto-repeats.
    ///
    /// None when the buttons sent capture events: pressed then, they leave the volume alone (AVKit
    /// `AVCaptureEventInteraction`), so every volume change is something else — a route change whose
    /// notification never came, say.
    func buttonMoves(claimed: Set<Int>) -> [Move] {
        guard captures.isEmpty else { return [] }
        var moves: [Move] = []
        let changes = routes + unnotifiedRouteChanges
        for index in stream.indices.dropFirst() where !claimed.contains(index) {
            let sample = stream[index]
            let previous = stream[index - 1]
            guard let now = state(at: sample.time), now.listening, now.active,
                let before = state(at: previous.time), before.epoch == now.epoch,
                !changes.contains(where: { abs($0 - sample.time) <= 0.1 }),
                sample.value != previous.value
            else { continue }
            moves.append(Move(time: sample.time, previous: previous.value, value: sample.value))
        }
        return moves
    }

    /// The quantization variant the moves show (`stepQuantization`, as `volumekit profiles` names it).
    /// Variants are judged against the 1/16 grid of the envelope (`shared/facts/envelope.md`): from a value off
    /// the grid, a press moves exactly one step (`exact`), lands on the grid (`grid`), or lands near neither
    /// (`rounded`: reads rounded, or float noise). The step itself — the median size of the moves that started
    /// on the grid, or of all moves when none did and they do not snap — is told in the estimate's `how`; a
    /// step other than 1/16 (beyond 10 %) is no variant the envelope knows: the value then reads `step 0.0500`.
    func quantization(_ moves: [Move]) -> RuleEstimate {
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
            return .notObserved("stepQuantization", why)
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
        let sizes = fromGrid.isEmpty ? all : fromGrid
        let stepText: String
        if fromGrid.isEmpty, best.0 == "grid", best.1 > 0 {
            stepText = "every press started off the grid and snapped to it, so none shows a whole step"
        } else {
            let near = sizes.filter { abs($0 - provisional) <= provisional * 0.2 }
            let spread = max(1e-5, ((near.max() ?? provisional) - (near.min() ?? provisional)) / 2)
            stepText =
                "presses move "
                + cFormat("%.5f ± %.5f", provisional, spread)
                + " (the median of \(sizes.count) volume changes no set explains\(fromGrid.isEmpty ? "" : ", from values on the grid"))"
        }
        if !fromGrid.isEmpty, abs(provisional - nominal) > nominal * 0.1 {
            return RuleEstimate(
                rule: "stepQuantization", value: .variant(cFormat("step %.4f", provisional)),
                samples: fromGrid.count, how: stepText + ": not the envelope's 1/16")
        }
        let presses =
            "\(stepText); presses from off-grid values: \(fromValue) moved exactly one step, \(grid) snapped to the grid, \(rounded) were off by rounding"
        // Reads rounded to a few decimals (Apple forums 756484) are the `rounded` variant whatever the presses
        // look like: rounding to 1e-4 keeps a whole step's size (1/16 = 0.0625), so only the reads tell.
        let readRounding = readRounding
        if readRounding > 1e-6 {
            return RuleEstimate(
                rule: "stepQuantization", value: .variant("rounded"), samples: stream.count,
                how:
                    "every volume read is a multiple of \(Self.decimal(2 * Double(readRounding))) while some of the app's sets are not: the reads are rounded; "
                    + presses)
        }
        guard best.1 > 0 else {
            return .notObserved(
                "stepQuantization",
                "every press (\(ambiguous)) started on the 1/16 grid, where stepping from the value and snapping to the grid look the same; \(stepText)"
            )
        }
        return RuleEstimate(
            rule: "stepQuantization", value: .variant(best.0), samples: fromValue + grid + rounded, how: presses)
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
}
