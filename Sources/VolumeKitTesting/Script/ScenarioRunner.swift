import Foundation
import VolumeKitCore

/// Which app runs on the simulated device during a scenario.
public enum SimulatedStrategy: String, Sendable, Equatable, CaseIterable {
    /// VolumeKit, ``/VolumeKitCore/ButtonStrategy/outputVolume`` (the default).
    case outputVolume
    /// VolumeKit, ``/VolumeKitCore/ButtonStrategy/systemNotification`` (private API opted in).
    case systemNotification
    /// VolumeKit, ``/VolumeKitCore/ButtonStrategy/captureEvents``.
    case captureEvents
    /// VolumeKit, ``/VolumeKitCore/ButtonStrategy/outputVolume`` in ``/VolumeKitCore/ButtonCaptureMode/passive`` mode.
    case passive
    /// The approach most anchor libraries ship, for comparison (see `BaselineApp`).
    case baseline

    /// The VolumeKit configuration, `nil` for the baseline.
    public var configuration: VolumeButtonsConfiguration? {
        switch self {
        case .outputVolume: VolumeButtonsConfiguration()
        case .systemNotification: VolumeButtonsConfiguration(strategy: .systemNotification, allowsPrivateAPI: true)
        case .captureEvents: VolumeButtonsConfiguration(strategy: .captureEvents)
        case .passive: VolumeButtonsConfiguration(mode: .passive)
        case .baseline: nil
        }
    }
}

/// Runs a ``Scenario`` on a ``SimulatedDevice`` with one app strategy and collects what an observer sees.
public final class ScenarioRunner: @unchecked Sendable {
    /// The device, available once ``run()`` has set it up.
    public private(set) var device: SimulatedDevice!
    /// The scenario.
    public let scenario: Scenario
    /// The app strategy.
    public let strategy: SimulatedStrategy
    /// The device's behaviour: every uncertain iOS rule's value.
    public let behaviour: DeviceBehaviour
    /// How long the runner lets things settle after the last command.
    public var settleTime: TimeInterval = 2

    /// Set before ``run()`` to record the run's trace (`docs/trace.md`), as `volumekit simulate --trace`
    /// does: what crossed the clients of the buttons engine (feature `buttons`), the mute monitor (`mute`)
    /// and launch recovery (`recovery`), each script line's gesture, the app's start and stop calls and the
    /// button events delivered. The header says the trace is synthetic (``/VolumeKitCore/TraceSource/simulator``).
    /// The custom HUD runs on unrecorded clients: it shares the buttons' volume and session, and its own
    /// subscriptions would only repeat the same deliveries.
    public var traceOptions: ScenarioTraceOptions?
    /// The recorder of the last run's trace, when ``traceOptions`` was set; with
    /// ``ScenarioTraceOptions/keepsRecords`` its ``/VolumeKitCore/TraceRecorder/trace`` is the whole trace.
    public private(set) var traceRecorder: TraceRecorder?

    /// The oracle's judgment of the last run (``PressOracle``): every button event against what the user did.
    public private(set) var verdict: Verdict?
    /// Set before ``run()`` to add final-volume problems to the verdict: called with the device at the end, it
    /// returns one sentence per route whose volume is not the user's.
    public var finalVolumeCheck: ((SimulatedDevice) -> [String])?
    /// The oracle the verdict comes from (its bounds and limits).
    public var oracle = PressOracle()
    /// The diagnostics VolumeKit raised in the last run so far, with when each reached the app.
    public var diagnostics: [PressOracle.Diagnostic] { observed.current.diagnostics }

    let records = Locked([ScenarioRecord]())
    /// What the app received, for the oracle: its button events and VolumeKit's diagnostics.
    let observed = Locked((events: [VolumeButtonEvent](), diagnostics: [PressOracle.Diagnostic]()))
    /// When capture was started, while it runs, and the windows it ran in.
    var captureSince: Instant?
    var captureWindows: [Range<Instant>] = []
    /// How many of the device's truth records were delivered.
    private var truthIndex = 0
    /// Lines and bytes of trace written, to stop before the trace outgrows what a reader accepts.
    private let traceSize = Locked((lines: 0, bytes: 0, full: false))
    /// The features started and not stopped, as the trace's `app` records say.
    private var runningFeatures: [String] = []
    private var engine: VolumeButtonsEngine?
    private var baseline: BaselineApp?
    private var mute: MuteSwitchEngine?
    private var hud: VolumeHUDEngine?
    /// The line being run ends with `&`: no waiting for capture or a recovery before the next.
    private var runsAtOnce = false

    /// Creates a runner.
    public init(scenario: Scenario, strategy: SimulatedStrategy = .outputVolume, behaviour: DeviceBehaviour = .default)
    {
        self.scenario = scenario
        self.strategy = strategy
        self.behaviour = behaviour
    }

    /// The most records a run delivers before it stops with ``ScenarioLimitError`` (a day-long hold
    /// auto-repeats about ten times a second, so a script within ``Scenario/maximumVirtualTime`` can
    /// still ask for far more).
    public static let maximumRecords = 100_000
    /// The most records this run delivers (``maximumRecords`` unless a test lowers it).
    public var recordLimit = ScenarioRunner.maximumRecords
    /// How far behind the device's clock records are held before they are delivered, in virtual seconds:
    /// an event can reach the app a little after the time it carries, and records are delivered in time order.
    static let deliveryLookback: TimeInterval = 10

    /// Runs the scenario and returns every record in time order, the end last. A run stopped by
    /// ``recordLimit`` ends with an ``ScenarioRecord/Kind/error(_:)`` record naming the limit.
    @discardableResult
    public func run() -> [ScenarioRecord] {
        var all = [ScenarioRecord]()
        do {
            try run { all.append($0) }
        } catch {
            all.append(ScenarioRecord(time: device?.now, kind: .error(String(describing: error))))
        }
        return all
    }

    /// Runs the scenario and hands each record to `onRecord` as soon as it is final, in time order, the end
    /// last, keeping only the last few virtual seconds' records. Throws ``ScenarioLimitError`` (after the
    /// records so far) when the run would deliver more than ``recordLimit``.
    public func run(onRecord: (ScenarioRecord) -> Void) throws {
        var configuration = SimulatedDevice.Configuration(behaviour: behaviour)
        for line in scenario.lines {
            switch line.command {
            case .ios(let version): configuration.osVersion = version
            case .device(let kind): configuration.kind = kind
            case .volume(let volume): configuration.volume = volume; configuration.headphonesVolume = volume
            case .headphones(let volume): configuration.headphonesVolume = volume
            default: break
            }
        }
        let device = SimulatedDevice(configuration)
        self.device = device
        traceRecorder = traceOptions.map { makeRecorder($0, device) }
        runningFeatures = []
        try withoutActuallyEscaping(onRecord) { onRecord in
            self.onRecord = onRecord
            defer { self.onRecord = nil }
            try run(on: device)
        }
    }

    private func run(on device: SimulatedDevice) throws {
        pending = []
        recordOrder = 0
        logIndex = 0
        truthIndex = 0
        delivered = 0
        lastFlush = device.now
        captureSince = nil
        captureWindows = []
        observed.withLock { $0 = ([], []) }
        verdict = nil
        for line in scenario.lines {
            if !line.command.isSetup {
                let record = ScenarioRecord(time: device.now, kind: .command(line.text))
                records.withLock { $0.append(record) }
            }
            if let gesture = line.command.traceGesture { traceRecorder?.gesture(gesture) }
            runsAtOnce = line.atOnce
            try perform(line.command, on: device)
            try flushIfDue(device)
        }
        try pass(settleTime, on: device)
        try flush(device, all: true)
        try checkTraceSize()
        let verdict = judge(device)
        self.verdict = verdict
        onRecord?(ScenarioRecord(time: nil, kind: .verdict(verdict)))
        let session = device.sessionConfiguration
        onRecord?(
            ScenarioRecord(
                time: nil,
                kind: .end(volume: device.volume, category: session?.category, sessionActive: device.isSessionActive)))
    }

    // Records waiting for delivery, ordered as (time, observer records before system HUD entries, arrival order).
    private var pending = [(time: Instant, group: Int, order: Int, record: ScenarioRecord)]()
    private var recordOrder = 0
    private var logIndex = 0
    private var delivered = 0
    private var lastFlush: Instant = 0
    private var onRecord: ((ScenarioRecord) -> Void)?

    /// Delivers what is final once a minute of virtual time has passed or many records wait.
    private func flushIfDue(_ device: SimulatedDevice) throws {
        try checkTraceSize()
        if device.now - lastFlush >= 60 || records.withLock({ $0.count }) >= 4_096 { try flush(device, all: false) }
    }

    /// Delivers, in order, the records older than ``deliveryLookback`` (all of them at the end).
    private func flush(_ device: SimulatedDevice, all: Bool) throws {
        for record in records.withLock({ taken in
            defer { taken.removeAll() }; return taken
        }) {
            pending.append((record.time ?? 0, 0, recordOrder, record))
            recordOrder += 1
        }
        let log = device.log
        for index in logIndex..<log.count {
            if case .systemHUD(let time, _) = log[index] {
                pending.append((time, 1, index, ScenarioRecord(time: time, kind: .systemHUD)))
            }
        }
        logIndex = log.count
        // What the user did, each press once it is released (its duration known), or all of it at the end.
        let truth = device.truth
        while truthIndex < truth.count {
            if !all, case .press(_, nil, _) = truth[truthIndex].action { break }
            let record = truth[truthIndex]
            pending.append((record.time, -1, truthIndex, ScenarioRecord(time: record.time, kind: .truth(record))))
            truthIndex += 1
        }
        pending.sort { ($0.time, $0.group, $0.order) < ($1.time, $1.group, $1.order) }
        let watermark = device.now - Self.deliveryLookback
        let ready = all ? pending.count : (pending.firstIndex { $0.time >= watermark } ?? pending.count)
        for item in pending[..<ready] {
            // The ground truth is bounded by the script's own limits (``Scenario/maximumPresses``), not counted here.
            if case .truth = item.record.kind {
                onRecord?(item.record)
                continue
            }
            guard delivered < recordLimit else { throw ScenarioLimitError(records: recordLimit) }
            onRecord?(item.record)
            delivered += 1
        }
        pending.removeFirst(ready)
        lastFlush = device.now
    }

    /// Lets `seconds` of virtual time pass, a minute at most at a time, delivering records on the way.
    private func pass(_ seconds: TimeInterval, on device: SimulatedDevice) throws {
        let end = device.now + seconds
        while device.now < end {
            device.advance(to: min(end, device.now + 60))
            try flushIfDue(device)
        }
    }

    private func perform(_ command: Scenario.Command, on device: SimulatedDevice) throws {
        switch command {
        case .ios, .device, .volume, .headphones:
            break
        case .start:
            // A second `start` restarts the app's features rather than leaving the first ones running.
            stopApp()
            startMute(on: device)
            startApp(on: device)
        case .startFeature(let feature):
            stopApp()
            switch feature {
            case .buttons: startApp(on: device, withHUD: false)
            case .hud: startHUD(on: device)
            case .mute: startMute(on: device)
            }
        case .stop:
            stopApp()
        case .press(let button, let count, let every):
            for _ in 0..<count {
                device.press(button)
                try pass(every, on: device)
            }
        case .hold(let button, let seconds, let waits):
            device.hold(button, for: seconds)
            if waits { try pass(seconds, on: device) }
        case .wait(let seconds):
            try pass(seconds, on: device)
        case .slider(let value):
            device.controlCenterSlider(value)
            try pass(device.controlCenterTime(), on: device)
        case .drag(let value):
            device.controlCenterDrag(value)
            try pass(device.controlCenterTime(drag: .series), on: device)
        case .siri(let seconds):
            device.siri(for: seconds)
            try pass(seconds, on: device)
        case .alarm(let seconds, let sendsEnd):
            device.alarm(for: seconds, sendsEnd: sendsEnd)
            try pass(seconds, on: device)
        case .takeover(let component):
            device.takeOverSession(by: component)
        case .camera(let running):
            if running { device.startCamera() } else { device.stopCamera() }
        case .silent(let on):
            device.setSilentMode(on: on)
        case .background:
            device.background()
        case .foreground:
            device.foreground()
        case .interrupt(let began):
            device.interruption(began: began)
        case .call(let began):
            device.phoneCall(began: began)
        case .route(let route):
            device.connect(route)
        case .routeDevice(let route, let name):
            device.connect(route, device: name)
        case .crash:
            endCaptureWindow()
            traceRecorder?.mark("the app crashed")
            runningFeatures = []
            device.crash()
            mute = nil
            engine = nil
            baseline = nil
            hud = nil
        case .launch:
            endCaptureWindow()
            traceRecorder?.mark("the app launched again")
            runningFeatures = []
            device.launch()
            recoverAtLaunch(on: device)
            mute = nil
            engine = nil
            baseline = nil
            hud = nil
        case .mute(let on):
            device.setMuteSwitch(on: on)
        case .mediaReset:
            device.resetMediaServices()
        case .headset(let button, let count, let every):
            for _ in 0..<count {
                device.headsetPress(button)
                try pass(every, on: device)
            }
        case .bluetoothConnect(let value):
            device.connectBluetooth(syncingTo: value)
        case .bluetoothSync(let value):
            device.bluetoothSync(value)
        case .safetyLowering:
            device.headphoneSafetyLowering()
        }
    }

    /// The app also runs the mute monitor (default interval), reporting each change of state.
    private func startMute(on device: SimulatedDevice) {
        let records = self.records
        let engine = MuteSwitchEngine(
            observesVolume: false,
            soundURL: URL(fileURLWithPath: "/VolumeKit.bundle/mute-probe.caf"),
            clients: clients(of: device, feature: "mute"),
            onChange: { [unowned device] change in
                records.withLock { $0.append(ScenarioRecord(time: device.now, kind: .mute(change.new))) }
            }
        )
        mute = engine
        appCalled("start", on: "mute")
        engine.start()
    }

    /// The app's launch code calls `VolumeKit.recoverVolumeIfNeeded()`; the script's next line comes after it.
    private func recoverAtLaunch(on device: SimulatedDevice) {
        let done = Locked(false)
        VolumeRecovery.recoverIfNeeded(
            clients(of: device, feature: "recovery"), onDiagnostic: diagnosticRecorder(device)
        ) { _ in done.withLock { $0 = true } }
        advance(device, until: { done.current }, atMost: 2)
    }

    /// Lets virtual time pass in small steps until `condition` holds, for at most `seconds` — not at all for a
    /// line that runs the next at once (`start … &`, `launch &`).
    private func advance(_ device: SimulatedDevice, until condition: () -> Bool, atMost seconds: TimeInterval) {
        guard !runsAtOnce else { return }
        let deadline = device.now + seconds
        while !condition(), device.now < deadline { device.advance(by: 0.01) }
    }

    private func stopApp() {
        endCaptureWindow()
        for feature in runningFeatures.reversed() { traceRecorder?.appCalled("stop", on: feature) }
        runningFeatures = []
        mute?.stop()
        engine?.stop()
        baseline?.stop()
        hud?.stop()
        hud = nil
    }

    /// `start hud`: VolumeKit's HUD alone with default options, as an app writes README's `.volumeHUD(.island)`
    /// (no capture, no audio of the app's); the script's next line comes once the system HUD is hidden. Its
    /// clients are unrecorded (see ``traceOptions``): the trace notes the start.
    private func startHUD(on device: SimulatedDevice) {
        traceRecorder?.mark("the app started VolumeKit's HUD alone")
        let hud = makeHUD(VolumeHUDOptions(language: .english), on: device)
        self.hud = hud
        hud.start()
        advance(device, until: { hud.isSystemHUDSuppressed }, atMost: 2)
    }

    /// The app's custom HUD: the same Core engine the iPhone runs (`VolumeHUD` is a shell over it), its displays
    /// recorded.
    private func makeHUD(_ options: VolumeHUDOptions, on device: SimulatedDevice) -> VolumeHUDEngine {
        let records = self.records
        return VolumeHUDEngine(options: options, clients: device.clients) { display, time in
            records.withLock {
                $0.append(
                    ScenarioRecord(
                        time: time, kind: .hud(level: display.level, visible: display.isVisible, bump: display.bump)))
            }
        }
    }

    private func startApp(on device: SimulatedDevice, withHUD: Bool = true) {
        let clients = clients(of: device, feature: "buttons")
        let records = self.records
        let recorder = traceRecorder
        let observed = self.observed
        let onEvent: @Sendable (VolumeButtonEvent) -> Void = { event in
            records.withLock { $0.append(ScenarioRecord(time: event.time, kind: .button(event.button, event.phase))) }
            observed.withLock { $0.events.append(event) }
            recorder?.buttonEvent(event)
        }
        captureSince = device.now
        device.markDisturbance()
        // An app capturing through AVCaptureEventInteraction is a camera app: its camera runs first.
        if strategy == .captureEvents, !device.isCameraRunning { device.startCamera() }
        guard let configuration = strategy.configuration else {
            let app = BaselineApp(clients: clients, onEvent: onEvent)
            baseline = app
            appCalled("start", on: "buttons")
            app.start()
            return
        }
        // Unrecorded: the HUD follows the same volume and session as the buttons (see ``traceOptions``), whose
        // hold on the session it shares without joining it (as before `start hud` existed).
        let hud = withHUD ? makeHUD(VolumeHUDOptions(sessionActivation: .never, language: .english), on: device) : nil
        self.hud = hud
        hud?.start()
        let engine = VolumeButtonsEngine(
            configuration: configuration,
            clients: clients,
            onEvent: { event in
                onEvent(event)
                hud?.handle(event)
            },
            onDiagnostic: diagnosticRecorder(device)
        )
        self.engine = engine
        device.setCaptureClaim { [weak engine] in engine?.isCapturing ?? false }
        appCalled("start", on: "buttons")
        do {
            try engine.start()
        } catch {
            records.withLock { $0.append(ScenarioRecord(time: device.now, kind: .error(String(describing: error)))) }
            // The app was told capture could not start: nothing is captured (the oracle expects no press).
            captureSince = nil
            device.setCaptureClaim(nil)
            return
        }
        // `start()` returns at once; capture begins when the volume view is ready. A script's next line
        // happens after that, as an app would await readiness before relying on capture.
        // The view may take up to 1 s to be ready (`DeviceBehaviour.volumeViewReadyDelay`), then the anchor is set.
        advance(device, until: { engine.isCapturing && hud?.isSystemHUDSuppressed ?? true }, atMost: 2)
    }
}

// MARK: - The trace

extension ScenarioRunner {
    private func makeRecorder(_ options: ScenarioTraceOptions, _ device: SimulatedDevice) -> TraceRecorder {
        traceSize.withLock { $0 = (0, 0, false) }
        let limits = options.limits
        let size = traceSize
        let onLine = options.onLine
        let note = options.note ?? "volumekit simulate; rules: " + behaviour.assignments.joined(separator: " ")
        // Lines past the reader's limits are dropped and the run stops at the next check with
        // ``ScenarioTraceLimitError``: the file keeps only what `volumekit trace` can read back.
        return TraceRecorder(
            header: .simulator(device, strategy: strategy, note: note), clock: device.clock,
            keepsRecords: options.keepsRecords,
            onLine: { line in
                let kept = size.withLock { size -> Bool in
                    guard !size.full else { return false }
                    // The header is not a record: the reader counts records only.
                    if size.bytes + line.utf8.count + 1 > limits.maxFileBytes || size.lines > limits.maxRecords {
                        size.full = true
                        return false
                    }
                    size.lines += 1
                    size.bytes += line.utf8.count + 1
                    return true
                }
                if kept { onLine?(line) }
            })
    }

    private func checkTraceSize() throws {
        guard traceRecorder != nil, let limits = traceOptions?.limits else { return }
        let size = traceSize.current
        guard size.full else { return }
        throw ScenarioTraceLimitError(records: size.lines - 1, bytes: size.bytes, limits: limits)
    }

    private func clients(of device: SimulatedDevice, feature: String) -> VolumeKitClients {
        guard let traceRecorder else { return device.clients }
        return device.clients.recording(to: traceRecorder, feature: feature)
    }

    private func appCalled(_ call: String, on feature: String) {
        if call == "start" { runningFeatures.append(feature) }
        traceRecorder?.appCalled(call, on: feature)
    }
}
