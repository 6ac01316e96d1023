import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    /// The calibration store's bytes (``/VolumeKitCore/CalibrationStore``): set before ``run()`` to put them in
    /// the device's key-value store, as a later launch would find what an earlier one learned (`simulate
    /// --calibration FILE`); after the run, what the store holds then (`nil` when nothing was ever saved).
    public var storedCalibration: Data?
    /// The diagnostics VolumeKit raised in the last run so far, with when each reached the app.
    public var diagnostics: [PressOracle.Diagnostic] { observed.current.diagnostics }

    let records = Locked([ScenarioRecord]())
    /// What the app received, for the oracle: its button events and VolumeKit's diagnostics.
    let observed = Locked((events: [VolumeButtonEvent](), diagnostics: [PressOracle.Diagnostic]()))
    /// When capture was started, while it runs, and the windows it ran in.
    var captureSince: Instant?
    var captureWindows: [Range<Instant>] = []
    /// How many of the device's truth records were delivered.
    var truthIndex = 0
    /// Lines and bytes of trace written, to stop before the trace outgrows what a reader accepts.
    let traceSize = Locked((lines: 0, bytes: 0, full: false))
    /// The features started and not stopped, as the trace's `app` records say.
    var runningFeatures: [String] = []
    var engine: VolumeButtonsEngine?
    var baseline: BaselineApp?
    var mute: MuteSwitchEngine?
    var hud: VolumeHUDEngine?
    /// The line being run ends with `&`: no waiting for capture or a recovery before the next.
    var runsAtOnce = false

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
        if let storedCalibration { device.keyValueStore.setData(storedCalibration, CalibrationStore.key) }
        traceRecorder = traceOptions.map { makeRecorder($0, device) }
        runningFeatures = []
        try withoutActuallyEscaping(onRecord) { onRecord in
            self.onRecord = onRecord
            defer { self.onRecord = nil }
            try run(on: device)
        }
    }

    func run(on device: SimulatedDevice) throws {
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
        var end = ScenarioRecord(
            time: nil,
            kind: .end(volume: device.volume, category: session?.category, sessionActive: device.isSessionActive))
        end.calibration = engine?.calibration
        storedCalibration = device.keyValueStore.data(CalibrationStore.key)
        onRecord?(end)
    }

    // Records waiting for delivery, ordered as (time, observer records before system HUD entries, arrival order).
    var pending = [(time: Instant, group: Int, order: Int, record: ScenarioRecord)]()
    var recordOrder = 0
    var logIndex = 0
    var delivered = 0
    var lastFlush: Instant = 0
    var onRecord: ((ScenarioRecord) -> Void)?
}
