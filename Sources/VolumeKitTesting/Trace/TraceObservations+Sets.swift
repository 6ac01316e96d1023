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

/// The app's sets in a trace: each matched with the KVO of its value, for the latency of a set and the sets
/// that never landed, and the rounding of the device's reads.
extension TraceObservations {
    struct SetFit {
        var latency: RuleEstimate
        /// Stream indices explained by a set landing.
        var claimed: Set<Int>
        /// Per set: its delay to the KVO of its value, when it landed.
        var delays: [Double?] = []
        /// Per set that did not land: whether it should have moved the volume (the app listening, the volume
        /// not already at its value) — a dropped set.
        var dropped: [Bool] = []
        /// Why no set could be judged, when none could.
        var unjudged: String?

        /// How many sets were dropped, of how many that should have moved the volume.
        var dropCount: (dropped: Int, of: Int) {
            let dropped = dropped.filter { $0 }.count
            return (dropped, dropped + delays.compactMap { $0 }.count)
        }
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
                // A KVO at the set's own instant is no landing of it (a set takes at least the slider's hop): with a
                // slow slider it is the landing of an earlier set of the same value.
                if same(stream[index].value, set.value), stream[index].time > set.time {
                    list.append((index, stream[index].time - set.time))
                }
                index += 1
            }
            candidates.append(list)
        }
        guard let mode = TraceStatistics.mode(candidates.flatMap { $0.map(\.delay) }, width: 0.004) else {
            return SetFit(
                latency: .notObserved("roundTrip", "no set was followed by the KVO of its value"), claimed: [],
                unjudged: sets.isEmpty ? "the app made no sets" : "no set could be matched to a KVO")
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
        var dropped = [Bool](repeating: false, count: sets.count)
        for (index, (set, delay)) in zip(sets, matched).enumerated() where delay == nil {
            let landing = set.time + mode
            guard let snapshot = state(at: landing), snapshot.listening, state(at: landing + mode)?.listening == true,
                let before = volume(before: landing), !same(before, set.value)
            else { continue }
            dropped[index] = true
        }
        let latency = RuleEstimate.seconds(
            "roundTrip", delays, how: "each set to the KVO of its value (the mode of the delays, then the median)"
        )
        return SetFit(latency: latency, claimed: claimed, delays: matched, dropped: dropped)
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
        return cFormat("%.\(decimals)f", power)
    }
}
