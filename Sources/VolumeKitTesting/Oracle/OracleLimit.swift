import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An envelope limit as a proof: a failure is excused only when a narrow predicate over the ground truth at the
/// failing event holds — which press, which route change, which strategy, which kind of failure — and VolumeKit
/// raised the limit's diagnostic within the stated window of that event. A limit VolumeKit cannot observe at
/// all has no diagnostic and is counted apart.
public struct OracleLimit: Sendable {
    /// What the predicate sees of a failure.
    public struct Evidence: Sendable {
        /// The failure.
        public var violation: PressOracle.Violation
        /// The press concerned, if any: its button, when it went down and its context.
        public var press: (button: VolumeButton, down: Instant, context: PressContext)?
        /// Whether the app had to see the press (in front, capture settled or claimed): see ``PressOracle``.
        public var pressRequired: Bool
        /// Whether the press was reported as a `repeated` of the one before (its start read as a first repeat).
        public var pressReadAsRepeat: Bool
        /// Seconds since the previous step of the same button — the previous press going down, or, when that
        /// press was held, its last auto-repeat before this one (the device's own rhythm) — if there was one.
        public var gapFromPreviousPress: TimeInterval?
        /// Seconds since the user's last route change, if there was one.
        public var sinceRouteChange: TimeInterval?
        /// Seconds from the user's last route change before the press concerned went down to its going down, if
        /// there was one.
        public var pressSinceRouteChange: TimeInterval?
        /// The route the press concerned was made on (the user's last route change before it, else the speaker).
        public var pressRoute: AudioRoute?
        /// Seconds since another source last moved the volume where a press could have
        /// (``PressOracle/Run/otherSourceSteps``), at the failure, if one did.
        public var sinceOtherSourceStep: TimeInterval?
        /// For a tap reported as a repeat: seconds from another source's last such change to the `pressed` its
        /// chain began with, if one came before it.
        public var chainSinceOtherSourceStep: TimeInterval?
        /// Whether the press concerned, held, stepped at a rail it had reached before the failure: its
        /// auto-repeats there left the volume as it was, and nothing reported them.
        public var pressRepeatedAtRail: Bool = false
        /// Whether another source's last change a press's step away (before the failure) left exactly the value of
        /// a set of VolumeKit's on its way, which reached the system after it: that change took the set's echo, and
        /// the set's own landing, later, reads as a change of its own.
        public var otherSourceOnSetInFlight: Bool = false
        /// Whether a set of the app's landed on exactly the value the press's step left, less than the slider's
        /// latency after it (issued before the press, in flight when it came): the set's landing then changes
        /// nothing KVO reports, and the press's change reads as that set's landing.
        public var pressLandedOnSetInFlight: Bool
        /// The strategy.
        public var strategy: SimulatedStrategy
        /// The device's behaviour.
        public var behaviour: DeviceBehaviour
    }

    /// The limit's name, as README lists it.
    public var name: String
    /// The diagnostic that must have fired (``/VolumeKitCore/VolumeButtonsDiagnostic`` case name), or `nil` for a
    /// limit no app can observe.
    public var diagnostic: String?
    /// The diagnostic must lie within this window around the failing event (seconds before, seconds after).
    public var window: (before: TimeInterval, after: TimeInterval)
    /// The diagnostic names the route change the press was made after: it may lie anywhere from that change
    /// (less ``window``'s `before`) to ``window``'s `after` past the failure.
    public var sinceRouteChange: Bool
    /// Counted apart from the other excused failures (an ambiguous step, until calibration can tell).
    public var countedApart: Bool
    /// The predicate over the ground truth at the failing event.
    public var explains: @Sendable (Evidence) -> Bool

    /// Creates a limit.
    public init(
        name: String, diagnostic: String?, window: (before: TimeInterval, after: TimeInterval) = (2, 1),
        sinceRouteChange: Bool = false, countedApart: Bool = false, explains: @escaping @Sendable (Evidence) -> Bool
    ) {
        self.name = name
        self.diagnostic = diagnostic
        self.window = window
        self.sinceRouteChange = sinceRouteChange
        self.countedApart = countedApart
        self.explains = explains
    }

    /// The KVO strategies: they see presses only as volume changes.
    static let kvoStrategies: Set<SimulatedStrategy> = [.outputVolume, .passive, .systemNotification]

    /// Every limit the oracle knows, in the order they are tried: a failure that several explain is counted
    /// under the first (the route limit, which also explains some split holds, after the holds' own).
    public static let all: [OracleLimit] = [
        headroomExhausted, ambiguousStep, holdBeforeCapture, holdAfterAmbiguousStart, warningTookRepeat,
        pressOnSetInFlight, routeChangeNotNotified, noVolumeControl, otherSourceStep, passiveHoldAtRail,
    ]

    /// Passive mode lets the volume move, so a hold that reaches 0 or 1 goes on auto-repeating there with nothing
    /// for KVO or the notification to report (seed 000; README: "passive mode cannot see presses at the rails"):
    /// its release is inferred when the steps stop, and when something moves the volume off the rail during the
    /// hold (a Bluetooth headset's sync), its next repeats come faster than taps can be told from and read as
    /// presses. No app can see the repeats at the rail: no diagnostic, counted apart. Only a split hold, in passive
    /// mode, that auto-repeated at a rail before the split.
    public static let passiveHoldAtRail = OracleLimit(
        name: "hold's repeats unseen at a rail (passive)", diagnostic: nil, countedApart: true
    ) { evidence in
        evidence.strategy == .passive && evidence.violation.kind == .holdSplit && evidence.pressRepeatedAtRail
    }

    /// `headphoneLimit=euWarning` (SO 29193657: the first click above the EU headphone limit shows a warning and
    /// moves nothing, `shared/facts/envelope.md`): when that click is an auto-repeat of a hold, the hold's steps
    /// show a gap of two — up to a first repeat (0.7 s) and an interval (0.2 s), longer than a first repeat may
    /// come — so VolumeKit infers the release, and the repeats after it come faster than taps can be told from and
    /// read as presses. No API tells an app the warning showed: no diagnostic, counted apart. Only a split hold
    /// whose repeat the warning took before the split (``PressContext/warnedRepeat``).
    public static let warningTookRepeat = OracleLimit(
        name: "high-volume warning took a hold's repeat", diagnostic: nil, countedApart: true
    ) { evidence in
        guard evidence.violation.kind == .holdSplit, let warned = evidence.press?.context.warnedRepeat else {
            return false
        }
        return warned <= evidence.violation.time + 1e-6
    }

    /// Another source moving the volume while the app is active — a Bluetooth headset's stored volume synchronised
    /// after it connects, Headphone Safety turning it down (`shared/facts/envelope.md`, "Added for the
    /// honest-oracle round") — to where a press of the phone's buttons could have moved it: one step, or onto
    /// the grid. KVO and the private notification report the change as they report a press's, so nothing tells
    /// them apart. No app can observe it: no diagnostic, counted apart. Only a phantom press (or a `repeated`
    /// of taps just before, at their pace), a press of the other button, a second `pressed` during a hold, or a
    /// report read as a press made just before in the background (no app could see that one), or read out of order
    /// as an earlier press the app did not have to see, reported within
    /// KVO's latency (0.03 s, with room: 0.1 s) of such a change; a tap reported as a repeat of a `pressed` so
    /// reported (the change began its chain); a phantom or the other button reported when a set of VolumeKit's
    /// that the change landed on (taking its echo) reaches the system, up to a slider's and a KVO's latency
    /// later; and a hold split after such a change made during that hold (the
    /// change, read as a step of its own, ends the hold's chain of steps, and its later repeats read as presses).
    public static let otherSourceStep = OracleLimit(
        name: "another source moved the volume a press's step", diagnostic: nil, countedApart: true
    ) { evidence in
        // A tap read as a repeat of a `pressed` that was such a change: the change began the chain.
        if evidence.violation.kind == .tapReadAsRepeat, let since = evidence.chainSinceOtherSourceStep {
            return since >= -1e-6 && since <= 0.1
        }
        guard let since = evidence.sinceOtherSourceStep, since >= -1e-6 else { return false }
        // The change took the echo of a set of ours landing on its value: that set's landing, up to a slider's and
        // a KVO's latency later, is read as a step.
        if evidence.otherSourceOnSetInFlight, [.phantomPress, .wrongButton].contains(evidence.violation.kind) {
            return since <= evidence.behaviour.sliderLatency + evidence.behaviour.kvoLatency + 0.1
        }
        if since <= 0.1 {
            // A report taken for an earlier press the app did not have to see, out of order: that step's, as a
            // phantom would be (held-out session outputVolume 80408: a Bluetooth sync onto the grid 0.45 s after a
            // press that landed on a set's value before capture was claimed).
            if evidence.violation.kind == .outOfOrder { return !evidence.pressRequired }
            return [.phantomPress, .wrongButton, .holdSplit, .unseenPressReported, .repeatOutsideHold].contains(
                evidence.violation.kind)
        }
        guard evidence.violation.kind == .holdSplit, let hold = evidence.press else { return false }
        return since <= evidence.violation.time - hold.down + 1e-6
    }

    /// `externalVolume=noSlider` (openradar 42881405): an AirPlay or HDMI route without volume control, where the
    /// volume view has no slider — VolumeKit cannot hold the volume, and the view hides the system HUD only with
    /// its slider (decompiled `MPVolumeView` `layoutSubviews`, `shared/facts/volume-hud.md`). Presses there are
    /// reported as they change the volume, as in passive mode. Only the system HUD over a press made on such a
    /// route, or a press there toward the rail the volume sat at (no KVO), with `volumeControlUnavailable`
    /// raised since the route change the press followed.
    public static let noVolumeControl = OracleLimit(
        name: "route without volume control", diagnostic: "volumeControlUnavailable", sinceRouteChange: true
    ) { evidence in
        guard evidence.behaviour.externalVolume == .noSlider, evidence.pressRoute == .external else { return false }
        switch evidence.violation.kind {
        case .systemHUD: return true
        case .missedPress: return evidence.press?.context.atRail == true && kvoStrategies.contains(evidence.strategy)
        default: return false
        }
    }

    /// A press whose step left exactly the value of a set of VolumeKit's issued before the step's KVO reached the
    /// app and reaching the system just after the step (`sliderLatency` and `kvoLatency`,
    /// `shared/facts/envelope.md`) — landing, or dropped there as
    /// equal to the slider's cache (decompiled iOS 18.2) or refused during a down press (seed 000): KVO reports
    /// one change of that value, which is the press's or the set's, and with no earlier set of VolumeKit's still
    /// to land nothing tells them apart (with one, the order of landings proves the press: see
    /// `VolumeStepMachine`). No app can observe it: no diagnostic, counted apart. Only a missed press, or a split
    /// hold whose own first step, or one of its last two steps before the split (the repeat so swallowed leaves a
    /// gap no repeat rhythm has), was so swallowed.
    public static let pressOnSetInFlight = OracleLimit(
        name: "press landing on a set in flight", diagnostic: nil, countedApart: true
    ) { evidence in
        kvoStrategies.contains(evidence.strategy) && evidence.pressLandedOnSetInFlight
            && [.missedPress, .holdSplit].contains(evidence.violation.kind)
    }

    /// The same cause as ``ambiguousStep``, later in the same hold: a hold whose first step came at a tap's pace
    /// after the press before was read as that press's first repeat, its release inferred when its own first
    /// repeat was late; its own repeats then come faster than taps can be told from (0.06–0.2 s) and read as
    /// presses. Only a split hold whose own start was reported as a repeat, with `ambiguousStep` raised at that
    /// start (from 0.1 s before it to 0.6 s after the split). Counted apart.
    public static let holdAfterAmbiguousStart = OracleLimit(
        name: "hold begun at a tap's pace (ambiguous step)", diagnostic: "ambiguousStep", window: (0.1, 0.6),
        countedApart: true
    ) { evidence in
        kvoStrategies.contains(evidence.strategy) && evidence.violation.kind == .holdSplit
            && evidence.pressReadAsRepeat
    }

    /// A hold whose button went down before capture had settled (no claim of capturing then): its auto-repeats,
    /// seen from the middle, come faster than taps can be told from (0.06–0.2 s, `repeatInterval`), with no
    /// step before them that VolumeKit saw; they read as separate presses. No app can see a press made before it
    /// captured, so the limit has no diagnostic and is counted apart. Only a split hold whose press the app did
    /// not have to see.
    public static let holdBeforeCapture = OracleLimit(
        name: "hold begun before capture", diagnostic: nil, countedApart: true
    ) { evidence in
        evidence.violation.kind == .holdSplit && !evidence.pressRequired
    }

    /// `sliderLatency` + `kvoLatency` against the presses' rhythm (`shared/facts/envelope.md`): with
    /// `outputVolume` capturing, presses faster than the slider's round trip use the headroom up, and a press
    /// made while the volume sits at 0 or 1 changes nothing KVO reports. Only a press made at the rail, missed —
    /// or, when held, seen from its first repeat on, which come faster than taps can be told from and read as
    /// presses (a split hold) — with `headroomExhausted` raised from 2 s before it to 1 s after.
    public static let headroomExhausted = OracleLimit(name: "headroom used up", diagnostic: "headroomExhausted") {
        evidence in
        evidence.strategy == .outputVolume && [.missedPress, .holdSplit].contains(evidence.violation.kind)
            && evidence.press?.context.atRail == true
    }

    /// `routeNotification=missing` (RBVolumeButtons #18, openradar 35432156): a route change may show no
    /// notification and, between routes at one volume, no KVO; VolumeKit reads the route every 50 ms, so a press
    /// made just after the change may be taken for the new route's own volume. Only a missed or misread press made
    /// within ``FinalVolumeLimit/pressesAfterRouteChange`` (0.15 s) after a route change the user made — or a hold
    /// split whose button went down within it (its first step taken for the route's volume, it is seen from its
    /// repeats, which come faster than taps can be told from) — with `routeChangeNotNotified` raised from 2 s before
    /// the press to 1 s after the failure. (A press long after a change that made the first change since was
    /// excused too while the route was read only with inputs; the poll reads it within 50 ms.)
    public static let routeChangeNotNotified = OracleLimit(
        name: "route change without a notification", diagnostic: "routeChangeNotNotified"
    ) { evidence in
        guard evidence.behaviour.routeNotification == .missing else { return false }
        if evidence.violation.kind == .holdSplit {
            return evidence.pressSinceRouteChange.map { $0 <= FinalVolumeLimit.pressesAfterRouteChange } ?? false
        }
        guard let since = evidence.sinceRouteChange else { return false }
        let kinds: Set<PressOracle.Violation.Kind> = [.missedPress, .phantomPress, .wrongButton]
        return kinds.contains(evidence.violation.kind) && since <= FinalVolumeLimit.pressesAfterRouteChange
    }

    /// The first auto-repeat may come anywhere in 0.3–0.7 s (`shared/facts/envelope.md`: `firstRepeatDelay`):
    /// with the KVO strategies a second tap of the same button inside that range reads as a repeat, and taps
    /// after it at a repeat's pace (0.06–0.2 s, `repeatInterval`) as its further repeats. Only a tap reported as
    /// a repeat, no later after the previous step of its button than the latest first repeat, with
    /// `ambiguousStep` raised from 0.1 s before the `pressed` its chain began with to 0.6 s after the tap.
    /// Counted apart until calibration learns the phone's rhythm.
    public static let ambiguousStep = OracleLimit(
        name: "ambiguous step (tap or first repeat)", diagnostic: "ambiguousStep", window: (0.1, 0.6),
        countedApart: true
    ) { evidence in
        guard kvoStrategies.contains(evidence.strategy), evidence.violation.kind == .tapReadAsRepeat,
            let gap = evidence.gapFromPreviousPress
        else { return false }
        guard case .seconds(let range) = DeviceBehaviour.rule(named: "firstRepeatDelay")?.values else { return false }
        return gap <= range.upperBound + 0.1
    }
}
