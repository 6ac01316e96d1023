import Foundation
import TestSupport
import Testing
import VolumeKitCore
import VolumeKitTesting

/// One randomized session: a simulated device, an app that captures with VolumeKit, and a user who presses,
/// holds, drags Control Center's slider, switches apps, takes calls, plugs headphones in and out, and whose
/// app crashes. `truth` is the user's own volume per route, kept from what the device did, independently of
/// VolumeKit: it changes only when the user moves the volume while VolumeKit is not holding it.
final class RandomSession {
    let device: SimulatedDevice
    let strategy: SimulatedStrategy
    var truth: [AudioRoute: Float] {
        didSet {
            for (route, value) in truth where oldValue[route] != value {
                truthHistory[route, default: []].append((device.now, value))
            }
        }
    }
    /// When each route's user volume (``truth``) changed, and to what.
    var truthHistory: [AudioRoute: [(at: Instant, value: Float)]] = [:]
    /// Each route's user volume when the session began.
    var initialTruth: [AudioRoute: Float] = [:]
    private var engine: VolumeButtonsEngine?
    private var rng: SeededRandom
    /// The wider world's own generator (`RandomSession+World.swift`), `nil` for a session of the earlier world.
    var world: SeededRandom?
    var script: [String] = []
    private var inCall = false
    /// The route VolumeKit last ran on at the end of a run (stop, or recovery at launch).
    private var lastRunRoute: AudioRoute? {
        get { lastRun.current }
        set { lastRun.withLock { $0 = newValue } }
    }
    /// Set from the launch recovery's completion too, whenever it comes.
    private let lastRun = Locked<AudioRoute?>(nil)
    private var interrupted = false
    /// Every diagnostic VolumeKit reported during the session.
    let diagnostics = Locked([VolumeButtonsDiagnostic]())
    /// The launch recoveries' diagnostics, with when each came.
    let recoveryDiagnostics = Locked([PressOracle.Diagnostic]())
    /// When the app ended (a crash, a kill), each time.
    private(set) var appEnds: [Instant] = []
    /// What the app received, for the event oracle (``PressOracle``): its button events and VolumeKit's
    /// diagnostics with when each came.
    let observed = Locked((events: [VolumeButtonEvent](), diagnostics: [PressOracle.Diagnostic]()))
    /// When the running engine was started, and the windows earlier engines ran in.
    private var captureSince: Instant?
    private var captureWindows: [Range<Instant>] = []
    /// Per route, the rail (0 or 1) the user last pressed toward while the volume was already there and VolumeKit
    /// did not hold it: the press changed nothing, so `outputVolume` showed nothing. Cleared by a later change
    /// of the user's there that moved the volume (a press or Control Center).
    private(set) var unseenRailPress: [AudioRoute: Float] = [:]
    /// Routes whose ``unseenRailPress`` was made while the app was not running (after a crash, before the launch)
    /// or while the launch recovery ran: no strategy sees it then — the recovery reads the volume with
    /// `outputVolume`, whatever the crashed run's strategy (``VolumeRecovery``: the private notification needs the
    /// app's opt-in, which the recovery is not given).
    var unseenRailPressAppDown: Set<AudioRoute> = []
    /// Whether a launch recovery is running (from `launch` until its completion).
    private let recoveryRunning = Locked(false)
    /// The last volume the device's log showed per route.
    private var shown: [AudioRoute: Float] = [:]
    /// VolumeKit's own nudges left in a route's volume (its last set landed this far off the user's volume: within
    /// ``VolumeStepMachine/residueTolerance``, or within ``RecoveryRule/tolerance`` when no headroom anchor of
    /// VolumeKit's is in between), carried by the presses made from there.
    private var carried: [AudioRoute: Float] = [:]
    /// Routes where VolumeKit's last landing on the 1/16 grid was away from the user's volume (a headroom anchor),
    /// not since back at their volume, nor changed by the user.
    private var anchoredAway: [AudioRoute: Bool] = [:]
    /// When each route last became current (the session's own `route` actions).
    var routeSince: [AudioRoute: Instant] = [:]
    /// Routes where a set of VolumeKit's landed away from the user's volume no later than ``DeviceBehaviour/sliderLatency``
    /// after the route became current: issued on the route before, it overwrote this route's own volume before
    /// VolumeKit could have seen the change. Cleared when the user sets the route's volume by Control Center.
    private(set) var landedAcrossRouteChange: Set<AudioRoute> = []
    /// Every Control Center change: when, where, its value, the user's volume before it and the values VolumeKit's
    /// landings left on that route since the user's last change there.
    var controlCenterChanges: [(at: Instant, route: AudioRoute, value: Float, before: Float, left: [Float])] =
        []
    /// Per route, the user's last Control Center choice when it was the value the route already had (no change,
    /// so nothing iOS reports — no KVO, no notification): when, and the user's volume before it.
    var unchangedControlCenter: [AudioRoute: (at: Instant, before: Float)] = [:]
    /// Per route, the first of the Control Center changes made since while the app's session was inactive: when,
    /// the value the route showed before it and the values VolumeKit's sets had left there, and the user's volume
    /// then.
    private var unobservedChanges: [AudioRoute: (at: Instant, shown: [Float], user: Float)] = [:]
    /// Per route, when such changes ended back on the value shown before the first (the user's last choice), and
    /// the user's volume before them.
    var unobservedReturn: [AudioRoute: (at: Instant, before: Float)] = [:]
    /// When each of VolumeKit's sets reached the system, and its value.
    var appSets: [(at: Instant, value: Float)] = []
    /// When and where the user pressed while VolumeKit did not hold the volume.
    var userPressTimes: [(at: Instant, route: AudioRoute)] = []
    /// A run of the user's presses on a route (``pressRun``).
    struct PressRun {
        /// When its first press was made.
        var at: Instant
        /// VolumeKit could see none of its presses.
        var unseen: Bool
        /// The app made its session live since the run's last press.
        var readSince = false
        /// When its last press made while the app was running came, if one was.
        var lastWhileRunning: Instant?
    }

    /// The values of VolumeKit's landings per route since the user's last change there.
    private var appLeft: [AudioRoute: [Float]] = [:]
    /// Per route, the values captured presses left there (VolumeKit holding the volume, its reset to come) since
    /// the user's last change there, each with when it landed; and when VolumeKit's last set landed there.
    private var capturedLeft: [AudioRoute: [(at: Instant, value: Float)]] = [:]
    private var lastAppLanding: [AudioRoute: Instant] = [:]
    /// Per route, the value of a set of VolumeKit's iOS refused there (a held down press) or dropped (no volume view
    /// ready), not landed since, and when.
    private var refused: [AudioRoute: (value: Float, at: Instant)] = [:]
    /// Per route in ``pressedOntoRefusedSet``, when the refused set the press ended on was made.
    private(set) var refusedSetPressedOnto: [AudioRoute: Instant] = [:]
    /// Per route, how far the volume VolumeKit kept is from the user's after another source moved it a press's
    /// step while VolumeKit held it (the user's volume before that change, minus the change's): the user's later
    /// presses move both alike; a change of theirs by other means ends it.
    var otherSourceOffset: [AudioRoute: Float] = [:]
    /// Per route, the last change another source made (a Bluetooth headset's stored volume synchronised,
    /// Headphone Safety), and whether the app's session was active then.
    private var otherSourceChange: [AudioRoute: (at: Instant, value: Float, sessionActive: Bool)] = [:]
    /// Per route, the last change another source made while it stays the user's last there: when, its value, the
    /// user's volume before it, and whether the app could read it (running; with KVO its session active, with the
    /// system notification not suspended — the notification reaches an app whose session a call holds).
    private var lastOtherSource: [AudioRoute: (at: Instant, value: Float, before: Float, readable: Bool)] = [:]
    /// Per route, such a change no app could see — a set of VolumeKit's in flight landed within the slider's
    /// latency after it, on its very value (one KVO for both) or over it while the app could not read it — and
    /// the user's volume before it: the limit `RandomSession.isUnderUnseenOtherSource`.
    var unseenOtherSource: [AudioRoute: (at: Instant, before: Float)] = [:]
    /// The routes the limits judge, when one route at a time (``finalVolumeLimit``); `nil`: every route.
    var judgedRoutes: Set<AudioRoute>?
    /// Per route, how far a set of VolumeKit's in flight moved the user's volume when it landed over another
    /// source's change the app could not read (its session inactive): the set's value minus that change's.
    var overwrittenOtherSource: [AudioRoute: Float] = [:]
    /// Routes whose user volume was last set by a press (VolumeKit not holding) that ended exactly on a value of a
    /// set of VolumeKit's iOS had refused or dropped there.
    private(set) var pressedOntoRefusedSet: Set<AudioRoute> = []
    /// Per route, when the user's current run of presses (VolumeKit not holding; no other change of theirs since)
    /// began; whether VolumeKit could see none of it (`unseen`: every press made while the app was not running, or
    /// while it ran with its session not live — no KVO, stale reads, or for the private notification the app
    /// suspended; a press it could see after one it could not begins a run of its own); and whether the app has
    /// made its session live since the run's last press (`readSince`: it read the volume those presses left, so
    /// the next press begins a run of its own).
    private(set) var pressRun: [AudioRoute: PressRun] = [:]
    /// When the app made its session live while running (it reads the volume then).
    private(set) var sessionLiveAgain: [Instant] = []
    /// Per route, when the user's presses (VolumeKit not holding) began from a value VolumeKit's sets left there,
    /// and the values its earlier sets — or captured presses whose resets were to come — had left there before
    /// its last (kept press after press until another change of the user's).
    private var leftBeforePresses: [AudioRoute: (at: Instant, values: [Float])] = [:]
    /// Per route, when the presses began whose last, made while the app was not running, ended exactly on a value
    /// VolumeKit's sets (or a captured press) had left there before its last one.
    private(set) var pressedOntoEarlierLeft: [AudioRoute: Instant] = [:]
    /// Routes whose user volume was last set by presses (VolumeKit not holding) made from a value VolumeKit's
    /// sets had left there, nudges and all.
    private(set) var pressedFromLeftover: Set<AudioRoute> = []
    /// When set, every script line and device log entry is passed here, with whether VolumeKit held the
    /// volume before the action and the engine's events (for investigating one session).
    var narrate: (@Sendable (String) -> Void)?

    /// A session from `seed`, on a device with `behaviour`; the strategy is drawn from the seed unless given.
    /// With `world`, also the wider world (`RandomSession+World.swift`; `world: false` replays earlier sessions).
    init(seed: UInt64, behaviour: DeviceBehaviour = .default, strategy: SimulatedStrategy? = nil, world: Bool = true) {
        rng = SeededRandom(seed: seed)
        let versions = [OSVersion(15, 0), OSVersion(16, 4), OSVersion(17, 4)]
        let levels: [Float] = [0, 1, 0.5, 0.1, 0.0625, 0.9375, 0.33]
        let speaker = levels.randomElement(using: &rng)!
        let headphones = levels.randomElement(using: &rng)!
        let (os, kind, random) = Self.worldDevice(versions.randomElement(using: &rng)!, seed: world ? seed : nil)
        self.world = random
        let device = SimulatedDevice(
            .init(osVersion: os, kind: kind, volume: speaker, headphonesVolume: headphones, behaviour: behaviour))
        self.device = device
        let drawn: SimulatedStrategy = [.outputVolume, .outputVolume, .systemNotification, .passive].randomElement(
            using: &rng)!
        self.strategy = strategy ?? drawn
        truth = Dictionary(uniqueKeysWithValues: AudioRoute.allCases.map { ($0, device.volume(on: $0)) })
        initialTruth = truth
        shown = truth
        followTruth()
        // The script replays the session exactly: `volumekit simulate --strategy STRATEGY --profile sample:K`.
        script = ["# strategy \(self.strategy)", "ios \(device.configuration.osVersion)"]
        if kind == .ipad { script.append("device ipad") }
        script += ["volume \(speaker)", "headphones \(headphones)"]
    }

    /// How many random actions a session of the sweep takes (`EnvelopeSweepTests`): a named session replays with as
    /// many.
    static let length = 14

    /// Sample `sample`'s session `seed` run as the sweep ran it (``length`` actions), with `strategy`; `world: false`
    /// replays sessions of before the wider world.
    static func replayed(
        _ strategy: SimulatedStrategy, sample: UInt64, seed: UInt64, world: Bool = true
    ) -> RandomSession {
        let session = RandomSession(seed: seed, behaviour: .sample(sample), strategy: strategy, world: world)
        session.run(length: length)
        return session
    }

    /// Runs a session of `length` random actions and ends it with `stop` or a crash and relaunch.
    func run(length: Int) {
        start()
        for _ in 0..<length { randomAction() }
        if inCall { act("call end") { $0.phoneCall(began: false) } }
        if Bool.random(using: &rng) {
            if device.appState == .background { act("foreground") { $0.foreground() } }
            act("stop") { [self] device in
                if engine?.isStarted == true { lastRunRoute = device.route }
                engine?.stop()
                closeCaptureWindow()
            }
        } else {
            crashAndLaunch()
        }
        act("wait 3") { $0.advance(by: 3) }
    }

    private func start() {
        act("start buttons &", wait: 0.4) { [self] device in
            let diagnostics = self.diagnostics
            let narrate = self.narrate
            let observed = self.observed
            closeCaptureWindow()
            captureSince = device.now
            device.markDisturbance()
            let engine = VolumeButtonsEngine(
                configuration: strategy.configuration!, clients: device.clients,
                onEvent: { event in
                    narrate?("    event \(event)")
                    observed.withLock { $0.events.append(event) }
                },
                onUserVolume: { value in narrate?("    userVolume \(value)") },
                onDiagnostic: { [unowned device] diagnostic in
                    narrate?("    diagnostic \(diagnostic)")
                    diagnostics.withLock { $0.append(diagnostic) }
                    observed.withLock { $0.diagnostics.append(PressOracle.Diagnostic(diagnostic, at: device.now)) }
                })
            self.engine = engine
            device.setCaptureClaim { [weak engine] in engine?.isCapturing ?? false }
            do {
                try engine.start()
            } catch {
                // Capture could not start (a call holds the audio): the app was told, nothing is captured.
                captureSince = nil
                device.setCaptureClaim(nil)
            }
        }
    }

    private func crashAndLaunch() {
        // People act a human moment after anything happens (0.1 s), counted from when a set the app issued
        // just before dying has reached the system (`sliderLatency`, up to 0.15 s in the envelope): no design
        // can stop a set already on its way.
        let landed = device.behaviour.sliderLatency
        closeCaptureWindow()
        act("crash", wait: 0.1 + landed) { $0.crash() }
        engine = nil
        // A crashed run ended nowhere: only the records give its route the user's volume back.
        lastRunRoute = nil
        interrupted = false
        if Bool.random(using: &rng) { userPresses() }
        act("launch &", wait: 0.6) { device in
            device.launch()
            // The route VolumeKit ran on is the one where the recovery ends (the route may move before its
            // view is ready); a recovery the session refused (a call holds the audio) keeps its record.
            let lastRun = self.lastRun
            let diagnostics = self.diagnostics
            let recoveryDiagnostics = self.recoveryDiagnostics
            let recoveryRunning = self.recoveryRunning
            recoveryRunning.withLock { $0 = true }
            VolumeRecovery.recoverIfNeeded(
                device.clients,
                onDiagnostic: { [device] diagnostic in
                    diagnostics.withLock { $0.append(diagnostic) }
                    recoveryDiagnostics.withLock { $0.append(PressOracle.Diagnostic(diagnostic, at: device.now)) }
                }
            ) { [device] result in
                recoveryRunning.withLock { $0 = false }
                if case .failed = result {} else { lastRun.withLock { $0 = device.route } }
            }
        }
    }

    private func randomAction() {
        worldTurn()
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<35: userPresses()
        case 35..<45:
            let seconds = Double.random(in: 0.3...1.6, using: &rng)
            let button: VolumeButton = Bool.random(using: &rng) ? .up : .down
            script += ["hold \(button) \(seconds)", "wait 0.1"]
            narrate?("hold \(button) \(seconds)")
            device.hold(button, for: seconds)
            // Played out in 50 ms steps, as every seeded session's timeline has been (`truth` follows each
            // change at its instant either way; one advance would move later times by float rounding).
            var left = seconds + 0.1
            while left > 0 {
                device.advance(by: min(0.05, left))
                left -= 0.05
            }
        case 45..<55:
            let value = Float(Int.random(in: 0...100, using: &rng)) / 100
            act("slider \(value)", wait: device.controlCenterTime() + 0.1, replayedWait: 0.1) {
                $0.controlCenterSlider(value)
            }
        case 55..<65:
            act("background", wait: 0.2) { $0.background() }
            if Bool.random(using: &rng) { userPresses() }
            act("foreground", wait: 0.2) { $0.foreground() }
        case 65..<72:
            if interrupted {
                act("interrupt end", wait: 0.2) { $0.interruption(began: false) }
                interrupted = false
            } else {
                act("interrupt begin", wait: 0.2) { $0.interruption(began: true) }
                interrupted = true
            }
        case 72..<78:
            act(inCall ? "call end" : "call begin", wait: 0.2) { [inCall] in $0.phoneCall(began: !inCall) }
            inCall.toggle()
        case 78..<88:
            let route: AudioRoute = device.route == .speaker ? .headphones : .speaker
            act("route \(route)", wait: 0.3) { [self] device in
                device.connect(route)
                routeSince[route] = device.now
            }
        case 88..<94:
            crashAndLaunch()
            if Bool.random(using: &rng) { start() }
        default:
            let seconds = Double.random(in: 0.05...1.5, using: &rng)
            act("wait \(seconds)") { $0.advance(by: seconds) }
        }
    }

    private func userPresses() {
        let count = Int.random(in: 1...6, using: &rng)
        let every = Double.random(in: 0.05...0.4, using: &rng)
        let button: VolumeButton = Bool.random(using: &rng) ? .up : .down
        script += ["press \(button) x\(count) every \(every)", "wait 0.1"]
        narrate?("press \(button) x\(count) every \(every)")
        for _ in 0..<count {
            device.press(button)
            device.advance(by: every)
        }
        device.advance(by: 0.1)
    }

    /// Whether the app can read the volume now: it runs, and with KVO its session is live; with the private
    /// notification it is not suspended.
    private var appReadsVolume: Bool {
        device.isAppRunning && (strategy == .systemNotification ? !device.isAppSuspended : device.isSessionActive)
    }

    /// Keeps `truth` from the device's log at the instant of each change: a Control Center change is always
    /// the user's; a button's is the user's only when VolumeKit was not holding the volume at that instant
    /// (not capturing, passive, or the app not running).
    private func followTruth() {
        device.observeLog { [unowned self] entry in
            if case .programmaticSet(let at, let value) = entry { appSets.append((at, value)) }
            if case .setRefused(let at, let value) = entry { refused[device.route] = (value, at) }
            if case .setIgnored(let at, let value, "no ready MPVolumeView") = entry {
                refused[device.route] = (value, at)
            }
            if case .appEnded(let at) = entry { appEnds.append(at) }
            // The session live again: VolumeKit reads the volume the presses so far left.
            if case .sessionActivated(let at) = entry, device.isAppRunning {
                sessionLiveAgain.append(at)
                for route in pressRun.keys { pressRun[route]?.readSince = true }
            }
            guard case .volume(let at, let route, let value, let cause) = entry else {
                narrate?("    \(entry)")
                return
            }
            let holding = (engine?.isHoldingVolume ?? false) && device.isAppRunning
            narrate?("    [holding \(holding)] \(entry)")
            let before = shown[route]
            let unchanged = before.map { abs($0 - value) < 1e-6 } ?? false
            shown[route] = value
            switch cause {
            case .controlCenter, .otherSource:
                if case .otherSource = cause {
                    otherSourceChange[route] = (at, value, device.isSessionActive)
                    lastOtherSource[route] = (at, value, truth[route]!, appReadsVolume)
                } else {
                    otherSourceChange[route] = nil
                    lastOtherSource[route] = nil
                }
                unseenOtherSource[route] = nil
                overwrittenOtherSource[route] = nil
                // Another source moving the volume a press's step while VolumeKit holds it is read as a press
                // (nothing tells them apart): the limit `RandomSession.isUnderOtherSourceStep`.
                if case .otherSource = cause, holding, let before, PressOracle.pressCouldLand(from: before, to: value) {
                    // Several such changes in a row (Headphone Safety twice): VolumeKit kept the volume from
                    // before the first.
                    otherSourceOffset[route] = (otherSourceOffset[route] ?? 0) + truth[route]! - value
                } else {
                    otherSourceOffset[route] = nil
                }
                pressedOntoRefusedSet.remove(route)
                pressRun[route] = nil
                pressedFromLeftover.remove(route)
                leftBeforePresses[route] = nil
                pressedOntoEarlierLeft[route] = nil
                let sameAsShown = if case .controlCenter = cause { unchanged } else { false }
                // A Control Center drag in a series repeats its value: the choice, and the user's volume before
                // it, are those of its first change.
                let sameChoice = sameAsShown && unchangedControlCenter[route] != nil && truth[route]! == value
                if !sameChoice { unchangedControlCenter[route] = sameAsShown ? (at, truth[route]!) : nil }
                // Control Center changes made while the app's session is inactive (no KVO, no notification), then
                // one back to the value the route showed before the first of them, or to one VolumeKit's sets left
                // there or its saved record says they did (a set made for it that landed on the next route): a
                // value VolumeKit knows as its last there, so it reads nothing new.
                let inactive = !device.isSessionActive
                if case .controlCenter = cause, inactive || unobservedChanges[route] != nil {
                    let record = PendingRestores.load(from: device.clients.keyValueStore).byRoute[route]
                    let saved = [record?.heldVolume, record?.leftVolume].compactMap { $0 }
                    let known = [before ?? value] + (appLeft[route] ?? []) + saved
                    let first = unobservedChanges[route] ?? (at, known, truth[route]!)
                    let back = first.shown.contains { abs(value - $0) < 1e-6 }
                    unobservedChanges[route] = inactive && !back ? first : nil
                    unobservedReturn[route] = back ? (first.at, first.user) : nil
                } else {
                    unobservedChanges[route] = nil
                    unobservedReturn[route] = nil
                }
                controlCenterChanges.append((at, route, value, truth[route]!, appLeft[route] ?? []))
                appLeft[route] = nil
                capturedLeft[route] = nil
                truth[route] = value
                carried[route] = nil
                anchoredAway[route] = nil
                unseenRailPress[route] = nil
                landedAcrossRouteChange.remove(route)
            case .button:
                // A Bluetooth headset's own buttons stepping its AVRCP absolute volume set the headset's volume. Where
                // a step lands where no press of the phone's buttons can (a step from the value, within VolumeKit's
                // nudges, or a point of the 1/16 grid: the documented rule, judged on the values the app reads), it is
                // the user's volume; where it lands as a side button's would, nothing tells them apart, and it is a
                // press, captured like theirs.
                let absolute =
                    route == .bluetooth && device.behaviour.headsetButtons == .absoluteVolume
                    && device.truth.last.map { record in
                        guard abs(record.time - at) < 1e-9, case .press(_, _, let context) = record.action else {
                            return false
                        }
                        return context.source == .headset
                    } == true
                    && !PressOracle.pressCouldLand(
                        from: device.reported(before ?? value), to: device.reported(value))
                guard !holding || absolute else {
                    capturedLeft[route, default: []].append((at, value))
                    break
                }
                userPressTimes.append((at, route))
                lastOtherSource[route] = nil
                unseenOtherSource[route] = nil
                unobservedChanges[route] = nil
                unobservedReturn[route] = nil
                let fromAppLeft = appLeft[route]?.isEmpty == false
                if fromAppLeft {
                    // A captured press's value before VolumeKit's last set is one it left there too — when that set,
                    // its reset, landed after a crash that followed the capture, so the crashed run never saw it (a
                    // landing it saw told it where the volume was). Held-out session 90791: a press captured through
                    // a volume view not ready, its reset landing after a crash, then the user's press back onto it.
                    let landing = lastAppLanding[route] ?? 0
                    let captured = (capturedLeft[route] ?? []).filter { capture in
                        capture.at < landing && appEnds.contains { $0 > capture.at && $0 < landing }
                    }
                    leftBeforePresses[route] = (at, Array(appLeft[route]!.dropLast()) + captured.map(\.value))
                }
                appLeft[route] = nil
                capturedLeft[route] = nil
                let seen = appReadsVolume
                if var run = pressRun[route], !run.readSince, run.unseen || seen {
                    run.unseen = run.unseen && !seen
                    if device.isAppRunning { run.lastWhileRunning = at }
                    pressRun[route] = run
                } else {
                    pressRun[route] = PressRun(at: at, unseen: !seen, lastWhileRunning: device.isAppRunning ? at : nil)
                }
                if let set = refused[route], abs(set.value - value) <= VolumeStepMachine.readTolerance {
                    pressedOntoRefusedSet.insert(route)
                    refusedSetPressedOnto[route] = set.at
                } else {
                    pressedOntoRefusedSet.remove(route)
                }
                // A press from a volume carrying VolumeKit's nudges moves the user's own volume by whole steps
                // (RecoveryRule and VolumeStepMachine apply it so): the nudge is VolumeKit's, not their choice.
                let steps = ((value - (before ?? value)) / VolumeStepMachine.step).rounded()
                if let nudge = carried[route], let before, steps != 0, value > 0, value < 1,
                    abs(before - truth[route]! - nudge) < 1e-6,
                    abs(value - before - steps * VolumeStepMachine.step) < VolumeStepMachine.pressTolerance
                {
                    truth[route] = min(max(truth[route]! + steps * VolumeStepMachine.step, 0), 1)
                    carried[route] = value - truth[route]!
                    break
                }
                // From a value VolumeKit's sets left there (and on, press after press), the user's volume is the
                // one they pressed to, give or take the sub-step nudges of VolumeKit's in it
                // (``pressedFromLeftover``).
                if fromAppLeft { pressedFromLeftover.insert(route) }
                if let left = leftBeforePresses[route], !device.isAppRunning,
                    left.values.contains(where: { abs($0 - value) <= VolumeStepMachine.readTolerance })
                {
                    pressedOntoEarlierLeft[route] = left.at
                } else {
                    pressedOntoEarlierLeft[route] = nil
                }
                carried[route] = nil
                anchoredAway[route] = nil
                truth[route] = value
                if unchanged, value <= 0 || value >= 1 {
                    unseenRailPress[route] = value
                    if device.isAppRunning, !recoveryRunning.current {
                        unseenRailPressAppDown.remove(route)
                    } else {
                        unseenRailPressAppDown.insert(route)
                    }
                } else if !unchanged {
                    unseenRailPress[route] = nil
                }
            case .app:
                appLeft[route, default: []].append(value)
                lastAppLanding[route] = at
                // A set issued before another source's change (it lands less than the slider's latency after it)
                // overwrites that change: the limit `RandomSession.isUnderOverwrittenOtherSource`.
                if let change = otherSourceChange[route], !change.sessionActive, at >= change.at,
                    at - change.at <= device.behaviour.sliderLatency + 1e-6,
                    abs(value - change.value) > VolumeStepMachine.readTolerance
                {
                    overwrittenOtherSource[route] = value - change.value
                    narrate?("    overwrote another source's \(change.value) by \(value - change.value)")
                }
                // A set issued before another source's change lands on its value (KVO: one change shows both; the
                // system notification posts for each, so not with it), or over it unread: no app could see that
                // change (`RandomSession.isUnderUnseenOtherSource`).
                let oneKVO = strategy != .systemNotification
                if let change = lastOtherSource[route], at >= change.at,
                    at - change.at <= device.behaviour.sliderLatency + 1e-6,
                    oneKVO && abs(value - change.value) <= VolumeStepMachine.readTolerance || !change.readable
                {
                    unseenOtherSource[route] = (change.at, change.before)
                }
                if let set = refused[route], abs(set.value - value) <= VolumeStepMachine.readTolerance {
                    refused[route] = nil
                }
                if let since = routeSince[route], device.now - since <= device.behaviour.sliderLatency + 1e-9,
                    abs(value - truth[route]!) > VolumeStepMachine.readTolerance
                {
                    landedAcrossRouteChange.insert(route)
                }
                // A long hold of the user's own volume leaves more than eight nudges: within RecoveryRule's band
                // they are VolumeKit's too — but not the offset of a headroom anchor (a grid point: 0.125 for the
                // user's 0.11) from the user's volume, nor nudges around that anchor.
                let off = value - truth[route]!
                if abs(off) <= VolumeStepMachine.readTolerance {
                    anchoredAway[route] = nil
                } else if abs(value * 16 - (value * 16).rounded()) < 1e-5 {
                    // Exactly on the grid (a nudge may come within a read of a grid point: 0.69 − 10/4096).
                    anchoredAway[route] = true
                }
                let nudges =
                    abs(off) <= VolumeStepMachine.residueTolerance
                    || (anchoredAway[route] == nil && abs(off) <= RecoveryRule.tolerance)
                carried[route] = abs(off) > VolumeStepMachine.readTolerance && nudges ? off : nil
            }
        }
    }

    /// Ends the window the running engine captured in (a stop or a crash).
    private func closeCaptureWindow() {
        guard let since = captureSince else { return }
        captureSince = nil
        captureWindows.append(since..<device.now)
        device.setCaptureClaim(nil)
        device.markDisturbance()
    }

    /// Every event the app received judged against what the user did (``PressOracle``): the violations no
    /// proven limit explains, and the failures one does.
    func eventVerdict() -> Verdict {
        let windows = captureWindows + (captureSince.map { [$0..<device.now] } ?? [])
        let seen = observed.current
        return PressOracle().judge(
            truth: device.truth, events: seen.events, diagnostics: seen.diagnostics,
            run: PressOracle.Run(observing: device, strategy: strategy, captureWindows: windows))
    }

    /// Does `body` (the script `line`), then lets `wait` seconds pass. The script gets `line` and the wait the
    /// scenario runner needs after it to replay the same timeline (`replayedWait`: what the runner's own command
    /// does not already let pass — a slider's delivery, Siri's or an alarm's length).
    func act(
        _ line: String, wait: TimeInterval = 0, replayedWait: TimeInterval? = nil, _ body: (SimulatedDevice) -> Void
    ) {
        narrate?(line)
        script.append(line)
        body(device)
        guard wait > 0 else { return }
        device.advance(by: wait)
        let replayed = replayedWait ?? wait
        if replayed > 0 { script.append("wait \(replayed)") }
    }

    /// Routes whose volume is not the user's, by the documented rule: the route VolumeKit last ran on (its
    /// stop, or its recovery at launch) holds the user's volume; any other route either holds it too or has a
    /// saved record that gives it back the next time VolumeKit runs on that route.
    func violations() -> [String] {
        violatingRoutes().map { "\($0): volume \(endVolume(on: $0)), user's \(truth[$0]!)" }
    }

    func violatingRoutes() -> [AudioRoute] {
        AudioRoute.allCases.filter { route in
            if let judged = judgedRoutes, !judged.contains(route) { return false }
            let off = abs(endVolume(on: route) - truth[route]!)
            // VolumeKit takes its own sub-step nudges out of presses made from a value its sets left
            // (`RecoveryRule.pressedFromNudge`: whole steps from the user's exact volume); the value they
            // pressed to kept them. Either is the user's: up to eight nudges and a rounded read apart.
            let nudges = VolumeStepMachine.residueTolerance + VolumeStepMachine.readTolerance
            return off >= 1e-4 && !(pressedFromLeftover.contains(route) && off <= nudges)
        }
    }

    /// The volume `route` ends with for the user: the device's, or, on a route VolumeKit is not running on now,
    /// the one a saved record gives back the next time it runs there (``RecoveryRule``). The limits measure how
    /// far this is off the user's volume.
    func endVolume(on route: AudioRoute) -> Float {
        let actual = device.volume(on: route)
        if abs(actual - truth[route]!) < 1e-4 { return actual }
        let reached = route == device.route && route == lastRunRoute
        guard !reached, let record = PendingRestores.load(from: device.clients.keyValueStore).byRoute[route],
            case .restore(let restored) = RecoveryRule.decide(record, currentVolume: actual, uptime: device.now)
        else { return actual }
        return restored
    }
}

@Suite("The user's volume is never lost")
struct RandomSessionsTests {
    @Test("2,000 seeded random sessions end with every route at the user's volume (by the documented rule)")
    func randomSessions() async {
        let sessions = 2_000
        let violations = await offThePool { () -> [String] in
            var violations = [String]()
            for seed in 0..<UInt64(sessions) {
                let session = RandomSession(seed: seed)
                session.run(length: RandomSession.length)
                let problems = session.violations()
                if !problems.isEmpty {
                    violations.append(
                        "seed \(seed): \(problems.joined(separator: "; "))\n  "
                            + session.script.joined(separator: "\n  "))
                }
            }
            print("random sessions: \(sessions), violations: \(violations.count)")
            return violations
        }
        #expect(violations.count == 0, "\(violations.prefix(2).joined(separator: "\n"))")
    }
}
