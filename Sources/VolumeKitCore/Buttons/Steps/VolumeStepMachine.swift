import Foundation

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
///   differs from the value set before.
/// - Changes while not capturing are the user's; a change by whole steps from the user's volume — or from the
///   anchor VolumeKit still holds them at, what they heard — moves it by exactly those steps (VolumeKit's own
///   nudges never become the user's).
/// - Our own sets come back as observations ("echoes"); they are recognised and never reported as presses.
///
/// Pure: one mutating method per input, each returning the actions to carry out; time is passed in.
public struct VolumeStepMachine: Sendable, Equatable {
    /// How the machine behaves.
    public struct Configuration: Sendable, Equatable {
        /// Capture (hold the volume at the anchor) or passive (let presses change the volume).
        public var mode: ButtonCaptureMode
        /// How many 1/16 steps the anchor keeps from 0 and 1 while capturing.
        public var headroomSteps: Int
        /// Whether observations report presses that cannot move the volume (at 0 or 1).
        public var reportsPressesAtRails: Bool
        /// How long after the last step the exact anchor is set (longer than the auto-repeat interval, so a
        /// held button has ended its press cycle).
        public var settleDelay: TimeInterval
        /// How long to wait for a set to be confirmed before trying again.
        public var retryDelay: TimeInterval
        /// How many times a set is tried before the machine gives up and reports ``Action/setFailed(_:)``.
        public var maximumAttempts: Int
        /// How long an expected echo of our own set is remembered: longer than a set takes to land and be
        /// observed (slider ≤ 0.15 s plus KVO ≤ 0.03 s, `shared/facts/envelope.md`), short enough that a set
        /// that landed silently (on a volume already there: KVO reports only changes), was refused during a
        /// down press or was dropped cannot swallow a later press landing on the same value (CipherBit
        /// VolumeButtonHandler #4's fake echo).
        public var echoLifetime: TimeInterval

        /// Creates a configuration.
        public init(
            mode: ButtonCaptureMode = .capture,
            headroomSteps: Int = 2,
            reportsPressesAtRails: Bool = false,
            settleDelay: TimeInterval = 0.35,
            retryDelay: TimeInterval = 0.2,
            maximumAttempts: Int = 30,
            echoLifetime: TimeInterval = 0.2
        ) {
            self.mode = mode
            self.headroomSteps = headroomSteps
            self.reportsPressesAtRails = reportsPressesAtRails
            self.settleDelay = settleDelay
            self.retryDelay = retryDelay
            self.maximumAttempts = maximumAttempts
            self.echoLifetime = echoLifetime
        }
    }

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
    /// own nudges left in the volume are taken out separately (``assumeSetsLanded(at:)``'s residue).
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
    public let configuration: Configuration
    /// Whether the current route lets VolumeKit set the volume: AirPlay and HDMI outputs may have no volume
    /// control, and the volume view's slider then leaves the view (openradar 42881405; decompiled `MPVolumeView`
    /// `layoutSubviews`, `shared/facts/volume-hud.md`). Without it nothing can be held: presses are reported as
    /// they change the volume, as in passive mode (``volumeControl(available:at:)``).
    public private(set) var hasVolumeControl = true
    /// The mode in effect: the configuration's, or passive on a route without volume control.
    private var mode: ButtonCaptureMode { hasVolumeControl ? configuration.mode : .passive }
    /// Where the machine is.
    public private(set) var phase: Phase = .idle
    /// The user's own volume: restored on stop and while suspended.
    public private(set) var userVolume: Float = 0
    /// The value the machine holds the system volume at while running.
    public private(set) var anchor: Float = 0
    /// What the machine believes the system volume is.
    public private(set) var believedVolume: Float = 0
    private var echoes = EchoLedger()
    /// The last set of ours taken as landed: its value, the volume believed before it, and when.
    private struct Landing: Sendable, Equatable {
        var value: Float
        var over: Float
        var at: Instant
    }
    private var lastLanding: Landing?
    /// The new route's own volume after a route change seen by its notification, until its KVO arrives
    /// (then it is neither a landing of ours nor a press), and when to stop expecting it.
    private var routeObservation: Expected?
    /// Which set of ours an observation is the landing of: the spare echo, the suspect press, the set taken as landed.
    private var landings = LandingOrder()
    /// The last sets issued, whether or not an observation has since been taken for one (a late landing is ours).
    private var recent = RecentSets()

    /// A value a live read showed that no set of ours explains (``tick(at:volume:)``): a press whose observation
    /// is still on its way. That observation is the press, never the landing of a set issued since.
    private var unexplainedRead: Expected?

    private struct Expected: Sendable, Equatable {
        var value: Float
        var until: Instant
    }
    /// The set waiting to be confirmed, and when to look at the volume again.
    private var retrier = SetRetrier()
    /// The nudges below the anchor after down steps, and the down press that may still be held.
    private var downPress = DownPressNudge()
    /// The system volume's offset from the target of a set that was not confirmed when observations stopped
    /// (a restore refused during a held down press leaves the volume a nudge off).
    private var residue: Float = 0
    /// Whether ``believedVolume`` came from a live read (a start, a read after observations stopped) rather than an
    /// observation: an observation of that same value is the read's own change arriving late, no new one.
    private var believedFromRead = false
    /// The change a live read last saw, until its own observation may still arrive
    /// (``ButtonTiming/observationLatency`` later). At a rail, where the private notification reports presses
    /// that move nothing, it would read as a press (a Bluetooth headset's volume synchronised to 1 while the app
    /// was inactive, read on its return: `shared/facts/envelope.md`).
    private var readChange: Expected?
    /// The volume before a set that was taken as landed (``assumeSetsLanded(at:)``): a read of it within
    /// ``landingWindow`` of that set is the set not landed yet, not the user's choice.
    private var unconfirmedFrom: Float?

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

    /// Starts capturing. `volume` is the system volume now; `userVolume` the user's own (a recovered one
    /// after a crash, see ``RecoveryRule``), by default the volume now.
    public mutating func start(volume: Float, userVolume: Float? = nil, at time: Instant) -> Actions {
        begin(.running, volume: volume, userVolume: userVolume ?? volume)
        return hold(anchorFor(self.userVolume), at: time)
    }

    /// Starts while the app is not active (it went to the background before the view was ready): nothing is set
    /// for the anchor — a set now would move the volume under presses the user makes meanwhile, from a read
    /// that may be stale — only a saved user volume is given back. The anchor is taken at ``resume(volume:at:)``.
    public mutating func startSuspended(volume: Float, userVolume: Float? = nil, at time: Instant) -> Actions {
        begin(.suspended, volume: volume, userVolume: userVolume ?? volume)
        return hold(self.userVolume, at: time)
    }

    /// Only puts `userVolume` back, capturing nothing: a stop that came before the volume view was ready, with a
    /// record of an earlier run that ``RecoveryRule`` gives back on this route. `volume` is the system volume
    /// now. Reports ``Action/restored`` once the user's volume is there.
    public mutating func restore(volume: Float, userVolume: Float, at time: Instant) -> Actions {
        begin(.stopping, volume: volume, userVolume: userVolume)
        return hold(userVolume, at: time) + doneIfRestored()
    }

    /// Enters `phase` from a fresh read: the system volume `volume`, the user's own `userVolume`; no set of ours
    /// in flight or taken as landed.
    private mutating func begin(_ phase: Phase, volume: Float, userVolume: Float) {
        self.phase = phase
        self.userVolume = userVolume
        believedVolume = volume
        echoes = EchoLedger()
        landings.reset()
        unexplainedRead = nil
        unconfirmedFrom = nil
        believedFromRead = true
        // A route change seen before (while idle, against a stale believed volume) is in the fresh read: its KVO,
        // if one comes, changes nothing — a press landing on that value is a press.
        routeObservation = nil
    }

    /// Whether the system volume is not the user's own: VolumeKit has moved it (or is moving it back).
    public var holdsVolumeAwayFromUser: Bool {
        abs(believedVolume - userVolume) > VolumeGrid.readTolerance || retrier.isWaiting
    }

    /// Whether the anchor exactly is not where VolumeKit leaves the volume: running, believed off it, a down
    /// step's nudge below it set and no set of the anchor itself since (it comes once the buttons are quiet).
    /// A crash now leaves the volume at a nudge (or a press), never on the anchor
    /// (``PendingRestore/nudgedBelowHeld``).
    public var isNudgedBelowAnchor: Bool {
        phase == .running && downPress.anchor == .nudgedBelow && abs(believedVolume - anchor) > VolumeGrid.readTolerance
            && !isAnchorInFlight
    }

    /// Whether the anchor exactly may not be where VolumeKit leaves the volume although it set it: running, believed
    /// off it (at a down step's nudge below it), the anchor set again since and not yet seen to land. iOS 11+
    /// refuses sets during a held down press (seed 000), so it may never land: a crash now leaves the volume at the
    /// nudge or at the anchor, and on a device whose presses snap to the 1/16 grid a press from the nudge ends on
    /// the anchor too (``PendingRestore/heldSetUnconfirmed``).
    public var isAnchorSetUnconfirmed: Bool {
        phase == .running && downPress.anchor == .setAfterNudge
            && abs(believedVolume - anchor) > VolumeGrid.readTolerance
            && isAnchorInFlight
    }

    /// Whether a set of the anchor is on its way (issued, not yet seen to land or expired).
    private var isAnchorInFlight: Bool { echoes.contains(anchor, within: VolumeGrid.readTolerance) }

    /// Whether a set of ours of another value than the user's volume may still land: issued less than
    /// ``Configuration/echoLifetime`` ago and not yet observed (a nudge after a press, on its way).
    public var maySetAwayFromUser: Bool { echoes.contains { abs($0.value - userVolume) > VolumeGrid.readTolerance } }

    /// The current route has volume control (`available`), or has none: then nothing is held there — no anchor,
    /// no set — and each press is reported as it changes the volume, which stays the user's (as in passive mode);
    /// back on a route with control, the anchor is held again.
    public mutating func volumeControl(available: Bool, at time: Instant) -> Actions {
        guard available != hasVolumeControl else { return [] }
        hasVolumeControl = available
        if !available {
            retrier.cancel()
            return []
        }
        guard phase == .running else { return [] }
        return hold(anchorFor(userVolume), at: time)
    }

    /// Pauses: puts the user's volume back; later changes are the user's.
    public mutating func suspend(at time: Instant) -> Actions {
        guard phase == .running else { return [] }
        phase = .suspended
        return hold(userVolume, at: time)
    }

    /// Observations stop for a while (the app is suspended in the background, or an interruption holds the
    /// session): sets already issued are taken as landed, and nothing is retried until ``resume(volume:at:)``
    /// reads the volume again — a retry then could overwrite a change the user makes meanwhile.
    public mutating func assumeSetsLanded(at time: Instant) -> Actions {
        if let target = retrier.wanted {
            // The part of the offset that is not whole steps (presses) is our nudge.
            residue = UserVolumeInference.residue(believed: believedVolume, target: target, anchor: anchor)
            unconfirmedFrom = believedVolume
            believedVolume = target
            believedFromRead = false
            landings.assumeLanded(order: echoes.newest(target, within: VolumeGrid.readTolerance)?.order)
        }
        retrier.cancel()
        // Echoes are kept: a set still in flight lands later and must not read as a press.
        return doneIfRestored()
    }

    /// Resumes after ``suspend(at:)``. `volume` is the system volume now: the user's, unless our restore
    /// has not been confirmed yet.
    public mutating func resume(volume: Float, at time: Instant) -> Actions {
        guard phase == .suspended else { return [] }
        phase = .running
        return resync(volume: volume, at: time)
    }

    /// Reads are live again while running (another component had taken the session over, so observations
    /// stopped): `volume` is the system volume now. A change since is the user's (the system HUD showed it).
    public mutating func resync(volume: Float, at time: Instant) -> Actions {
        guard phase == .running else { return [] }
        return readBack(volume, at: time) + hold(anchorFor(userVolume), at: time)
    }

    /// Reads are live again while suspended, just before a stop (observations had stopped: an interruption, the
    /// background): `volume` is the system volume now. A change since is the user's, as in
    /// ``resync(volume:at:)``; the volume VolumeKit left (a restore dropped or refused meanwhile) is not, and the
    /// stop then sets the user's volume back over it.
    public mutating func refresh(volume: Float, at time: Instant) -> Actions {
        guard phase == .suspended else { return [] }
        // As the machine now believes: the stop sets the user's volume again unless it is there (a set still in
        // flight lands on the same value).
        return readBack(volume, at: time)
    }

    /// The output moved to another route, whose volume is `volume`. The user's volume there is `userVolume`
    /// (a saved one, see ``RecoveryRule``), by default `volume`; the anchor is re-chosen for it.
    ///
    /// `expectsObservation`: the new route's KVO (its volume, when different from the old route's) is still to
    /// come — the change was seen by its notification, or by an observation that was not the route's own volume
    /// (a set of ours landing on the old route, observed after the switch).
    public mutating func routeChanged(
        volume: Float, userVolume: Float? = nil, expectsObservation: Bool = false, at time: Instant
    ) -> Actions {
        // Sets still in flight may land on the new route: their echoes stay known (never taken for the user's
        // changes), and the target below is set again so that it lands after them.
        retrier.forget()
        routeObservation =
            expectsObservation && abs(volume - believedVolume) > VolumeGrid.readTolerance
            ? Expected(value: volume, until: time + Self.landingWindow) : nil
        believedVolume = volume
        believedFromRead = true
        echoes.markBeforeRouteChange()
        landings.routeChanged()
        unexplainedRead = nil
        let user = userVolume ?? volume
        self.userVolume = user
        switch phase {
        case .running: return [.userVolumeChanged(user)] + hold(anchorFor(user), at: time)
        case .stopping, .suspended: return [.userVolumeChanged(user)] + hold(user, at: time) + doneIfRestored()
        case .idle: return [.userVolumeChanged(user)]
        }
    }

    /// Stops: puts the user's volume back, then reports ``Action/restored``.
    public mutating func stop(at time: Instant) -> Actions {
        guard phase != .idle else { return [] }
        phase = .stopping
        let actions = hold(userVolume, at: time)
        if !retrier.isWaiting {
            phase = .idle
            return actions + [.restored]
        }
        return actions
    }

    /// The new route's own volume after a route change seen through an observation: `read` is a live read,
    /// `observed` the observation that showed the change. A set of ours in flight may already have landed on
    /// the new route: when the read is such a set and the observation is not, the observation (the route's
    /// KVO) is the route's volume (`shared/facts/envelope.md`: the route's KVO may come before its notification).
    public func routeVolume(read: Float, observed: Float?) -> Float {
        guard let observed else { return read }
        func inFlight(_ value: Float) -> Bool { echoes.contains(value, within: VolumeGrid.readTolerance) }
        return inFlight(read) && !inFlight(observed) ? observed : read
    }

    /// Whether `volume`, the new route's own volume as read at a route change (before ``routeChanged(volume:userVolume:expectsObservation:at:)``),
    /// may instead be a set of ours issued on the old route that landed on the new one before the change was
    /// seen: a set of that value is still in flight, or one was taken as landed within ``landingWindow`` (its
    /// KVO may have come after the change, ahead of the change's notification: `shared/facts/envelope.md`),
    /// and the old route's volume without it differs. With both routes at that other volume the change showed
    /// no KVO of its own, so the new route's own volume is either value: nothing observable tells them apart.
    public func mayBeOwnLanding(_ volume: Float, at time: Instant) -> Bool {
        if echoes.contains(volume, within: VolumeGrid.readTolerance, where: { !$0.beforeRouteChange }),
            abs(believedVolume - volume) > VolumeGrid.readTolerance
        {
            return true
        }
        guard let landing = lastLanding, time - landing.at <= Self.landingWindow else { return false }
        return abs(landing.value - volume) < VolumeGrid.readTolerance
            && abs(landing.over - volume) > VolumeGrid.readTolerance
    }

    /// A value observed right after the route changed (read with the observation, before its notification):
    /// it is the new route's own volume (already read by ``routeChanged(volume:userVolume:expectsObservation:at:)``) or a set of
    /// ours landing there, whose echo it consumes. Nothing else can be told apart from the route's change.
    public mutating func observeAfterRouteChange(_ value: Float, at time: Instant) -> Actions {
        // The route's own KVO, unless it is still to come (the observation was a landing on the old route).
        if routeObservation.map({ abs($0.value - value) < VolumeGrid.readTolerance }) ?? true { routeObservation = nil }
        // The route's own volume, as just read: its KVO, not a landing. Only a set made before the change can
        // have landed: the observation came before the sets the change itself made — the new route's anchor,
        // which is its own volume when VolumeKit left the route there (their echo stays for their landing).
        guard abs(value - believedVolume) > VolumeGrid.readTolerance,
            let landed = echoes.oldest(value, within: VolumeGrid.readTolerance, where: \.beforeRouteChange)
        else { return [] }
        echoes.remove(landed)
        return []
    }

    /// A value observed through KVO or the system notification.
    public mutating func observe(_ value: Float, at time: Instant) -> Actions {
        // Before start the machine knows nothing to compare with: start reads the volume itself.
        guard phase != .idle || !echoes.isEmpty else { return [] }
        // Observations are live again: the real volume is seen from here on.
        unconfirmedFrom = nil
        // The anchor seen: it landed (or a press ended there, which the machine reads as its landing alike).
        if abs(value - anchor) <= VolumeGrid.readTolerance { downPress.anchorSeen() }
        if let expected = routeObservation {
            // The new route's KVO, after its notification (landings of ours may come first): its volume,
            // already read (envelope.md: the order and gap of the two vary). Not a landing, whose echo must
            // stay for the set itself, nor a press.
            if time > expected.until {
                routeObservation = nil
            } else if abs(value - expected.value) < VolumeGrid.readTolerance {
                routeObservation = nil
                return []
            }
        }
        if let read = unexplainedRead {
            unexplainedRead = nil
            // The press a live read saw: a change from what the machine believed, whatever set of ours is now on its
            // way to the same value.
            if time <= read.until, abs(value - read.value) < VolumeGrid.readTolerance, phase == .running {
                return observeChange(value, at: time)
            }
        }
        if let match = landings.match(value, at: time, in: &echoes) {
            var actions = Actions()
            if let press = landings.judge(
                match.echo, value: value, at: time, in: &echoes, capturing: phase == .running && mode == .capture,
                believed: believedVolume, atRails: configuration.reportsPressesAtRails)
            {
                downPress.step(press.button, from: press.value + VolumeGrid.step)
                actions = [.steps(press.button, count: press.count)]
            }
            return actions + observeLanding(value, match, at: time)
        }
        if let late = lateLanding(value, at: time) { return late }
        return observeChange(value, at: time)
    }

    /// An observation that is the landing of a set of ours (`match`).
    private mutating func observeLanding(_ value: Float, _ match: LandingOrder.Match, at time: Instant) -> Actions {
        let landing = match.echo
        // One set of this value landed; sets of other values may still land (or were dropped: they expire).
        let landedBeforeRouteChange = landing.beforeRouteChange
        // A set issued before the one taken as landed (``assumeSetsLanded(at:)``), whose echo is still on its
        // way, landed first: the later one lands over it — the user's volume given back beside a nudge, which
        // no slider cache drops — unless a down press still held refuses it (seed 000). The machine keeps
        // believing the later set's value (issue 11, ov-8742).
        // A down press still held refuses a set at or above the value before it (other than 0), so a landing
        // there shows the press was over when it landed — and when the later set landed, after it (issue 11,
        // ov-19692: the anchor's reset after a down press, observed only on return).
        let superseded = landings.landed(
            match, on: value, over: believedVolume, pressOver: downPress.isPressOver(landingOn: value), echoes: echoes)
        echoes.remove(landing)
        if !landedBeforeRouteChange { lastLanding = Landing(value: value, over: believedVolume, at: time) }
        // A set from before a route change may have landed on the old route: the volume read at the
        // change stays what the machine believes (the set made then lands after it and confirms).
        if !landedBeforeRouteChange, !superseded {
            believedVolume = value
            believedFromRead = false
        }
        // Not capturing, the last of the sets of ours issued before the user's change (Control Center while a
        // restore was on its way) landed after it, over their value: put it back.
        let over =
            (phase == .suspended || phase == .stopping) && !landedBeforeRouteChange && !superseded
            && abs(value - userVolume) > VolumeGrid.readTolerance
        // Landed at a rail over the user's value, which is set again (now, or by a set already on its way):
        // a press toward the rail meanwhile changes nothing observable (outputVolume) and is undone. Say so.
        let unseen: Actions =
            over && !configuration.reportsPressesAtRails && (value <= 0 || value >= 1)
            ? [.leavesRailUnobserved(value <= 0 ? 0 : 1)] : []
        if over, echoes.isEmpty { return unseen + hold(userVolume, at: time) }
        return unseen + confirmIfWanted(at: time)
    }

    /// A landing of ours whose echo an earlier observation took (a press landing on the value of a set in flight,
    /// then that set's own landing read as a later set's): a value no press and no user gives — one of
    /// VolumeKit's nudges (off the 1/16 grid, 1/4096 from the anchor) set within an echo's lifetime, or the anchor
    /// set after it, seen right after that nudge — is ours, not the user's change nor a press from it. A press
    /// lands a step from where it starts, on the grid where the phone snaps presses (`stepQuantization`,
    /// `shared/facts/envelope.md`); a Control Center value within a read of a nudge is a chance this rule takes.
    private mutating func lateLanding(_ value: Float, at time: Instant) -> Actions? {
        guard phase == .running else { return nil }
        guard recent.isLateLanding(value, at: time, anchor: anchor, believed: believedVolume) else { return nil }
        believedVolume = value
        believedFromRead = false
        return confirmIfWanted(at: time)
    }

    /// An observation that is no landing of ours: a press, or the user's own change.
    private mutating func observeChange(_ value: Float, at time: Instant) -> Actions {
        let old = believedVolume
        believedVolume = value
        let fromRead = believedFromRead
        believedFromRead = false
        // Sets taken as landed (``assumeSetsLanded(at:)``) left the real volume `residue` off what the machine
        // believed; an observation is the real volume again.
        let leftover = residue
        residue = 0
        guard phase == .running else {
            return observeUsersChange(value, from: old, fromRead: fromRead, leftover: leftover, at: time)
        }
        let atRail = value <= 0 || value >= 1
        let seen = readChange
        readChange = nil
        if abs(value - old) <= VolumeGrid.readTolerance {
            // Nothing moved (a route's KVO after the machine already read the new route's volume); at a rail, a
            // press that moves nothing — unless it is the late observation of the change a live read just saw.
            let readsOwnChange =
                fromRead
                && seen.map { abs($0.value - value) <= VolumeGrid.readTolerance && time <= $0.until } == true
            if !(configuration.reportsPressesAtRails && atRail) || readsOwnChange { return [] }
        }
        #if VOLUMEKIT_MUTANTS
        if Mutant.isOn(.offGridPress), classify(from: old, to: value) == nil {
            return [.steps(value > old ? .up : .down, count: 1)]
        }
        #endif
        // Off the 1/16 grid, or more than one step in one change: the user's own change (Control Center's
        // slider, another app, a Bluetooth headset's volume synchronised on connect, Headphone Safety turning the
        // volume down: `shared/facts/envelope.md`). A press moves the volume one step, and each change is
        // observed on its own (KVO, the private notification), so several presses never arrive as one change.
        guard let (button, count) = classify(from: old, to: value), count == 1,
            VolumeGrid.isPressLanding(from: old, to: value)
        else {
            userVolume = value
            return [.userVolumeChanged(value)] + hold(anchorFor(value), at: time)
        }
        var actions: Actions = [.steps(button, count: count)]
        downPress.step(button, from: old)
        guard mode == .capture else {
            userVolume = value
            return actions + [.userVolumeChanged(value)]
        }
        // Right after a down step the press may still be held: only a value below the one before the step is
        // accepted (seed 000). Go just below it now, and to the exact anchor once the buttons are quiet.
        if button == .down {
            // Nudges are counted from the anchor, never from the last value seen (which may be stale while
            // sets are in flight): a press landing from one of our values can then never equal another.
            let target = downPress.target(after: value, from: old, holding: anchor, nothingInFlight: echoes.isEmpty)
            // A set of this value still in flight (the nudge count restarted when the anchor was confirmed)
            // lands once more: both landings are ours, also one seen only after observations stopped.
            let inFlight = echoes.contains(target, within: VolumeGrid.readTolerance, where: { !$0.beforeRouteChange })
            actions += set(target, at: time, again: inFlight)
            if target < anchor - VolumeGrid.readTolerance { downPress.nudgedBelow() }
        } else {
            // No refusal after an up step, but a slider drops a set equal to its cache, which may still hold
            // the anchor (the value before the press) or our last set (decompiled iOS 18.2): go just above the
            // anchor, then to the anchor itself — whichever the cache holds, the second set differs from it.
            // Also during a burst or a hold (sets in flight): the cache then holds the anchor our last reset
            // landed on, and a lone anchor set is dropped until the retry — a crash meanwhile leaves a step.
            let nudged = VolumeGrid.clamp(anchor + VolumeGrid.nudge)
            if nudged != anchor {
                actions += set(nudged, at: time, again: true)
                actions += set(anchor, at: time, again: true)
            } else {
                // At the top rail: no value above the anchor. With a set of it still on its way (the settled
                // anchor's, made before this press) another is no use — the press already left the volume there —
                // and its echo would be wrong either way: the private notification reports each landing at the
                // rail, a second one unexpected reads as a press, and a second set dropped as equal to the
                // slider's cache leaves an echo that swallows the next press.
                let inFlight = echoes.contains(
                    anchor, within: VolumeGrid.readTolerance, where: { !$0.beforeRouteChange })
                if !inFlight { actions += set(anchor, at: time) }
            }
        }
        retrier.lookAgain(at: time + configuration.settleDelay)
        return actions
    }

    /// An observation while not capturing, from `old`: every change is the user's. `fromRead`: `old` came from a
    /// live read; `leftover`: the nudge sets taken as landed left in the volume.
    private mutating func observeUsersChange(
        _ value: Float, from old: Float, fromRead: Bool, leftover: Float, at time: Instant
    ) -> Actions {
        // A Control Center drag over a short distance may move less than a read's tolerance between samples:
        // each sample is the same value as the one before, but the drag has moved the user's volume.
        // (Not so for the value a live read just gave: its own change, observed late.)
        guard
            abs(value - old) > VolumeGrid.readTolerance
                || !fromRead && abs(value - userVolume) > VolumeGrid.readTolerance,
            phase != .idle
        else { return [] }
        #if VOLUMEKIT_MUTANTS
        if Mutant.isOn(.ignoreChangesWhileSuspended) { return [] }
        #endif
        let users = UserVolumeInference.afterChange(
            to: value, from: old, leftover: leftover, user: userVolume, anchor: anchor)
        userVolume = users
        if phase == .stopping { return [.userVolumeChanged(users)] + hold(users, at: time) + doneIfRestored() }
        // The system volume may carry our nudge: put the user's exact value back. So too when a set of ours of
        // another value is still on its way (the restore made as the session was interrupted, a Bluetooth
        // headset's synchronised volume seen just after it): set theirs again to land last, since the session
        // may be too inactive by then to see that set land over it (8223-65117938).
        if abs(users - value) > VolumeGrid.readTolerance
            || echoes.contains(where: { abs($0.value - users) > VolumeGrid.readTolerance })
        {
            return [.userVolumeChanged(users)] + hold(users, at: time)
        }
        return [.userVolumeChanged(users)]
    }

    /// Time passed: expired echoes are forgotten, unconfirmed sets retried, the exact anchor set once quiet.
    /// `volume` is a live read of the system volume when the driver has one: a set that landed without an
    /// observation (or was dropped) is confirmed (or retried) by reading.
    public mutating func tick(at time: Instant, volume: Float? = nil) -> Actions {
        // Sets whose echo expires now are still read as on their way (a retry is due when the echo expires).
        let inFlight = echoes
        echoes.removeAll { $0.expires <= time }
        guard retrier.isDue(at: time) else { return [] }
        let target = phase == .running ? anchor : userVolume
        // A read only confirms: any other value may be a press whose observation is still on its way. And it
        // confirms only a set of the target that may still be on its way (its echo expiring now at the latest: a
        // set older than the echo's lifetime has landed and been seen, or never lands): with none, the read is a
        // press that ended on the target — a grid press from a down step's nudge onto the anchor, its observation
        // still on its way, also while a retry of the anchor waits for the buttons to be quiet — and no landing of
        // ours.
        let explained = inFlight.contains(volume ?? -1, within: VolumeGrid.readTolerance)
        if let volume, abs(volume - believedVolume) > VolumeGrid.readTolerance, !explained, phase == .running {
            unexplainedRead = Expected(value: volume, until: time + Self.landingWindow)
        }
        if let volume, abs(volume - target) <= VolumeGrid.readTolerance,
            abs(believedVolume - target) > VolumeGrid.readTolerance,
            inFlight.contains(target, within: VolumeGrid.readTolerance)
        {
            echoes.removeAll { abs($0.value - target) <= VolumeGrid.readTolerance }
            believedVolume = volume
            believedFromRead = true
        }
        if abs(believedVolume - target) <= VolumeGrid.readTolerance {
            return confirmIfWanted(at: time)
        }
        let retryAt = time + configuration.retryDelay
        guard retrier.retry(target, retryAt: retryAt, maximumAttempts: configuration.maximumAttempts) else {
            let failed: Actions = [.setFailed(target)]
            if phase == .stopping { phase = .idle; return failed + [.restored] }
            return failed
        }
        return set(target, at: time)
    }

    // MARK: - Helpers

    private func anchorFor(_ volume: Float) -> Float {
        guard mode == .capture else { return volume }
        return VolumeGrid.anchor(for: volume, headroomSteps: configuration.headroomSteps)
    }

    /// Whether a change from `old` to `new` is where a press of the phone's buttons can land (see `VolumeGrid`).
    static func isPressLanding(from old: Float, to new: Float) -> Bool { VolumeGrid.isPressLanding(from: old, to: new) }

    private func classify(from old: Float, to new: Float) -> (VolumeButton, Int)? {
        VolumeGrid.classify(from: old, to: new, atRails: configuration.reportsPressesAtRails)
    }

    /// Makes `target` the value to hold, setting it now if the system is elsewhere.
    private mutating func hold(_ target: Float, at time: Instant) -> Actions {
        if phase == .running, abs(anchor - target) > VolumeGrid.readTolerance {
            anchor = target
            downPress.anchorMoved()
        }
        // A set of another value still in flight would land after this moment: set the target again so it
        // lands last. Sets of the target itself in flight need no other (its landing would be silent, KVO
        // reporting only changes, and its echo would linger).
        let otherInFlight = echoes.contains { abs($0.value - target) > VolumeGrid.readTolerance }
        guard mode == .capture || phase != .running,
            abs(believedVolume - target) > VolumeGrid.readTolerance || otherInFlight
        else {
            retrier.cancel()
            return []
        }
        retrier.want(target, retryAt: time + configuration.retryDelay)
        // A set of this value still on its way lands too (on the new route after a route change): this one is
        // another set on its way, not a retry, so both landings are ours.
        // A slider drops a set equal to its cache (decompiled iOS 18.2). Giving the user's volume back, the cache
        // may still hold their value from an earlier landing — the restore would never land, with no retry once
        // observations stop (an interruption, the background), the route left at the anchor; setting again the
        // value the system already has (to land after a set in flight, on a new route), the cache holds it —
        // the set in flight then lands last. Going a nudge beside it first makes the second set differ from
        // whatever the cache holds.
        guard phase != .running || abs(believedVolume - target) <= VolumeGrid.readTolerance else {
            return set(target, at: time, again: true)
        }
        let beside = target < 1 ? VolumeGrid.clamp(target + VolumeGrid.nudge) : target - VolumeGrid.nudge
        return set(beside, at: time, again: true) + set(target, at: time, again: true)
    }

    private mutating func set(_ value: Float, at time: Instant, again: Bool = false) -> Actions {
        guard abs(believedVolume - value) > VolumeGrid.readTolerance || !echoes.isEmpty || again else { return [] }
        // Sets of one value made for separate presses are counted (a slow slider has several in flight during
        // a burst, each landing once); refused or dropped ones expire after ``Configuration/echoLifetime``.
        // A retry replaces a set that was refused or dropped (it never lands); a new press's reset is
        // another set on its way.
        let echo = recent.issue(value, at: time, lifetime: configuration.echoLifetime)
        echoes.issue(echo, replacing: !again)
        if abs(value - anchor) <= VolumeGrid.readTolerance {
            downPress.anchorSet()
        }
        return [.setVolume(value)]
    }

    private mutating func confirmIfWanted(at time: Instant) -> Actions {
        if abs(believedVolume - anchor) <= VolumeGrid.readTolerance { downPress.anchorConfirmed() }
        guard retrier.confirms(believedVolume) else { return [] }
        return doneIfRestored()
    }

    private mutating func doneIfRestored() -> Actions {
        guard phase == .stopping, !retrier.isWaiting else { return [] }
        phase = .idle
        return [.restored]
    }

    /// A live read after observations had stopped (``resync(volume:at:)``, ``refresh(volume:at:)``): a change
    /// since is the user's (see `UserVolumeInference`), and the read is what the machine believes from here on.
    /// A set issued a moment ago may not have landed yet: a read then of the value before it (the last one
    /// seen, or the one before a set taken as landed) or of a value of ours on its way is ours. Any other read
    /// is a change since — a press made while not capturing, however soon after the set. Later, the value
    /// before a set taken as landed is the user's too: a press after it landed may come back to it.
    private mutating func readBack(_ volume: Float, at time: Instant) -> Actions {
        var actions = Actions()
        let setInFlight = recent.lastSetTime.map { time - $0 < Self.landingWindow } ?? false
        // The value last seen is no change made while observations stopped (every step to it was judged as it
        // came: presses reported are not the user's volume); a set of ours may also have landed meanwhile.
        let ours =
            VolumeGrid.isSame(believedVolume, volume)
            || setInFlight
                && (unconfirmedFrom.map { VolumeGrid.isSame($0, volume) } ?? false
                    || echoes.contains(volume, within: VolumeGrid.readTolerance))
        unconfirmedFrom = nil
        landings.forgetAssumedLanding()
        readChange =
            abs(believedVolume - volume) > VolumeGrid.readTolerance
            ? Expected(value: volume, until: time + ButtonTiming.observationLatency) : nil
        if !retrier.isWaiting, !ours, abs(volume - userVolume) > VolumeGrid.readTolerance {
            let users = UserVolumeInference.afterRead(
                volume, user: userVolume, believed: believedVolume, residue: residue)
            if abs(users - userVolume) > VolumeGrid.readTolerance {
                userVolume = users
                actions.append(.userVolumeChanged(users))
            }
        }
        believedVolume = volume
        believedFromRead = true
        residue = 0
        return actions
    }

}

/// Whether VolumeKit holds the volume still or lets presses change it.
public enum ButtonCaptureMode: String, Sendable, Equatable, CaseIterable {
    /// Presses are reported and the volume is held still: the buttons become plain input.
    case capture
    /// Presses are reported and change the volume as usual (JPSVolumeButtonHandler PR #31, Signal's
    /// passive observation; `shared/facts/volume-buttons.md` §6).
    case passive
}
