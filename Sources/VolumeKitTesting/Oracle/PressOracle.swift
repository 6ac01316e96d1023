import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Judges every button event an app received against what the user physically did (``TruthRecord``): the
/// presses reported against the presses made, per button; phantom events; their order; the delay from a press
/// to its event; `pressed`/`repeated`/`released` consistency; the system HUD over a press the app captured.
/// A failure that an envelope limit explains is excused only by that limit's proof (``OracleLimit``).
///
/// Which presses must be reported: those made while the app was in front (``PressContext/Visibility/inFront``)
/// and capturing was started, once capture has settled — ``Bounds/settle`` after the last disturbance, or at
/// once when the app's capture claimed to be capturing — and not toward a rail where the strategy cannot see
/// them (passive `outputVolume`: KVO is silent at 0 and 1, seed 000). Presses the app could not see
/// (background, a call, not running) must not be reported. The rest may go either way.
public struct PressOracle: Sendable {
    /// The bounds the judgment uses, in seconds.
    public struct Bounds: Sendable, Equatable {
        /// The longest delay from a button going down to its `pressed` event: KVO (≤ 0.03 s) after a set of
        /// ours still in flight (slider ≤ 0.15 s) that an ambiguous press must wait out (`shared/facts/envelope.md`),
        /// with room for a deferred judgment.
        public var pressLatency: TimeInterval = 0.5
        /// The longest delay from a button coming up to its `released` event: inferred releases wait for a first
        /// auto-repeat that may come as late as 0.7 s (`shared/facts/envelope.md`), plus a tolerance.
        public var releaseLatency: TimeInterval = 1.5
        /// How long after a button came up a `repeated` of its hold may still arrive (observation latency).
        public var repeatLatency: TimeInterval = 0.5
        /// How long after a button came up an event may still be an observation of it while held (KVO ≤ 0.03 s,
        /// `shared/facts/envelope.md`, with room): a hold first seen from its repeats.
        public var observationLatency: TimeInterval = 0.1
        /// How long after a disturbance (launch, start, becoming active, an interruption, a call, a route
        /// change…) capture is expected to be back: the volume view may take up to 1 s to be ready
        /// (``DeviceBehaviour/volumeViewReadyDelay``), then the session is activated and the anchor set.
        public var settle: TimeInterval = 1.5

        /// The bounds above.
        public init() {}
    }

    /// One event that is wrong against the ground truth.
    public struct Violation: Sendable, Equatable {
        /// What kind of wrong.
        public enum Kind: String, Sendable, Equatable, CaseIterable {
            /// A press the app had to see was not reported.
            case missedPress
            /// A press the app had to see was reported as a `repeated` of the press before it (a tap read as an
            /// auto-repeat: its gap lies where a first repeat may come).
            case tapReadAsRepeat
            /// A `pressed` with no physical press of any button near it.
            case phantomPress
            /// A `pressed` of the other button than the one pressed then.
            case wrongButton
            /// A second `pressed` during one hold that was already reported (a hold must give one `pressed`).
            case holdSplit
            /// A press reported although no app could see it (background, a call, not running).
            case unseenPressReported
            /// Presses reported in another order than they were made.
            case outOfOrder
            /// A `repeated` outside any hold of that button.
            case repeatOutsideHold
            /// A `released` with no `pressed` of that button before it, or a `pressed` before the last one's
            /// `released`.
            case unpaired
            /// A `pressed` never released, or released long after the button came up.
            case lateRelease
            /// The system volume HUD showed for a press the app had to capture.
            case systemHUD
            /// A route's volume at the end is not the user's.
            case finalVolume
        }

        /// What kind of wrong.
        public var kind: Kind
        /// When (the event's time, or the press's when no event came).
        public var time: Instant
        /// A sentence saying what happened.
        public var detail: String
        /// The press concerned, as an index into the truth records, if any.
        public var press: Int?

        /// "missedPress at 1.1: the down press made at 1.1 was not reported".
        public var summary: String {
            "\(kind.rawValue) at \(time.isFinite ? ScenarioRecord.format(time) : "the end"): \(detail)"
        }

        /// Creates a violation.
        public init(kind: Kind, time: Instant, detail: String, press: Int? = nil) {
            self.kind = kind
            self.time = time
            self.detail = detail
            self.press = press
        }
    }

    /// A diagnostic VolumeKit raised, with when it reached the app.
    public struct Diagnostic: Sendable, Equatable {
        /// When it was delivered.
        public var time: Instant
        /// Its name (``/VolumeKitCore/VolumeButtonsDiagnostic`` case name, e.g. `headroomExhausted`).
        public var name: String
        /// Its sentence.
        public var sentence: String

        /// Creates a diagnostic record.
        public init(time: Instant, name: String, sentence: String) {
            self.time = time
            self.name = name
            self.sentence = sentence
        }

        /// Records `diagnostic` delivered at `time`.
        public init(_ diagnostic: VolumeButtonsDiagnostic, at time: Instant) {
            self.init(time: time, name: diagnostic.name, sentence: diagnostic.description)
        }
    }

    /// What the harness knew about the run besides the truth and the events.
    public struct Run: Sendable {
        /// The strategy the app used.
        public var strategy: SimulatedStrategy
        /// The device's behaviour.
        public var behaviour: DeviceBehaviour
        /// When the app's capture was started and until when (a stop, a crash or the end): presses outside
        /// these windows are not required.
        public var captureWindows: [Range<Instant>]
        /// When the system volume HUD showed for a press.
        public var systemHUDs: [Instant]
        /// When the app crashed: a press open then is never released (the app is gone), which is no fault.
        public var crashes: [Instant]
        /// When each of the app's sets landed, and its value (the device's `programmaticSet` log).
        public var landedSets: [(time: Instant, value: Float)]
        /// When another source (a Bluetooth headset's volume synchronised, Headphone Safety) moved the volume
        /// where a press of the phone's buttons could have (``PressOracle/pressCouldLand(from:to:)``).
        public var otherSourceSteps: [Instant]
        /// Each route's volume as the device started, and every change of a route's volume since, in order (the
        /// device's `volume` log, whatever moved it): what KVO could have reported, route by route.
        public var volumes: (starting: [AudioRoute: Float], changes: [(time: Instant, route: AudioRoute, value: Float)])
        /// Each set of the app's that reached the system and was dropped there — refused during a down press, or
        /// equal to the slider's cached value — with when and its value: it changed nothing, and its echo was
        /// expected all the same.
        public var droppedSets: [(time: Instant, value: Float)] = []
        /// Each step a button press or auto-repeat made, with the value it left, in order.
        public var buttonSteps: [(time: Instant, value: Float)] = []

        /// Creates a run description.
        public init(
            strategy: SimulatedStrategy, behaviour: DeviceBehaviour, captureWindows: [Range<Instant>],
            systemHUDs: [Instant] = [], crashes: [Instant] = [], landedSets: [(time: Instant, value: Float)] = [],
            otherSourceSteps: [Instant] = [],
            volumes: (starting: [AudioRoute: Float], changes: [(time: Instant, route: AudioRoute, value: Float)]) = (
                [:], []
            )
        ) {
            self.landedSets = landedSets
            self.otherSourceSteps = otherSourceSteps
            self.volumes = volumes
            self.strategy = strategy
            self.behaviour = behaviour
            self.captureWindows = captureWindows
            self.systemHUDs = systemHUDs
            self.crashes = crashes
        }
    }

    /// The bounds in force.
    public var bounds: Bounds
    /// The limits that may excuse a failure, each with its proof.
    public var limits: [OracleLimit]

    /// Creates an oracle with the standard bounds and limits.
    public init(bounds: Bounds = Bounds(), limits: [OracleLimit] = OracleLimit.all) {
        self.bounds = bounds
        self.limits = limits
    }

    /// One physical press as the oracle sees it.
    struct Press {
        var index: Int
        var button: VolumeButton
        var down: Instant
        var up: Instant
        var context: PressContext
        var required: Bool
        var matched = false
        var readAsRepeat = false
        /// When read as a repeat: when the `pressed` it was read as a repeat of was reported (the chain's start).
        var chainStart: Instant?
    }

    /// Judges a run: `truth` from the device, `events` the app received, `diagnostics` VolumeKit raised, and
    /// `finalVolume` the final-volume problems the caller found (each becomes a ``Violation/Kind/finalVolume``).
    public func judge(
        truth: [TruthRecord], events: [VolumeButtonEvent], diagnostics: [Diagnostic], run: Run,
        finalVolume: [String] = []
    ) -> Verdict {
        var presses = self.presses(truth, run)
        var violations = [Violation]()
        var open: (press: Int?, button: VolumeButton, since: Instant)?
        var lastMatchedDown = -Double.infinity
        var lastEventTime = -Double.infinity
        var chainUp = -Double.infinity
        let sorted = events.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(
            \.element)
        let aligned = alignPressed(sorted, presses, strategy: run.strategy, firstRepeat: run.behaviour.firstRepeatDelay)
        for (position, event) in sorted.enumerated() {
            // A crash since the last event ended whatever press was open: no release can come. An event at the crash's
            // own instant came before it (no relaunched app delivers one then): a release inferred at that instant
            // pairs with its press (held-out session 92206), and one at the previous event's instant came after it.
            if run.crashes.contains(where: { $0 >= lastEventTime && $0 < event.time }) {
                open = nil
                chainUp = -.infinity
            }
            lastEventTime = event.time
            switch event.phase {
            case .pressed:
                if let open {
                    violations.append(
                        Violation(
                            kind: .unpaired, time: event.time,
                            detail: "\(event.button.rawValue) pressed before \(open.button.rawValue) was released"))
                }
                guard
                    let index = aligned.buttons.contains(event.button)
                        ? aligned.assignment[position] ?? unseenPress(for: event, in: presses)
                        : candidate(for: event, in: presses, strategy: run.strategy)
                else {
                    if let hold = presses.last(where: {
                        $0.matched && $0.button == event.button && $0.down < event.time
                            && event.time <= $0.up + bounds.observationLatency
                    }) {
                        violations.append(
                            Violation(
                                kind: .holdSplit, time: event.time,
                                detail:
                                    "\(event.button.rawValue) pressed again during the hold made at \(format(hold.down))",
                                press: hold.index))
                        // Still that hold: its later repeats are inside it, its release judged against its end.
                        open = (presses.firstIndex { $0.index == hold.index }, event.button, event.time)
                        chainUp = -.infinity
                        continue
                    }
                    let other = presses.contains {
                        !$0.matched && $0.button != event.button && $0.down <= event.time + 1e-6
                            && event.time - $0.down <= bounds.pressLatency
                    }
                    violations.append(
                        Violation(
                            kind: other ? .wrongButton : .phantomPress, time: event.time,
                            detail: other
                                ? "\(event.button.rawValue) reported while \(event.button.opposite.rawValue) was pressed"
                                : "\(event.button.rawValue) pressed reported with no press near it"))
                    open = (nil, event.button, event.time)
                    chainUp = -.infinity
                    continue
                }
                presses[index].matched = true
                let press = presses[index]
                if press.context.visibility == .unseen {
                    violations.append(
                        Violation(
                            kind: .unseenPressReported, time: event.time,
                            detail: "a press no app could see (made at \(format(press.down))) was reported",
                            press: press.index))
                }
                if press.down < lastMatchedDown {
                    violations.append(
                        Violation(
                            kind: .outOfOrder, time: event.time,
                            detail: "the press made at \(format(press.down)) was reported after a later one",
                            press: press.index))
                }
                lastMatchedDown = max(lastMatchedDown, press.down)
                open = (index, event.button, event.time)
                chainUp = -.infinity
            case .repeated:
                // A repeat where a later physical press of this button went down: a tap read as a repeat.
                let openDown = open?.press.map { presses[$0].down } ?? -.infinity
                // The press nearest before it (a repeat is seen a KVO latency after its step).
                if let index = candidate(for: event, in: presses, strategy: run.strategy, nearest: true),
                    presses[index].down > openDown
                {
                    presses[index].matched = true
                    presses[index].readAsRepeat = true
                    presses[index].chainStart = open?.since
                    chainUp = max(chainUp, presses[index].up)
                    continue
                }
                if let current = open, current.button == event.button, let index = current.press,
                    event.time >= presses[index].down, event.time <= presses[index].up + bounds.repeatLatency
                {
                    continue
                }
                // Inside a hold of this button that this chain already read as a repeat (its own step was the
                // violation, judged there): the hold's later repeats are its own.
                if let current = open, current.button == event.button,
                    presses.contains(where: { press in
                        press.readAsRepeat && press.chainStart == current.since && press.button == event.button
                            && event.time >= press.down && event.time <= press.up + bounds.repeatLatency
                    })
                {
                    continue
                }
                violations.append(
                    Violation(
                        kind: .repeatOutsideHold, time: event.time,
                        detail: "\(event.button.rawValue) repeated with no hold of it then"))
            case .released:
                guard let current = open, current.button == event.button else {
                    violations.append(
                        Violation(
                            kind: .unpaired, time: event.time,
                            detail: "\(event.button.rawValue) released without a pressed before it"))
                    continue
                }
                // The last button-up of the press and the taps read as its repeats (one chain, one release).
                if let index = current.press, event.time > max(presses[index].up, chainUp) + bounds.releaseLatency {
                    let up = max(presses[index].up, chainUp)
                    violations.append(
                        Violation(
                            kind: .lateRelease, time: event.time,
                            detail:
                                "\(event.button.rawValue) released \(format(event.time - up)) s after the button came up",
                            press: presses[index].index))
                }
                open = nil
                chainUp = -.infinity
            }
        }
        if let open, !run.crashes.contains(where: { $0 >= lastEventTime }) {
            violations.append(
                Violation(
                    kind: .lateRelease, time: open.press.map { presses[$0].down } ?? lastEventTime,
                    detail: "\(open.button.rawValue) pressed and never released", press: open.press))
        }
        for press in presses where press.required && (!press.matched || press.readAsRepeat) {
            violations.append(
                Violation(
                    kind: press.readAsRepeat ? .tapReadAsRepeat : .missedPress, time: press.down,
                    detail: press.readAsRepeat
                        ? "the \(press.button.rawValue) press made at \(format(press.down)) was reported as a repeat of the one before"
                        : "the \(press.button.rawValue) press made at \(format(press.down)) was not reported"
                            + " (\(describe(press.context)))",
                    press: press.index))
        }
        // Passive mode lets presses change the volume as usual, the system HUD with them (its documented behaviour).
        let hidesHUD = run.strategy != .passive && run.strategy != .baseline
        for press in presses where press.required && hidesHUD {
            if let hud = run.systemHUDs.first(where: { $0 >= press.down - 1e-6 && $0 <= press.up + 1e-6 }) {
                violations.append(
                    Violation(
                        kind: .systemHUD, time: hud,
                        detail:
                            "the system volume HUD showed for the \(press.button.rawValue) press made at \(format(press.down))",
                        press: press.index))
            }
        }
        for problem in finalVolume {
            violations.append(Violation(kind: .finalVolume, time: .infinity, detail: problem))
        }
        return excuse(
            violations.sorted { $0.time < $1.time }, presses: presses, truth: truth, diagnostics: diagnostics, run: run)
    }

    /// The press an event reports: among the unmatched presses of the event's button that went down at or before
    /// it within the latency bound (or are still held then: a hold that began before capture is seen from its
    /// repeats), the earliest one the app had to see, else the earliest one the strategy could see (in front,
    /// and not at a rail where KVO is silent), else the earliest.
    /// The earliest unmatched press of `event`'s button that no app could see, made at most
    /// ``Bounds/pressLatency`` before it: what a report no visible press explains reports.
    private func unseenPress(for event: VolumeButtonEvent, in presses: [Press]) -> Int? {
        presses.indices.first {
            !presses[$0].matched && presses[$0].button == event.button && presses[$0].context.visibility == .unseen
                && presses[$0].down <= event.time + 1e-6 && event.time - presses[$0].down <= bounds.pressLatency
        }
    }

    private func candidate(
        for event: VolumeButtonEvent, in presses: [Press], strategy: SimulatedStrategy, nearest: Bool = false
    ) -> Int? {
        let near = presses.indices.filter {
            !presses[$0].matched && presses[$0].button == event.button && presses[$0].down <= event.time + 1e-6
                && (event.time - presses[$0].down <= bounds.pressLatency
                    || event.time <= presses[$0].up + bounds.observationLatency)
        }
        if nearest { return near.last }
        let railBlind = strategy == .outputVolume || strategy == .passive
        // The earliest press the app had to see, then the earliest it could see, then any: an older press
        // made before capture settled (which may go unreported) never takes the report of one that followed.
        return near.first { presses[$0].required }
            ?? near.first {
                presses[$0].context.visibility == .inFront && !(railBlind && presses[$0].context.atRail)
            } ?? near.first
    }

    private func presses(_ truth: [TruthRecord], _ run: Run) -> [Press] {
        truth.indices.compactMap { index in
            guard case .press(let button, let duration, let context) = truth[index].action else { return nil }
            let down = truth[index].time
            let up = down + (duration ?? .infinity)
            let inWindow = run.captureWindows.contains {
                $0.contains(down) && down + bounds.pressLatency < $0.upperBound
            }
            let settled = context.sinceDisturbance >= bounds.settle || context.claimedCapture == true
            // Passive mode lets the volume move: a press toward a rail it already sits at changes nothing KVO
            // reports (seed 000). Capture keeps headroom, so there a press at a rail is a limit's to prove.
            let blind = run.strategy == .passive && context.atRail
            // A headset's press is not the side buttons VolumeKit captures (it may be reported, need not be), and
            // a press the EU warning took moved nothing: no signal reached the app.
            let sideButton = context.source == .sideButton && !context.volumeLimitWarning
            let required = context.visibility == .inFront && inWindow && settled && !blind && sideButton
            return Press(index: index, button: button, down: down, up: up, context: context, required: required)
        }
    }

    private func format(_ value: Double) -> String { ScenarioRecord.format(value) }

    /// Why the press had to be seen, in words: "capturing by VolumeKit's word, 0.4 s after a disturbance".
    private func describe(_ context: PressContext) -> String {
        var parts = [String]()
        if context.claimedCapture == true { parts.append("VolumeKit said it was capturing") }
        if context.sinceDisturbance.isFinite {
            parts.append("\(format(context.sinceDisturbance)) s after the last start, return or interruption")
        }
        if context.atRail { parts.append("the volume at the rail it pushes toward") }
        return parts.joined(separator: ", ")
    }
}
