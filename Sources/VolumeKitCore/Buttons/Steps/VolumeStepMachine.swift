#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns observed output-volume values into button steps, and keeps the system volume where the app wants
/// it: at an *anchor* inside a headroom away from the rails while capturing, at the user's own volume
/// otherwise.
///
/// Rules, and where they come from:
/// - A press moves the volume by about 1/16, clamped to 0…1 (seed 002; facts §7) — exactly 1/16 from the
///   value, or to the 1/16 grid, and reads may be rounded (Apple forums 756484; `shared/facts/envelope.md`).
///   While capturing (the app active), a change in one direction of at most a step (plus ``stepTolerance``)
///   is one press; a change of about k/16 is k presses; anything else (another app) is the user's own
///   change. Values are compared within ``readTolerance``.
/// - KVO is silent at the rails (seed 000), so while capturing through KVO the anchor stays
///   ``Configuration/headroomSteps`` steps away from 0 and 1. The private notification does report presses
///   at the rails, so it needs no headroom.
/// - From iOS 11, during a volume-down press iOS refuses a set to a value ≥ the value before the press
///   (other than 0) (seed 000). After a down step the machine therefore sets the value *just below* the
///   one before the step — always accepted — and moves to the exact anchor only once the buttons are quiet
///   (``Configuration/settleDelay``), retrying until the value is confirmed. The volume never drifts to 0.
///   After an up step it sets just above the anchor: iOS 18.2's slider drops a set equal to its cached value,
///   which lags the press (decompiled `MPVolumeControllerSystemDataSource`), so the immediate set always
///   differs from the value set before. On a phone shown to refuse sets during a down press, in a burst of down
///   presses near a rail faster than its measured round trip, the reset is aimed below the start of the press
///   foreseen held when it lands (``Configuration/burstRoundTrip``), so every press is seen.
/// - Changes while not capturing are the user's; a change by whole steps from the user's volume — or from the
///   anchor VolumeKit still holds them at, what they heard — moves it by exactly those steps (VolumeKit's own
///   nudges never become the user's).
/// - Our own sets come back as observations ("echoes"); they are recognised and never reported as presses.
///
/// Pure: one mutating method per input, each returning the actions to carry out; time is passed in.
///
/// The parts, one idea each (internal types): `VolumeGrid` — the step, the nudge, the tolerances, what a press can
/// be; `EchoLedger` — our sets on their way; `LandingOrder` — which set an observation is the landing of, by the
/// order sets land in; `RecentSets` — a late landing of ours; `DownPressNudge` — what a held down press refuses;
/// `SetRetrier` — a set until it is confirmed; `UserVolumeInference` — the user's own volume. This type holds them
/// and takes the inputs, in one extension a family: lifecycle, reads after a pause, routes, observations,
/// changes, holding.
public struct VolumeStepMachine: Sendable, Equatable {
    /// What the machine asks its driver to do.
    public enum Action: Sendable, Equatable {
        /// Set the system volume through the volume view's slider.
        case setVolume(Float)
        /// `count` steps of a button were observed.
        case steps(VolumeButton, count: Int)
        /// The user changed their volume by other means (Control Center, another app, passive presses).
        case userVolumeChanged(Float)
        /// The user's volume is back after ``stop(at:)``: the driver may tear down.
        case restored
        /// A set could not be confirmed after ``Configuration/maximumAttempts`` tries.
        case setFailed(Float)
        /// The user's value is being put back over a landing of ours at a rail (0 or 1) where presses are not
        /// observed (``Configuration/reportsPressesAtRails`` false): a press toward the rail meanwhile was unseen.
        case leavesRailUnobserved(Float)
    }

    /// The actions one input produces, kept inline (no allocation).
    public typealias Actions = SmallList<Action>

    /// Where the machine is.
    public enum Phase: Sendable, Equatable {
        /// Not started, or stopped and restored.
        case idle
        /// Capturing presses.
        case running
        /// Paused (app inactive, interrupted): the user's volume is put back and changes are theirs.
        case suspended
        /// Stopping: putting the user's volume back before reporting ``Action/restored``.
        case stopping
    }

    /// One step of the volume: 1/16.
    public static let step: Float = VolumeGrid.step
    /// How far below the value before a down step (above it after an up step) the machine sets while a press
    /// may still be held: more than twice ``readTolerance``, so a nudged value is never read as the anchor.
    public static let nudge: Float = VolumeGrid.nudge
    /// Two values closer than this are the same: reads may be rounded to 1e-4 (Apple forums 756484).
    public static let readTolerance: Float = VolumeGrid.readTolerance
    /// How far a change may be from whole steps and still be the user's presses when not capturing: two
    /// rounded reads (``readTolerance`` each) and float noise, no more — a Control Center drag's intermediate
    /// values may come about a step apart (0.062 of 0.0625) and are the user's values as they are. VolumeKit's
    /// own nudges left in the volume are taken out separately (``assumeSetsLanded(at:mayBeLost:)``'s residue).
    public static let pressTolerance: Float = VolumeGrid.pressTolerance
    /// How far a value read after observations stopped may be from whole steps of the user's volume and still
    /// be their presses: VolumeKit's nudges around a burst (1/4096 each) may be left in it.
    public static let residueTolerance: Float = VolumeGrid.residueTolerance
    /// How far a change may be from a whole number of steps and still be presses (grid snapping, nudges).
    public static let stepTolerance: Float = VolumeGrid.stepTolerance
    /// A set issued this recently may still be on its way when reads resume (slider latency ≤ 0.15 s and
    /// KVO latency ≤ 0.03 s, `shared/facts/envelope.md`): a read then is not the user's choice.
    public static let landingWindow: TimeInterval = 0.3

    /// The configuration in force.
    public internal(set) var configuration: Configuration
    /// Whether the current route lets VolumeKit set the volume: AirPlay and HDMI outputs may have no volume
    /// control, and the volume view's slider then leaves the view (openradar 42881405; decompiled `MPVolumeView`
    /// `layoutSubviews`, `shared/facts/volume-hud.md`). Without it nothing can be held: presses are reported as
    /// they change the volume, as in passive mode (``volumeControl(available:at:)``).
    public internal(set) var hasVolumeControl = true
    /// The mode in effect: the configuration's, or passive on a route without volume control.
    var mode: ButtonCaptureMode { hasVolumeControl ? configuration.mode : .passive }
    /// Where the machine is.
    public internal(set) var phase: Phase = .idle
    /// The user's own volume: restored on stop and while suspended.
    public internal(set) var userVolume: Float = 0
    /// The value the machine holds the system volume at while running.
    public internal(set) var anchor: Float = 0
    /// What the machine believes the system volume is.
    public internal(set) var believedVolume: Float = 0

    // MARK: - The parts

    /// Our sets on their way, until each lands or expires.
    var echoes = EchoLedger()
    /// Which set of ours an observation is the landing of: the spare echo, the suspect press, the set taken as
    /// landed.
    var landings = LandingOrder()
    /// The last sets issued, whether or not an observation has since been taken for one (a late landing is ours).
    var recent = RecentSets()
    /// The set waiting to be confirmed, and when to look at the volume again.
    var retrier = SetRetrier()
    /// The nudges below the anchor after down steps, and the down press that may still be held.
    var downPress = DownPressNudge()

    // MARK: - What reads and routes left

    /// A value seen that is expected to come back as an observation, until a time.
    struct Expected: Sendable, Equatable {
        /// The value.
        var value: Float
        /// Until when its observation may come.
        var until: Instant
    }

    /// A set of ours seen to land: its value, the volume believed before it, and when.
    struct Landing: Sendable, Equatable {
        /// The value it landed on.
        var value: Float
        /// The volume believed before it.
        var over: Float
        /// When it was seen.
        var at: Instant
    }

    /// The last set of ours seen to land (``mayBeOwnLanding(_:at:)``).
    var lastLanding: Landing?
    /// The new route's own volume after a route change seen by its notification, until its KVO arrives
    /// (then it is neither a landing of ours nor a press), and when to stop expecting it.
    var routeObservation: Expected?
    /// Since the last route change, whether the new route's own KVO has been seen (or its time has passed): an
    /// observation after it is of the new route.
    var routeVolumeSeen = false
    /// A value a live read showed that no set of ours explains (``tick(at:volume:)``): a press whose observation
    /// is still on its way. That observation is the press, never the landing of a set issued since.
    var unexplainedRead: Expected?
    /// The change a live read last saw, until its own observation may still arrive
    /// (``ButtonTiming/observationLatency`` later). At a rail, where the private notification reports presses
    /// that move nothing, it would read as a press (a Bluetooth headset's volume synchronised to 1 while the app
    /// was inactive, read on its return: `shared/facts/envelope.md`).
    var readChange: Expected?
    /// Whether ``believedVolume`` came from a live read (a start, a read after observations stopped) rather than an
    /// observation: an observation of that same value is the read's own change arriving late, no new one.
    var believedFromRead = false
    /// The system volume's offset from the target of a set that was not confirmed when observations stopped
    /// (a restore refused during a held down press leaves the volume a nudge off).
    var residue: Float = 0
    /// The volume before a set that was taken as landed (``assumeSetsLanded(at:mayBeLost:)``): a read of it within
    /// ``landingWindow`` of that set is the set not landed yet, not the user's choice.
    var unconfirmedFrom: Float?
    /// Whether the set taken as landed may have been lost, not only late (made through a volume view not proven to
    /// take sets, before every phone of the envelope has it ready): a read of ``unconfirmedFrom`` is then the set
    /// not landed past the landing window too — until the next read or observation, or a route change.
    var setMayBeLost = false

    /// When the last set was issued (`nil` before any).
    var lastSetTime: Instant? { recent.lastSetTime }

    /// Where a set taken as landed through a volume view not proven to take sets may have left the volume instead
    /// (``unconfirmedFrom``), when that is away from the user's volume: a set there may have been lost.
    var mayHaveLeftAwayFromUser: Float? {
        guard setMayBeLost, let from = unconfirmedFrom, VolumeGrid.isApart(from, userVolume) else {
            return nil
        }
        return from
    }

    /// Creates an idle machine.
    public init(configuration: Configuration = Configuration()) {
        #if VOLUMEKIT_MUTANTS
        var configuration = configuration
        if Mutant.isOn(.echoLifetime20ms) { configuration.echoLifetime = 0.02 }
        #endif
        self.configuration = configuration
    }

    /// When ``tick(at:volume:)`` must be called next.
    public var nextDeadline: Instant? {
        guard let expiry = echoes.nextExpiry else { return retrier.deadline }
        return retrier.deadline.map { min($0, expiry) } ?? expiry
    }

    /// Whether a set of ours is still waiting to be confirmed.
    public var isSettling: Bool { retrier.isWaiting }

    /// Whether the system volume is not the user's own: VolumeKit has moved it (or is moving it back).
    public var holdsVolumeAwayFromUser: Bool {
        VolumeGrid.isApart(believedVolume, userVolume) || retrier.isWaiting
    }

    /// Whether the anchor exactly is not where VolumeKit leaves the volume: running, believed off it, a down
    /// step's nudge below it set and no set of the anchor itself since (it comes once the buttons are quiet).
    /// A crash now leaves the volume at a nudge (or a press), never on the anchor
    /// (``PendingRestore/nudgedBelowHeld``).
    public var isNudgedBelowAnchor: Bool {
        phase == .running && downPress.anchor == .nudgedBelow && VolumeGrid.isApart(believedVolume, anchor)
            && !isAnchorInFlight
    }

    /// Whether the anchor exactly may not be where VolumeKit leaves the volume although it set it: running, believed
    /// off it, and a set of it on its way, not yet seen to land — either set again after a down step's nudge below
    /// it (iOS 11+ refuses sets during a held down press, seed 000, so it may never land, and on a device whose
    /// presses snap to the 1/16 grid a press from the nudge ends on the anchor too), or the set that takes the
    /// volume to the anchor at a start, a return or a change of route (a volume view not ready drops it: sweep
    /// session outputVolume 1337, presses made after a crash ending on the anchor). A crash now leaves the volume
    /// where it was or at the anchor (``PendingRestore/heldSetUnconfirmed``). Not after a press: its reset is
    /// not awaited this way, and the record is not written twice a press.
    public var isAnchorSetUnconfirmed: Bool {
        phase == .running && (downPress.anchor == .setAfterNudge || retrier.isWaiting)
            && VolumeGrid.isApart(believedVolume, anchor)
            && isAnchorInFlight
    }

    /// The last reset set more than ``RecoveryRule/tolerance`` below the anchor while it has not been confirmed
    /// since — aimed below a press foreseen held in a burst of down presses near a rail
    /// (``Configuration/burstRoundTrip``), or a nudge below the value before a step from such a reset: VolumeKit's
    /// own value, which its sets in flight land on (each lands during a held press that accepts it), a nudge at a
    /// time, until the buttons are quiet and the anchor is set again. A crash or a change of route now leaves the
    /// volume there, or a few nudges above (``PendingRestore/aimedVolume``).
    public var aimedReset: Float? { phase == .running ? downPress.farBelow : nil }

    /// Whether a set of the anchor is on its way (issued, not yet seen to land or expired).
    var isAnchorInFlight: Bool {
        var echoes = echoes  // Searched in place (`EchoLedger`): a copy.
        return echoes.contains(anchor, within: VolumeGrid.readTolerance)
    }

    /// Whether a set of ours of another value than the user's volume may still land: issued less than
    /// ``Configuration/echoLifetime`` ago and not yet observed (a nudge after a press, on its way).
    public var maySetAwayFromUser: Bool {
        var echoes = echoes  // Searched in place (`EchoLedger`): a copy.
        return echoes.contains { VolumeGrid.isApart($0.value, userVolume) }
    }

    // MARK: - Helpers

    /// The value to hold for the user's `volume`: the headroom anchor while capturing, the volume itself otherwise.
    func anchorFor(_ volume: Float) -> Float {
        guard mode == .capture else { return volume }
        return VolumeGrid.anchor(for: volume, headroomSteps: configuration.headroomSteps)
    }

    /// Whether a change from `old` to `new` is where a press of the phone's buttons can land (see `VolumeGrid`).
    static func isPressLanding(from old: Float, to new: Float) -> Bool { VolumeGrid.isPressLanding(from: old, to: new) }

    /// The presses a change from `old` to `new` can be, under this configuration (see `VolumeGrid`).
    func classify(from old: Float, to new: Float) -> (VolumeButton, Int)? {
        VolumeGrid.classify(from: old, to: new, atRails: configuration.reportsPressesAtRails)
    }
}
