#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a down press may still refuse, and the nudge below the anchor that it accepts.
///
/// The rule (seed 000): from iOS 11, while a volume-down press is held iOS refuses a set to a value at or above
/// the value before the press (other than 0). After a down step VolumeKit therefore sets just below the anchor —
/// one nudge lower for each down step since the anchor was last confirmed, so a press landing from one of its
/// values never equals another, and never on a point of the 1/16 grid, where presses land — and the exact anchor
/// only once the buttons are quiet; so too for a change of the user's among presses while a down press may still be
/// held. A set of ours landing at or above the value a down press started from shows that press was over.
///
/// In a burst of down presses faster than the phone's round trip near a rail, each of those resets would land under
/// a later press and be refused, the volume walking to the rail where KVO no longer reports presses: on a phone shown
/// to refuse them, once its round trip is measured, the reset is aimed below the start of the press foreseen held
/// when it lands (``aim(_:after:roundTrip:inFlight:)``).
///
/// A down press that began is over once another begins: one button cannot be pressed again while it is held. A down
/// step sooner after a step that began a press than a hold's first auto-repeat comes (``newPressWithin``) began a
/// press of its own, so the value before it alone bounds what a press still held refuses — not the value before the
/// steps of the taps released before it (held-out session outputVolume 92392: taps 0.24 s apart from 1.0 down to
/// 0.8125; the anchor 0.875's reset landing as an interruption began proved the last press over, and the restore of
/// the user's 1.0 after it landed — two presses in the interruption then went 1.0 → 0.875, not the anchor kept).
struct DownPressNudge: Sendable, Equatable {
    /// How soon after a down step that began a press another down step is a new press, not that hold's first
    /// auto-repeat: the first repeat comes 0.3 s after the press at the soonest (``CalibrationRule/firstRepeatDelay``,
    /// `shared/facts/envelope.md`), less the classifier's tolerance for the steps' observation times
    /// (``ButtonTiming/tolerance``; KVO latency is at most 0.03 s) — the bound ``PressClassifier`` reads a new press by.
    static let newPressWithin: TimeInterval =
        CalibrationRule.firstRepeatDelay.range.lowerBound - ButtonTiming.standard.tolerance

    /// Where the anchor stands after down steps' nudges below it.
    enum Anchor: Sendable, Equatable {
        /// No nudge below it since the anchor was chosen, or set again and seen.
        case held
        /// A down step's nudge below the anchor was set, and the anchor itself not since.
        case nudgedBelow
        /// The anchor was set again after a nudge below it, and not seen since.
        case setAfterNudge
    }

    /// Where the anchor stands.
    private(set) var anchor = Anchor.held
    /// Down steps since the exact anchor was last confirmed: each one's immediate set goes one nudge lower.
    private var nudges = 0
    /// The last step observed was a down step: its press may still be held.
    private var lastStepDown = false
    /// The highest value a down step started from since the last down press known to begin (the first down step
    /// since an up step or the start, or one ``newPressWithin`` of a press's): a bound on the value before the press
    /// that may still be held.
    private var pressFrom: Float = 0
    /// When the last down step was observed, if it began a press (the first down step since an up step or the start,
    /// or one ``newPressWithin`` of such a step) and its time is known: a down step that soon after it begins another.
    private var pressBeganAt: Instant?
    /// How far apart the last two down presses began, when both began one after the other with their times known (a
    /// burst of taps; a hold's repeats begin no press).
    private var pressGap: TimeInterval?
    /// The last reset aimed below the press foreseen held at its landing (``aim(_:after:roundTrip:inFlight:)``),
    /// while the burst lasts: the next is aimed a nudge below it.
    private var aimed: Float?
    /// The last reset set more than ``RecoveryRule/tolerance`` below the anchor since it was last confirmed or moved
    /// — aimed below a foreseen press, or a nudge below the value before a step from such a reset: where VolumeKit's
    /// sets leave the volume until the anchor is set again (the burst over or not).
    private(set) var farBelow: Float?

    /// A step of `button` from `value` was observed at `time` (`nil`: proven later, its time not known).
    mutating func step(_ button: VolumeButton, from value: Float, at time: Instant?) {
        if button == .down {
            let soonAfterPress = pressBeganAt.flatMap { began in time.map { $0 - began < Self.newPressWithin } }
            let newPress = !lastStepDown || soonAfterPress == true
            pressFrom = newPress ? value : max(pressFrom, value)
            if newPress, lastStepDown, let time, let began = pressBeganAt {
                pressGap = time - began
            } else {
                pressGap = nil
            }
            pressBeganAt = newPress ? time : nil
        } else {
            pressGap = nil
        }
        if pressGap == nil { aimed = nil }
        lastStepDown = button == .down
    }

    /// Whether a set of ours landing on `value` shows that no down press is held: the last step was up, or the
    /// value is not below where the down press started (a press held would have refused it).
    func isPressOver(landingOn value: Float) -> Bool {
        !lastStepDown || (value > 0 && value >= pressFrom - VolumeGrid.readTolerance)
    }

    /// The value to set right after a down step from `old` to `value`, holding `anchor`: a nudge below the anchor
    /// for each down step since it was confirmed — below `old` too when nothing is in flight (`old` is then
    /// known) — never below the press's value (nor 0), unless that would set a point of the 1/16 grid
    /// (``offGrid(_:)``); but just below the anchor when the press landed above it (it started above it, the
    /// anchor's set still in flight), rather than a whole step off it until the buttons are quiet (a crash then
    /// would lose the user's volume: RecoveryRule takes a step off for a press).
    mutating func target(after value: Float, from old: Float, holding anchor: Float, nothingInFlight: Bool) -> Float {
        var immediate = nextNudge(below: anchor)
        if nothingInFlight { immediate = min(immediate, old - VolumeGrid.nudge) }
        #if VOLUMEKIT_MUTANTS
        if Mutant.isOn(.resetStraightToAnchor) { return anchor }
        #endif
        let target = value > anchor + VolumeGrid.readTolerance ? max(0, immediate) : max(value, immediate)
        // Set only when it moves the volume or sets of ours are in flight (it must land last): the press's own
        // value with nothing in flight is no set, and the anchor is the value held.
        let isSet = !nothingInFlight || VolumeGrid.isApart(target, value)
        guard isSet, target > 0, VolumeGrid.isOnGrid(target), VolumeGrid.isApart(target, anchor) else { return target }
        return offGrid(immediate)
    }

    /// `target`, the reset after a down step to `value` — or, near a rail in a burst of down presses faster than the
    /// phone's round trip, a lower one: just below where the press held when it lands will have started (above 0).
    /// `roundTrip`: the slowest set → KVO round trip of a phone shown refusing sets during a down press
    /// (``HeadroomPolicy/aimRoundTrip(_:refusing:)``; `nil` while not measured or not shown: nothing is foreseen).
    /// `inFlight`: sets of ours are on their way.
    ///
    /// The rule (seed 000): a held down press refuses a set at or above the value it started from. The reset lands
    /// about `roundTrip` after the step is observed — after `roundTrip / gap` more presses of a burst `gap` apart
    /// began, each from the value the one before left (VolumeKit's set just below the anchor, counted from the
    /// anchor, is refused by every one of them). It is set just below the start of the last of them: the value this
    /// step left, less a step for each press between (the first aimed reset, at the burst's second press: the first
    /// press's reset, made before a burst showed, is refused); or the last aimed reset, less a nudge (each later one,
    /// while the burst outruns our sets: the aimed reset before it landed during the press before, which then began
    /// the next). Once the first aimed reset lands, each press is undone by one, and the burst uses no more
    /// headroom. Only where the volume would otherwise reach the rail before the reset lands; a slower burst has its
    /// reset land a few steps below the volume — VolumeKit's own set, above the rail, given back when the buttons
    /// are quiet. Not at a burst's first press: a hold near the rail begins alike, and its resets just below the
    /// anchor land (its press started from the anchor), where an aimed one would take its repeats to the rail.
    mutating func aim(_ target: Float, after value: Float, roundTrip: TimeInterval?, inFlight: Bool) -> Float {
        // A press after another of the burst, while sets of ours are on their way (the burst outruns them).
        guard let roundTrip, let gap = pressGap, gap > 0, inFlight else { return target }
        #if VOLUMEKIT_MUTANTS
        if Mutant.isOn(.noBurstAim) { return target }
        #endif
        // The presses the round trip spans (a configured round trip beyond any phone's, or not a number, aims nothing).
        let spanned = roundTrip / gap + 1e-9
        guard spanned.isFinite, spanned < Self.mostPressesSpanned else { return target }
        let between = Int(spanned.rounded(.down))
        guard between >= 1 else { return target }
        // Only where the burst would otherwise reach the rail before the reset lands (its presses unseen there from
        // on); elsewhere the presses are all seen, and the anchor set once the buttons are quiet brings the volume
        // back as before.
        guard aimed != nil || value - Float(between + 1) * VolumeGrid.step <= VolumeGrid.stepTolerance else {
            return target
        }
        let start = aimed ?? value - Float(between - 1) * VolumeGrid.step
        var below = start - VolumeGrid.nudge
        while below > 0, VolumeGrid.isOnGrid(below) { below -= VolumeGrid.nudge }
        guard below > 0, below < target else { return target }
        aimed = below
        return below
    }

    /// The most presses a round trip may span for a reset to be aimed — far more than any phone's (the envelope's
    /// slowest round trip spans four of the quickest burst's): a guard against a configured value no phone has.
    static let mostPressesSpanned: Double = 100

    /// The reset `target` after a down step is set, holding `anchor`: kept when it is far below the anchor.
    mutating func resetSet(_ target: Float, holding anchor: Float) {
        if anchor - target > RecoveryRule.tolerance { farBelow = target }
    }

    /// Whether a set of `value` made now, holding the anchor, may be refused by a down press still held: a nudge
    /// below the anchor was set since the anchor was last seen (its own set, if made, not seen to land — refused,
    /// perhaps), the last step was down, and `value` is at or above where that press started.
    func mayRefuse(_ value: Float) -> Bool {
        anchor != .held && lastStepDown && value > 0 && value >= pressFrom - VolumeGrid.readTolerance
    }

    /// The next nudge below `anchor`, set in its place while a down press may refuse it (``mayRefuse(_:)``).
    mutating func nudge(below anchor: Float) -> Float {
        offGrid(nextNudge(below: anchor))
    }

    /// One nudge lower than the last below `anchor` since it was confirmed (counted).
    private mutating func nextNudge(below anchor: Float) -> Float {
        nudges += 1
        return anchor - Float(nudges) * VolumeGrid.nudge
    }

    /// `immediate`, a nudge below the anchor, passed over any point of the 1/16 grid it falls on (within a read),
    /// one nudge further down each time (counted), and no lower than 0. The rule: a nudge VolumeKit sets is never a
    /// value a press lands on. Below an off-grid anchor a little above a point of the grid (Headphone Safety's
    /// 0.8134 over 0.8125) the nudges reach that point, where a press from any of them snaps: a nudge within a read
    /// of it took a held press's repeat for its own landing, and the next one, clamped up to the press's value
    /// (0.8125 itself) and set while others were in flight, was then read as an up press when it landed under the
    /// hold's next repeat (held-out session systemNotification 93821: a phantom up press and a hold split seven
    /// times). Passed over, the nudges stay apart from every press's landing, below the press's value if they have
    /// to be (VolumeKit's own value, within ``RecoveryRule/tolerance`` below the anchor and off the grid as that
    /// rule expects).
    private mutating func offGrid(_ immediate: Float) -> Float {
        var value = immediate
        while value > 0, VolumeGrid.isOnGrid(value) {
            nudges += 1
            value -= VolumeGrid.nudge
        }
        return max(0, value)
    }

    /// The anchor is confirmed where the machine believes the volume: the nudges count again from it.
    mutating func anchorConfirmed() {
        nudges = 0
        aimed = nil
        farBelow = nil
    }

    /// A nudge below the anchor was set.
    mutating func nudgedBelow() { anchor = .nudgedBelow }

    /// The anchor itself was set.
    mutating func anchorSet() {
        if anchor == .nudgedBelow { anchor = .setAfterNudge }
    }

    /// The anchor was seen (it landed, or a press ended there).
    mutating func anchorSeen() {
        if anchor == .setAfterNudge { anchor = .held }
    }

    /// The anchor moved to another value.
    mutating func anchorMoved() {
        anchor = .held
        aimed = nil
        farBelow = nil
    }
}
