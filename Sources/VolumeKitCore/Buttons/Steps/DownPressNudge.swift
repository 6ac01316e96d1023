import Foundation

/// What a down press may still refuse, and the nudge below the anchor that it accepts.
///
/// The rule (seed 000): from iOS 11, while a volume-down press is held iOS refuses a set to a value at or above
/// the value before the press (other than 0). After a down step VolumeKit therefore sets just below the anchor —
/// one nudge lower for each down step since the anchor was last confirmed, so a press landing from one of its
/// values never equals another — and the exact anchor only once the buttons are quiet. A set of ours landing at
/// or above the value a down press started from shows that press was over.
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

    /// A step of `button` from `value` was observed at `time` (`nil`: proven later, its time not known).
    mutating func step(_ button: VolumeButton, from value: Float, at time: Instant?) {
        if button == .down {
            let soonAfterPress = pressBeganAt.flatMap { began in time.map { $0 - began < Self.newPressWithin } }
            let newPress = !lastStepDown || soonAfterPress == true
            pressFrom = newPress ? value : max(pressFrom, value)
            pressBeganAt = newPress ? time : nil
        }
        lastStepDown = button == .down
    }

    /// Whether a set of ours landing on `value` shows that no down press is held: the last step was up, or the
    /// value is not below where the down press started (a press held would have refused it).
    func isPressOver(landingOn value: Float) -> Bool {
        !lastStepDown || (value > 0 && value >= pressFrom - VolumeGrid.readTolerance)
    }

    /// The value to set right after a down step from `old` to `value`, holding `anchor`: a nudge below the anchor
    /// for each down step since it was confirmed — below `old` too when nothing is in flight (`old` is then
    /// known) — never below the press's value (nor 0); but just below the anchor when the press landed above it
    /// (it started above it, the anchor's set still in flight), rather than a whole step off it until the buttons
    /// are quiet (a crash then would lose the user's volume: RecoveryRule takes a step off for a press).
    mutating func target(after value: Float, from old: Float, holding anchor: Float, nothingInFlight: Bool) -> Float {
        nudges += 1
        var immediate = anchor - Float(nudges) * VolumeGrid.nudge
        if nothingInFlight { immediate = min(immediate, old - VolumeGrid.nudge) }
        #if VOLUMEKIT_MUTANTS
        if Mutant.isOn(.resetStraightToAnchor) { return anchor }
        #endif
        return value > anchor + VolumeGrid.readTolerance ? max(0, immediate) : max(value, immediate)
    }

    /// The anchor is confirmed where the machine believes the volume: the nudges count again from it.
    mutating func anchorConfirmed() { nudges = 0 }

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
    mutating func anchorMoved() { anchor = .held }
}
