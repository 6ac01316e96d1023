#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which set of ours an observation is the landing of, judged by the order sets land in.
///
/// The rule: one slider carries every set, so sets land in the order issued (`shared/facts/envelope.md`:
/// `sliderLatency`, `kvoLatency`). From it:
/// - a press landing exactly on the value of a set of ours still on its way cannot be told from that set's landing
///   (a slider may take 5 ms or 150 ms): an observation one step from what the machine believed keeps a *spare* of
///   the echo it took, for the set's own landing later (one press moves one step: a landing several steps away,
///   such as the first set through a volume view whose earlier resets were lost, is no press);
/// - a landing seen while a set issued before it has not been seen to land is a *suspect* press (taps faster than
///   the slider's round trip): the earlier set's landing, seen later, proves it a press — unless a set of the same
///   value issued after it explains the landing as well (the earlier set was refused, seed 000, or dropped,
///   decompiled iOS 18.2);
/// - a set issued before the one taken as landed when observations stopped
///   (``VolumeStepMachine/assumeSetsLanded(at:mayBeLost:)``) lands first, and the later one over it: that landing is
///   *superseded*, unless a down press still held would have refused the later set (seed 000).
struct LandingOrder: Sendable, Equatable {
    typealias Echo = EchoLedger.Entry

    /// An observation taken for the landing of a set of ours while a set issued before it had not yet been seen to
    /// land: a press landing on the later set's value, unless the earlier set was dropped.
    struct Suspect: Sendable, Equatable {
        /// The value observed.
        var value: Float
        /// The order of the later set whose echo the observation took.
        var order: Int
        /// The press it would be.
        var button: VolumeButton
        /// Its steps.
        var count: Int
        /// Until when an earlier set may still land (its echo's expiry).
        var expires: Instant
        /// The later set's echo as it was, to expect again once the press is proven.
        var echo: Echo
    }

    /// A landing matched to a set of ours.
    struct Match: Sendable, Equatable {
        /// The set that landed.
        var echo: Echo
        /// The order of the spare echo put back for it, when the spare stood for it.
        var spareOrder: Int?
    }

    /// An echo a press took, kept for its set's own landing: until that echo would have expired or a set issued
    /// after it lands; one at most.
    private var spare: Echo?
    /// The press a landing out of order may be.
    private var suspect: Suspect?
    /// The order of the set ``VolumeStepMachine/assumeSetsLanded(at:mayBeLost:)`` took as landed, until a read or its own
    /// echo: sets issued before it land before it.
    private var assumedOrder: Int?

    /// Everything forgotten: a fresh read, no set of ours in flight or taken as landed.
    mutating func reset() {
        spare = nil
        suspect = nil
        assumedOrder = nil
    }

    /// The route changed: no spare and no suspect (sets in flight land on either route); a set taken as landed stays.
    mutating func routeChanged() {
        spare = nil
        suspect = nil
    }

    /// The set of order `order` (if any) is taken as landed: observations stopped.
    mutating func assumeLanded(order: Int?) { assumedOrder = order }

    /// A live read: no set is taken as landed any more.
    mutating func forgetAssumedLanding() { assumedOrder = nil }

    /// The set of ours that `value`, observed at `time`, is the landing of: the oldest of its value on its way — the
    /// spare first when it is older (put back in `echoes`), or a set issued after a suspect's that explains the
    /// landing as well as the earlier one does (the sets before it are then dropped from `echoes`).
    /// `railPressesFrom`: the volume believed, where presses are reported at the rails (the system notification
    /// posts one for a press that changes nothing) — the same rail again, with a spare of a set of that value kept,
    /// is a press: of the two observations of that value, the set's landing and one other, exactly one is a press
    /// whichever came first (session systemNotification 73584 of the held-out range 70,000: an up press at 1 taken
    /// for the landing of the anchor's set that had already landed).
    @inline(__always) mutating func match(
        _ value: Float, at time: Instant, in echoes: inout EchoLedger, railPressesFrom believed: Float? = nil
    ) -> Match? {
        if let held = spare, held.expires <= time { spare = nil }
        if let held = spare, let believed, value <= 0 || value >= 1, VolumeGrid.isSame(value, believed),
            abs(held.value - value) < VolumeGrid.readTolerance
        {
            spare = nil
        }
        var spareOrder: Int?
        // A set's echo comes no sooner than the phone's round trip allows (``EchoLedger/Entry/earliest``).
        // A local function, not a closure value: a closure stored in a `let` escapes, and its context (`time`) was
        // allocated on every observation (the detection machine's budget is 0 allocations).
        func arrived(_ echo: Echo) -> Bool { echo.earliest <= time }
        if let held = spare, abs(held.value - value) < VolumeGrid.readTolerance, arrived(held) {
            // Before a set of the same value issued after it, whose echo stays for its own landing.
            if (echoes.oldest(value, within: VolumeGrid.readTolerance, where: arrived).map { held.order < $0.order })
                ?? true
            {
                echoes.insert(held)
                spareOrder = held.order
            }
            if spareOrder != nil { spare = nil }
        }
        guard var landing = echoes.oldest(value, within: VolumeGrid.readTolerance, where: arrived) else { return nil }
        if let held = suspect, held.expires > time, landing.order < held.order,
            let later = echoes.first(where: {
                abs($0.value - value) < VolumeGrid.readTolerance && $0.order > held.order && !$0.beforeRouteChange
                    && arrived($0)
            })
        {
            suspect = nil
            echoes.removeAll { abs($0.value - value) < VolumeGrid.readTolerance && $0.order < later.order }
            landing = later
        }
        return Match(echo: landing, spareOrder: spareOrder)
    }

    /// Judges the landing of `echo` on `value` at `time` by its order: the suspect press it proves (its set's echo
    /// expected again in `echoes`), if any; else, when `capturing` and a set issued before it (of a value other
    /// than `believed`, the volume believed) has not been seen to land, the landing becomes the suspect — if it is
    /// the only set of its value on its way (with more, an earlier one may be landing) and a press from `believed`
    /// (`atRails`: presses reported at the rails).
    mutating func judge(
        _ echo: Echo, value: Float, at time: Instant, in echoes: inout EchoLedger,
        capturing: Bool, believed: Float, atRails: Bool
    ) -> Suspect? {
        #if VOLUMEKIT_MUTANTS
        if Mutant.isOn(.noLandingOrderProof) { return nil }
        #endif
        if let held = suspect, held.expires <= time { suspect = nil }
        if let held = suspect, echo.order < held.order, !echo.beforeRouteChange {
            suspect = nil
            // The later set is still on its way (its spare may already stand for it).
            if spare?.order != held.order { echoes.insert(held.echo) }
            return held
        }
        // A set of the value the volume already has may have landed without a change for KVO to report (a press
        // ended on it first): it proves nothing.
        guard capturing, !echo.beforeRouteChange,
            echoes.count(of: value, within: VolumeGrid.readTolerance) == 1,
            let earlier = echoes.latestExpiry(where: {
                $0.order < echo.order && !$0.beforeRouteChange && $0.expires > time
                    && VolumeGrid.isApart($0.value, believed)
            }),
            let (button, count) = VolumeGrid.classify(from: believed, to: value, atRails: atRails),
            // One press lands only a step away, or onto the grid (held-out session systemNotification 83344: a
            // Bluetooth headset's sync from 0.125 to 0.1 on a set's value, a fifth of a step, proven a phantom down
            // press); several, whole steps away (``VolumeGrid/classify(from:to:atRails:)``).
            count > 1 || VolumeGrid.isPressLanding(from: believed, to: value)
        else { return nil }
        suspect = Suspect(value: value, order: echo.order, button: button, count: count, expires: earlier, echo: echo)
        return nil
    }

    /// The set of `match` landed on `value`, over `believed`: keeps a spare of its echo when the landing was one step
    /// from `believed` (a press may have taken it), says whether a set taken as landed, issued after it and
    /// still in `echoes`, lands over it (`pressOver`: no down press held could have refused that set), and takes its
    /// echo out of `echoes`. (Changed in place: passed as a value, the ledger of echoes would be copied whole.)
    mutating func landed(
        _ match: Match, on value: Float, over believed: Float, pressOver: Bool, in echoes: inout EchoLedger
    ) -> Bool {
        let landing = match.echo
        // A later set's landing says the spare's set has landed (or never will).
        if let held = spare, landing.order > held.order { spare = nil }
        let fromBelieved = value - believed
        let steps = VolumeGrid.steps(in: fromBelieved)
        if match.spareOrder == nil, abs(steps) == 1,
            abs(fromBelieved - steps * VolumeGrid.step) <= VolumeGrid.readTolerance,
            !landing.beforeRouteChange
        {
            spare = landing
        }
        let landedOrder = match.spareOrder ?? landing.order
        if landedOrder == assumedOrder { assumedOrder = nil }
        let superseded =
            pressOver
            && assumedOrder.map { later in landedOrder < later && echoes.contains { $0.order == later } } ?? false
        echoes.remove(landing)
        return superseded
    }
}
