import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A simulated iPhone or iPad, driven in virtual time, that reproduces how iOS's volume hardware, audio
/// session and app lifecycle behave in the situations VolumeKit's users hit.
///
/// Every rule that is an assumption rather than a known fact reads its value from the device's
/// ``DeviceBehaviour`` (default, range and sources per rule); the rest name their source where they are
/// written. The rules live by family, one file each: buttons and volume (`SimulatedDevice+Buttons.swift`),
/// session and interruptions (`+Session`), routes (`+Routes`), HUD suppression (`+HUD`), lifecycle
/// (`+Lifecycle`), sounds (`+Sounds`), and the app's clients (`+Clients`). A rule changes only when a source
/// says iOS behaves differently — never to make the library pass.
///
/// The device hands the app its ``clients``; the app (VolumeKit's engines) sees only what a real app would.
/// The test or script plays the user: ``press(_:)``, ``hold(_:for:)``, ``controlCenterSlider(_:)``,
/// ``background()``, ``interruption(began:)``, ``phoneCall(began:)``, ``connect(_:)``, ``crash()``, ``launch()``;
/// other sources of the volume (`+OtherSources`): ``headsetPress(_:)``, ``bluetoothSync(_:)``,
/// ``connectBluetooth(headset:syncingTo:)``, ``headphoneSafetyLowering()``.
/// Nothing happens until virtual time moves: ``advance(by:)``.
public final class SimulatedDevice: @unchecked Sendable {
    /// The device, its starting volumes and its behaviour.
    public struct Configuration: Sendable {
        /// The iOS version whose rules apply.
        public var osVersion: OSVersion
        /// iPhone or iPad.
        public var kind: DeviceKind
        /// The user's speaker volume before the app launches.
        public var volume: Float
        /// The user's headphones (and other routes') volume before the app launches.
        public var headphonesVolume: Float
        /// Every uncertain rule's value (default: today's best guess for each).
        public var behaviour: DeviceBehaviour

        /// Creates a configuration; defaults are an iPhone on iOS 17.4 at half volume, default behaviour.
        public init(
            osVersion: OSVersion = OSVersion(17, 4),
            kind: DeviceKind = .iphone,
            volume: Float = 0.5,
            headphonesVolume: Float = 0.5,
            behaviour: DeviceBehaviour = .default
        ) {
            self.osVersion = osVersion
            self.kind = kind
            self.volume = volume
            self.headphonesVolume = headphonesVolume
            self.behaviour = behaviour
        }

        /// How long after a change KVO reaches the app (``DeviceBehaviour/kvoLatency``).
        public var kvoLatency: TimeInterval { behaviour.kvoLatency }
        /// How long after `setVolume` the slider's value reaches the system (``DeviceBehaviour/sliderLatency``).
        public var sliderLatency: TimeInterval { behaviour.sliderLatency }
        /// How long after creation an `MPVolumeView` is ready (``DeviceBehaviour/volumeViewReadyDelay``).
        public var volumeViewReadyDelay: TimeInterval { behaviour.volumeViewReadyDelay }
        /// How long a button is held for a single press (``DeviceBehaviour/tapLength``).
        public var tapLength: TimeInterval { behaviour.tapLength }

        /// The volume `route` has as the device starts: ``volume`` on the speaker, ``headphonesVolume`` on every
        /// other route, each clamped to 0…1.
        public func startingVolume(on route: AudioRoute) -> Float {
            SimulatedDevice.clamp(route == .speaker ? volume : headphonesVolume)
        }
    }

    /// One volume step: 1/16 (seed 002: "每次变化量都是 6.25%，连续按16次"; `shared/facts/volume-buttons.md` §7).
    /// How a press applies it is ``DeviceBehaviour/stepQuantization``.
    public static let step: Float = 1.0 / 16.0
    /// From iOS 11, a programmatic set during a volume-down press cycle to a value ≥ the value before the
    /// press (other than 0) is refused under ``DeviceBehaviour/DownPressRefusal/seedShape`` (seed 000:
    /// "iOS11下调小音量的事件周期结束前是不允许设置的新值大于或等于旧值(0除外)").
    public static let downPressRefusalSince = OSVersion(11)
    /// From iOS 15 the private notification is `SystemVolumeDidChange` with short keys, and fires only while
    /// an `MPVolumeView` exists (react-native-system-setting #134, Signal-iOS `VolumeButtons.swift`;
    /// `shared/facts/volume-buttons.md` §2).
    public static let renamedNotificationSince = OSVersion(15)
    /// `AVCaptureEventInteraction` exists from iOS 17.2 (`shared/facts/volume-buttons.md` §3).
    public static let captureEventsSince = OSVersion(17, 2)

    let lock = PosixLock(recursive: true)
    /// The configuration the device was created with.
    public let configuration: Configuration
    /// The behaviour in force (the configuration's).
    public var behaviour: DeviceBehaviour { configuration.behaviour }
    var timeline = Timeline()
    var currentTime: Instant = 0

    // The hardware.
    var volumes: [AudioRoute: Float]
    var currentRoute: AudioRoute = .speaker
    var callVolumeLevel: Float = 0.6
    var ringerVolumeLevel: Float = 0.5
    var callInProgress = false
    /// An alarm (or other interrupting audio) holds the audio hardware: activation fails meanwhile.
    var alarmRinging = false
    var heldButton: HeldButton?
    var otherAudio = false
    var persistentStore: [String: Data] = [:]
    var entries: [DeviceLogEntry] = []
    var logObserver: ((DeviceLogEntry) -> Void)?
    /// What the volume view's slider believes the volume is (``DeviceBehaviour/DownPressRefusal/cachedEqualSetDrop``).
    var sliderCache: Float
    /// App actions that came due while the app was suspended in the background.
    var suspendedActions: [() -> Void] = []
    /// Sound playback state (the Ring/Silent switch and system sounds live in `SimulatedDevice+Sounds.swift`).
    var sounds = SimulatedSounds()
    /// What the user physically did, in order (``truth``; `Oracle/GroundTruth.swift`).
    var truthLog: [TruthRecord] = []
    /// The headset routes whose EU warning the user has passed (``DeviceBehaviour/HeadphoneLimit/euWarning``).
    var limitWarned: Set<AudioRoute> = []
    /// When capture was last disturbed (``PressContext/sinceDisturbance``).
    var lastDisturbance: Instant = -.infinity
    /// An interruption began (another app's audio, Siri, an alarm) and nothing has ended it yet: no end, and the
    /// app has not become active since (``PressContext/Visibility/interrupted``).
    var audioInterrupted = false
    /// Asked when a button goes down: whether the app's capture claims to be capturing then.
    var captureClaimProvider: (@Sendable () -> Bool)?

    /// When the device booted, in seconds since 1970 (wall clock minus uptime); ``reboot()`` moves it.
    var bootWallTime: TimeInterval = 1_800_000_000
    /// The reason and ports of the last route change delivered.
    var lastRouteChange: RouteChange?
    /// The details of the last interruption delivered (``deliver(_:details:)``).
    var lastInterruption: InterruptionDetails?
    /// The current Bluetooth headset's port UID, and the other headsets' volumes (each keeps its own).
    var bluetoothPort = SimulatedDevice.defaultBluetoothPort
    var otherHeadsetVolumes: [String: Float] = [:]
    /// The current external device's port UID (an AirPlay speaker's), and the other devices' volumes.
    var externalPort = SimulatedDevice.defaultExternalPort
    var otherExternalVolumes: [String: Float] = [:]

    // The app's process: `nil` when not running.
    var app: AppProcess?
    var generation = 0
    var nextObserverID = 0

    struct HeldButton {
        let button: VolumeButton
        /// The volume before the press: iOS 11+ refuses sets ≥ this during a down press (seed 000).
        let valueBeforePress: Float
        var repeatTimer: Int?
        var releaseTimer: Int?
        /// The press's index in ``truthLog``.
        var truthIndex: Int?
    }

    struct VolumeView {
        var ready: Bool
        var alpha: Float
        var hidden: Bool
        var inActiveSceneWindow: Bool
        var visible: Bool {
            inActiveSceneWindow && !hidden && alpha >= SimulatedDevice.visibleAlphaThreshold
        }
    }

    struct AppProcess {
        var state: AppState = .active
        /// In the background and no longer running code (``DeviceBehaviour/suspensionDelay`` after entering it).
        var isSuspended = false
        var suspensionTimer: Int?
        var sessionActive = false
        var configuration = AudioSessionConfiguration.systemDefault
        /// The session's mode (`AVAudioSession.Mode`), set by the app itself (VolumeKit keeps it).
        var mode = SessionMode.default
        /// Until when the primer's silent sound plays (deactivation fails meanwhile: `sessionBusy`).
        var primingUntil: Instant?
        var hasPlayedAudio = false
        /// Another component took the session over: KVO stops and the HUD returns until the app activates
        /// its session again (``DeviceBehaviour/SessionTakeover/deactivates``).
        var sessionTakenOver = false
        /// The app's camera session is running (capture events need it, ``DeviceBehaviour/captureEventsGate``).
        var cameraRunning = false
        /// The system deactivated the active session of the app as it was suspended in the background: iOS says
        /// so when the app runs again (``DeviceBehaviour/lateInterruptionBegan``).
        var sessionLostToSuspension = false
        /// What `outputVolume` reads while the app is not live (seed 001).
        var staleVolume: Float
        var volumeObservers: [Int: @Sendable (Float) -> Void] = [:]
        var notificationObservers: [Int: @Sendable (SystemVolumeNotification) -> Void] = [:]
        var lifecycleObservers: [Int: @Sendable (AppLifecycleEvent) -> Void] = [:]
        /// Told of the interruptions the app's lifecycle client withholds (``deliverWithheld(_:)``).
        var withheldInterruptionObservers: [Int: @Sendable (InterruptionDetails) -> Void] = [:]
        var captureObservers: [Int: @Sendable (CaptureEvent) -> Void] = [:]
        var volumeViews: [Int: VolumeView] = [:]
        var sequenceNumber = 1000
        /// The app's VolumeKit session lease: app-process state, new at each launch.
        let sessionLease = AudioSessionLease()
        /// The app's hold board (capture → HUD): app-process state, new at each launch.
        let holdBoard = VolumeHoldBoard()
    }

    /// Creates a device; the app is launched at time 0.
    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
        var volumes: [AudioRoute: Float] = [:]
        for route in AudioRoute.allCases { volumes[route] = configuration.startingVolume(on: route) }
        self.volumes = volumes
        sliderCache = volumes[.speaker]!
        launch()
    }

    // MARK: - Observing the device (for tests and the script runner)

    /// The current virtual time.
    public var now: Instant { locked { currentTime } }
    /// The output volume of the current route, as the hardware has it (not as the app may read it).
    public var volume: Float { locked { volumes[currentRoute]! } }
    /// The volume a route keeps (each route has its own).
    public func volume(on route: AudioRoute) -> Float { locked { volumes[route]! } }
    /// The current output route.
    public var route: AudioRoute { locked { currentRoute } }
    /// The phone-call volume, which the buttons change during a call.
    public var callVolume: Float { locked { callVolumeLevel } }
    /// The ringer volume, which the buttons change while the app is idle under ``DeviceBehaviour/IdleButtons/ringer``.
    public var ringerVolume: Float { locked { ringerVolumeLevel } }
    /// Whether the app's process is running.
    public var isAppRunning: Bool { locked { app != nil } }
    /// The app's state, `nil` when it is not running.
    public var appState: AppState? { locked { app?.state } }
    /// Whether the app's audio session is active.
    public var isSessionActive: Bool { locked { app?.sessionActive ?? false } }
    /// Whether the app is running but suspended in the background (``DeviceBehaviour/suspensionDelay`` after it
    /// entered it): it runs no code, so no notification reaches it.
    public var isAppSuspended: Bool { locked { app?.isSuspended ?? false } }
    /// The app's audio session configuration.
    public var sessionConfiguration: AudioSessionConfiguration? { locked { app?.configuration } }
    /// Whether another app is playing audio; VolumeKit must never stop it.
    public var isOtherAudioPlaying: Bool {
        get { locked { otherAudio } }
        set { locked { otherAudio = newValue } }
    }
    /// Everything notable that happened, in time order.
    public var log: [DeviceLogEntry] { locked { entries } }
    /// The times the system volume HUD appeared (for presses and for the app's own sets).
    public var systemHUDTimes: [Instant] {
        log.compactMap { entry in
            switch entry {
            case .systemHUD(let time, _), .systemHUDForSet(let time, _): return time
            default: return nil
            }
        }
    }
    /// The number of `MPVolumeView`s the app has in its windows.
    public var volumeViewCount: Int { locked { app?.volumeViews.count ?? 0 } }
    /// The key-value store's contents, which survive crashes and launches.
    public var storedValues: [String: Data] { locked { persistentStore } }

    // MARK: - Time

    /// Runs everything due in the next `seconds` of virtual time.
    public func advance(by seconds: TimeInterval) {
        advance(to: now + seconds)
    }

    /// Runs everything due up to `time`, in order, and leaves the clock at `time`.
    public func advance(to time: Instant) {
        lock.lock()
        defer { lock.unlock() }
        while let (due, action) = timeline.popDue(notAfter: time) {
            currentTime = max(currentTime, due)
            action()
        }
        currentTime = max(currentTime, time)
    }

    /// Schedules a device-side action `delay` seconds from now.
    @discardableResult
    func after(_ delay: TimeInterval, _ action: @escaping () -> Void) -> Int {
        timeline.schedule(at: currentTime + max(0, delay), action)
    }

    /// Schedules an action in the app's process: dropped if the app crashes or relaunches first, and held
    /// while the app is suspended — a suspended app runs no code, its timers fire when it comes back
    /// (Apple, "Managing your app's life cycle": suspended apps remain in memory but do not execute code).
    @discardableResult
    func inApp(after delay: TimeInterval, _ action: @escaping () -> Void) -> Int {
        let launched = generation
        return after(delay) { [unowned self] in
            guard self.generation == launched, self.app != nil else { return }
            if self.app?.isSuspended == true {
                self.suspendedActions.append(action)
            } else {
                action()
            }
        }
    }

    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    func record(_ entry: DeviceLogEntry) {
        entries.append(entry)
        logObserver?(entry)
    }

    /// Calls `observer` with each log entry at the virtual instant it happens, inside the device's run of
    /// that instant (so a test can ask the app's own state then — e.g. whether VolumeKit held the volume when
    /// a press moved it). One observer at a time; `nil` removes it.
    public func observeLog(_ observer: ((DeviceLogEntry) -> Void)?) {
        locked { logObserver = observer }
    }

    func cancelTimeline(_ id: Int) { timeline.cancel(id) }

    func storedValue(_ key: String) -> Data? { locked { persistentStore[key] } }

    func store(_ data: Data?, _ key: String) { locked { persistentStore[key] = data } }

    static func clamp(_ value: Float) -> Float { min(1, max(0, value)) }

    /// Delivers `event` to the app's lifecycle observers; an interruption's `details` (by default what the
    /// event says, with the reason iOS gives from 14.5) are the lifecycle client's `lastInterruption` meanwhile.
    func deliver(_ event: AppLifecycleEvent, details: InterruptionDetails? = nil) {
        guard let app else { return }
        if let interruption = details ?? interruptionDetails(of: event) { lastInterruption = interruption }
        let observers = app.lifecycleObservers.sorted { $0.key < $1.key }.map(\.value)
        for observer in observers { observer(event) }
    }

    func newObserverID() -> Int {
        nextObserverID += 1
        return nextObserverID
    }

    /// The app's process generation: clients made for an earlier process do nothing.
    var currentGeneration: Int { generation }

    func isCurrent(_ launched: Int) -> Bool { generation == launched && app != nil }
}

extension SimulatedDevice.Configuration {
    /// Creates a configuration from the default behaviour with its timing rules set: the 0.1 form, kept so
    /// that tests written against it keep compiling (each value lands in ``DeviceBehaviour``).
    public init(
        osVersion: OSVersion = OSVersion(17, 4),
        kind: DeviceKind = .iphone,
        volume: Float = 0.5,
        headphonesVolume: Float = 0.5,
        kvoLatency: TimeInterval = DeviceBehaviour.default.kvoLatency,
        sliderLatency: TimeInterval = DeviceBehaviour.default.sliderLatency,
        volumeViewReadyDelay: TimeInterval = DeviceBehaviour.default.volumeViewReadyDelay,
        tapLength: TimeInterval = DeviceBehaviour.default.tapLength
    ) {
        var behaviour = DeviceBehaviour.default
        behaviour.kvoLatency = kvoLatency
        behaviour.sliderLatency = sliderLatency
        behaviour.volumeViewReadyDelay = volumeViewReadyDelay
        behaviour.tapLength = tapLength
        self.init(
            osVersion: osVersion, kind: kind, volume: volume, headphonesVolume: headphonesVolume, behaviour: behaviour)
    }
}

extension SimulatedDevice {
    /// The default behaviour's delay before a held button's first auto-repeat (``DeviceBehaviour/firstRepeatDelay``).
    public static var firstRepeatDelay: TimeInterval { DeviceBehaviour.default.firstRepeatDelay }
    /// The default behaviour's auto-repeat interval after the first (``DeviceBehaviour/repeatInterval``).
    public static var repeatInterval: TimeInterval { DeviceBehaviour.default.repeatInterval }
}
