import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The refusal rules a trace's dropped sets show: ``DeviceBehaviour/downPressRefusal`` and, under its
/// `cachedEqualSetDrop` variant, ``DeviceBehaviour/volumeCacheDelay``.
///
/// Each set that should have moved the volume and never did has a shape:
/// - the **down-press shape** (`seedShape`, seed 000): reaching the system within 0.75 s after a volume-down step
///   (or at 0, where a down press shows no step), to a value at or above the volume before that run of down
///   steps, not 0 (iOS 11 and later);
/// - the **cache shape** (`cachedEqualSetDrop`, decompiled iOS 18.2 `-setVolume:`): equal to the app's previous
///   set, or to the volume just before the latest change (the slider's cache, which follows a change late).
///
/// VolumeKit's reset after a down press has both shapes, one after an up press only the cache shape. A landed set
/// tells against a variant too: one of the down-press shape made while a held button was certainly down (a later
/// auto-repeat of the same run came after it landed) rules out `seedShape`; one repeating the app's previous set,
/// which landed, made sooner after a change than the cache can follow (the envelope's 5 ms, given the KVO delay's
/// bound), rules out `cachedEqualSetDrop`. Only what is left is claimed. VolumeKit nudges its sets 1/4096 apart and
/// below the value before a press, so it seldom gives a variant the occasion to show: the rule then stays
/// undetermined, and says which variants remain.
extension TraceFit {
    /// What one set shows about the refusal rules.
    struct SetShape {
        /// Made while a down press may have been held, to a value the down-press refusal refuses.
        var downPress: Bool
        /// Made while a down press was certainly held (a later step of the same run came after it landed).
        var heldForSure: Bool
        /// Equal to the app's previous set, or to the volume before the latest change.
        var cache: Bool
        /// Equal to the app's previous set, which landed: under `cachedEqualSetDrop` the slider's cache holds that
        /// value until a later change reaches it.
        var repeatsLandedSet: Bool
        /// The time from the KVO of the latest change to the set.
        var sinceChange: Double?
    }

    /// The down-press refusal variant and the cache's delay, from the sets `fit` matched; `kvo` bounds the KVO
    /// delay (`nil`: the envelope's 0–30 ms).
    static func refusal(
        _ observations: TraceObservations, _ fit: TraceObservations.SetFit, moves: [TraceObservations.Move],
        kvo: ClosedRange<Double>?
    ) -> [RuleEstimate] {
        if let why = fit.unjudged {
            return [.notObserved("downPressRefusal", why), .notObserved("volumeCacheDelay", why)]
        }
        let sets = observations.sets
        let shapes = sets.indices.map {
            shape(
                of: $0, observations, moves: moves, roundTrip: fit.latency,
                previousLanded: $0 > 0 && fit.delays[$0 - 1] != nil)
        }
        let kvoRange = kvo ?? seconds("kvoLatency")
        let cacheRange = seconds("volumeCacheDelay")
        let dropped = sets.indices.filter { fit.dropped[$0] }
        let landed = sets.indices.filter { fit.delays[$0] != nil }
        let seedPossible = observations.osVersion >= OSVersion(11)
        let cacheOnly = dropped.filter { shapes[$0].cache && !(seedPossible && shapes[$0].downPress) }
        let downOnly = dropped.filter { seedPossible && shapes[$0].downPress && !shapes[$0].cache }
        let both = dropped.filter { seedPossible && shapes[$0].downPress && shapes[$0].cache }
        let neither = dropped.count - cacheOnly.count - downOnly.count - both.count
        // Landed sets that a variant would have dropped.
        let notSeed = seedPossible ? landed.filter { shapes[$0].downPress && shapes[$0].heldForSure }.count : 0
        let quickest = landed.filter { shapes[$0].repeatsLandedSet }.compactMap { shapes[$0].sinceChange }.min()
        let notCache = quickest.map { $0 + kvoRange.upperBound < cacheRange.lowerBound } ?? false
        var candidates = ["seedShape", "cachedEqualSetDrop", "none"]
        if !seedPossible || notSeed > 0 || !cacheOnly.isEmpty { candidates.removeAll { $0 == "seedShape" } }
        if notCache || !downOnly.isEmpty { candidates.removeAll { $0 == "cachedEqualSetDrop" } }
        if !dropped.isEmpty, neither < dropped.count { candidates.removeAll { $0 == "none" } }
        let counts = fit.dropCount
        let how =
            "\(counts.dropped) of \(counts.of) sets that should have moved the volume never reached KVO: \(downOnly.count) of the down-press shape only, \(cacheOnly.count) of the cache shape only, \(both.count) of both, \(neither) of neither; \(notSeed) landed while a down press was held"
            + (quickest.map {
                cFormat(", the quickest repeat of a landed set landed %.1f ms after its change's KVO", $0 * 1000)
            } ?? "")
        let variant: RuleEstimate
        switch candidates.count {
        case 1:
            variant = RuleEstimate(
                rule: "downPressRefusal", value: .variant(candidates[0]), samples: max(counts.dropped, notSeed),
                how: how)
        case 0:
            variant = .notObserved("downPressRefusal", "no variant fits (drops of both shapes): " + how)
        default:
            variant = .notObserved(
                "downPressRefusal", "the trace cannot tell \(candidates.joined(separator: " from ")): " + how)
        }
        guard candidates == ["cachedEqualSetDrop"] else {
            return [variant, .notObserved("volumeCacheDelay", "shows only under cachedEqualSetDrop")]
        }
        return [variant, cacheDelay(dropped: cacheOnly + both, landed: landed, shapes: shapes, kvo: kvoRange)]
    }

    /// Under `cachedEqualSetDrop`: a set of the cache shape dropped came before the cache caught up (the cache's
    /// delay is longer than its time since the change), one that landed after (shorter or equal); the change
    /// itself came the KVO delay before its KVO.
    private static func cacheDelay(
        dropped: [Int], landed: [Int], shapes: [SetShape], kvo: ClosedRange<Double>
    ) -> RuleEstimate {
        let lower = dropped.compactMap { shapes[$0].sinceChange }.max().map { $0 + kvo.lowerBound }
        let upper = landed.filter { shapes[$0].cache }.compactMap { shapes[$0].sinceChange }.filter {
            $0 + kvo.lowerBound >= (lower ?? 0)
        }.min().map { $0 + kvo.upperBound }
        guard let lower, let upper, upper >= lower else {
            return .notObserved(
                "volumeCacheDelay",
                lower.map { cFormat("the drops show only that the cache lags more than %.1f ms", $0 * 1000) }
                    ?? "no set of the cache shape was dropped")
        }
        return .bound(
            "volumeCacheDelay", lower...upper, samples: dropped.count,
            how:
                "longer than the time from a change to each set of the cache shape dropped, no longer than to the quickest one that landed (each plus the KVO delay's bound)"
        )
    }

    /// The shape of set `index`.
    private static func shape(
        of index: Int, _ observations: TraceObservations, moves: [TraceObservations.Move], roundTrip: RuleEstimate,
        previousLanded: Bool
    ) -> SetShape {
        let set = observations.sets[index]
        let rounding = observations.readRounding
        let same: (Float, Float) -> Bool = { abs($0 - $1) <= rounding }
        // The latest change the app saw before it made the set, and the volume before it.
        let stream = observations.stream
        var change = observations.firstStreamIndex(atOrAfter: set.time)
        while change < stream.count, stream[change].time <= set.time { change += 1 }
        change -= 1
        while change > 0, stream[change - 1].value == stream[change].value { change -= 1 }
        let sinceChange = change >= 0 ? set.time - stream[change].time : nil
        let before = change > 0 ? stream[change - 1].value : nil
        let previousSet = index > 0 ? observations.sets[index - 1].value : nil
        let repeatsSet = previousSet.map { same($0, set.value) } == true
        let cache = repeatsSet || before.map { same($0, set.value) } == true
        // The run of down steps the set may have met: iOS judges a set as it reaches the system, the slider's
        // latency after it was made — up to the KVO of its value (the round trip), a down step's KVO seen by then.
        let run = 0.75
        let landing = set.time + (roundTrip.value?.number ?? 0)
        // At 0 a down press moves nothing, so no KVO shows it: one may be held (VolumeKit's headroom set, say).
        let atZero = observations.volume(before: landing) == 0
        let last = moves.lastIndex { $0.time <= landing }
        guard let last, moves[last].delta < 0, landing - moves[last].time <= run else {
            return SetShape(
                downPress: atZero && set.value != 0, heldForSure: false, cache: cache,
                repeatsLandedSet: repeatsSet && previousLanded,
                sinceChange: sinceChange)
        }
        var first = last
        while first > 0, moves[first - 1].delta < 0, moves[first].time - moves[first - 1].time <= run { first -= 1 }
        let refused = set.value != 0 && (atZero || set.value >= moves[first].previous - rounding)
        let held =
            moves.indices.contains(last + 1) && moves[last + 1].delta < 0 && moves[last + 1].time > landing
            && moves[last + 1].time - moves[last].time <= run
        return SetShape(
            downPress: refused, heldForSure: refused && held, cache: cache,
            repeatsLandedSet: repeatsSet && previousLanded,
            sinceChange: sinceChange)
    }
}
