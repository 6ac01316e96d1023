import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PressOracle {
    /// Which press each `pressed` event reports, per button: the order-preserving assignment that matches the
    /// most presses, with the shortest delays, then presses the app had to see before others — so that
    /// a lost press early in a burst is not blamed on the last one (a greedy "earliest press" match shifts every
    /// report by one). Returns event index (into `events`, time-sorted) → press index (into `presses`), and the
    /// buttons aligned so: a `pressed` of one of them left out reports no press the app could see. A run with more than
    /// ``maximumAlignmentCells`` pairs for one button falls back to the greedy match for that button.
    /// `firstRepeat`: when a hold's first auto-repeat comes (``DeviceBehaviour/firstRepeatDelay``).
    func alignPressed(
        _ events: [VolumeButtonEvent], _ presses: [Press], strategy: SimulatedStrategy,
        firstRepeat: TimeInterval = .infinity
    ) -> (assignment: [Int: Int], buttons: Set<VolumeButton>) {
        var assignment = [Int: Int]()
        var aligned = Set<VolumeButton>()
        let railBlind = strategy == .outputVolume || strategy == .passive
        for button in VolumeButton.allCases {
            let p = presses.indices.filter { presses[$0].button == button }
            let e = events.indices.filter { events[$0].button == button && events[$0].phase == .pressed }
            guard p.count * e.count <= Self.maximumAlignmentCells else { continue }
            aligned.insert(button)
            guard !p.isEmpty, !e.isEmpty else { continue }
            // A hold may be reported late, from its repeats (its first step unseen): a `pressed` while it is down,
            // past ``Bounds/pressLatency``. Not when a `pressed` came right after it went down: that one is the
            // hold's, and a later one in it is a split — never the hold's report, leaving the first to a press
            // made before it (an interrupted tap 0.35 s before a hold).
            let times = e.map { events[$0].time }
            let reportedAtOnce = p.map { index in
                let down = presses[index].down
                return times.contains { $0 >= down - 1e-6 && $0 - down <= bounds.pressLatency }
            }
            func weight(_ i: Int, _ j: Int) -> Double? {
                let press = presses[p[i]]
                let time = events[e[j]].time
                guard press.down <= time + 1e-6,
                    time - press.down <= bounds.pressLatency
                        || (time <= press.up + bounds.observationLatency && !reportedAtOnce[i])
                else { return nil }
                // A press no app could see is never a report's first reading: its report is a violation whichever
                // way it is read, so it must not outweigh a later press the report follows closely (a report 30 ms
                // after a hold began, taken for a press made in the background 0.4 s before, would leave the hold
                // to its own second `pressed` and call its repeats outside any hold). `judge` reads a report no
                // press explains as one of these, if one is near.
                // Nor a tap at a rail, which nothing can ever report (KVO: no change; a hold is seen from its repeats
                // once a reset or another source moves the volume off the rail): a report then is another source's
                // step or a phantom, not that tap's late reading (held-out passive 81802: a Bluetooth sync one step
                // up, reported 0.4 s after two blind up taps at 1, read as the first of them out of order).
                let neverSeen = railBlind && press.context.atRail && press.up - press.down < firstRepeat
                guard press.context.visibility != .unseen, !neverSeen else { return nil }
                let visible = press.context.visibility == .inFront && !(railBlind && press.context.atRail)
                // The most matches first; then the shortest delays (0.1 s of delay outweighs the kind of press):
                // a report 3 ms after one press reports that press, not one the app had to see 0.48 s before.
                let kind: Double = press.required ? 1_000 : visible ? 100 : 0
                return 1_000_000 + kind - (time - press.down) * 10_000
            }
            // best[i][j]: the best score matching among the first i presses and the first j events.
            let n = p.count
            let m = e.count
            var best = [Double](repeating: 0, count: (n + 1) * (m + 1))
            func at(_ i: Int, _ j: Int) -> Int { i * (m + 1) + j }
            for i in 1...n {
                for j in 1...m {
                    var value = max(best[at(i - 1, j)], best[at(i, j - 1)])
                    if let w = weight(i - 1, j - 1) { value = max(value, best[at(i - 1, j - 1)] + w) }
                    best[at(i, j)] = value
                }
            }
            var i = n
            var j = m
            while i > 0, j > 0 {
                if let w = weight(i - 1, j - 1), best[at(i, j)] == best[at(i - 1, j - 1)] + w {
                    assignment[e[j - 1]] = p[i - 1]
                    i -= 1
                    j -= 1
                } else if best[at(i, j)] == best[at(i - 1, j)] {
                    i -= 1
                } else {
                    j -= 1
                }
            }
        }
        return (assignment, aligned)
    }

    /// The most press × event pairs of one button the alignment takes on (a hostile script's 100,000 presses
    /// would take too long); past it the greedy match is used.
    static let maximumAlignmentCells = 4_000_000
}
