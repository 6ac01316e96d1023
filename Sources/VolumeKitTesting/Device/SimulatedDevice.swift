import Foundation
import VolumeKitCore

/// A simulated iPhone or iPad, driven in virtual time, that reproduces how iOS's volume hardware, audio
/// session and app lifecycle behave in the situations VolumeKit's users hit.
///
/// Each rule below names its source (a seed article in `shared/seeds/` or a fact in `shared/facts/`). A rule
/// changes only when a source says iOS behaves differently — never to make the library pass.
///
/// The device hands the app its ``clients``; the app (VolumeKit's engines) sees only what a real app would.
/// The test or script plays the user: ``press(_:)``, ``hold(_:for:)``, ``controlCenterSlider(_:)``,
/// ``background()``, ``interruption(began:)``, ``phoneCall(began:)``, ``connect(_:)``, ``crash()``, ``launch()``.
/// Nothing happens until virtual time moves: ``advance(by:)``.
public final class SimulatedDevice: @unchecked Sendable {
    /// Timings and starting values.
    public struct Configuration: Sendable {
        /// The iOS version whose rules apply.
        public var osVersion: OSVersion
        /// iPhone or iPad.
        public var kind: DeviceKind
        /// The user's speaker volume before the app launches.
        public var volume: Float
        /// The user's headphones (and other routes') volume before the app launches.
        public var headphonesVolume: Float
        /// How long after a change KVO reaches the app (delivered on the main queue).
        public var kvoLatency: TimeInterval
        /// How long after `setVolume` the slider's value reaches the system (asynchronous).
        public var sliderLatency: TimeInterval
        /// How long after creation an `MPVolumeView` becomes ready: its slider usable and its HUD
        /// suppression in force. JPSVolumeButtonHandler: "There is a delay between setting the volume view
        /// before the system actually disables the HUD"; MPVolumeView coalesces the update with a
        /// `dispatch_async` to main (`shared/facts/volume-hud.md` §4, `shared/facts/volume-buttons.md` §1.1).
        public var volumeViewReadyDelay: TimeInterval
        /// How long a button is held for a single press.
        public var tapLength: TimeInterval

        /// Creates a configuration; defaults are an iPhone on iOS 17.4 at half volume.
        public init(
            osVersion: OSVersion = OSVersion(17, 4),
            kind: DeviceKind = .iphone,
            volume: Float = 0.5,
            headphonesVolume: Float = 0.5,
            kvoLatency: TimeInterval = 0.005,
            sliderLatency: TimeInterval = 0.01,
            volumeViewReadyDelay: TimeInterval = 0.1,
            tapLength: TimeInterval = 0.08
        ) {
            self.osVersion = osVersion
            self.kind = kind
            self.volume = volume
            self.headphonesVolume = headphonesVolume
            self.kvoLatency = kvoLatency
            self.sliderLatency = sliderLatency
            self.volumeViewReadyDelay = volumeViewReadyDelay
            self.tapLength = tapLength
        }
    }

    /// One volume step: a button press moves the volume by 1/16 from wherever it is, not snapped to a grid
    /// (seed 002: "每次变化量都是 6.25%，连续按16次"; koze.hatenablog.jp: 0.1 → 0.1625 → 0.225 after a
    /// Control Center change; `shared/facts/volume-buttons.md` §7).
    public static let step: Float = 1.0 / 16.0
    /// Auto-repeat while a button is held: the first repeat ≈ 650 ms after the press, then every ≈ 200 ms
    /// (SLVolumeButtonListener's measured timeouts, `shared/facts/volume-buttons.md` §1.2 and §7).
    public static let firstRepeatDelay: TimeInterval = 0.65
    /// See ``firstRepeatDelay``.
    public static let repeatInterval: TimeInterval = 0.2
    /// `MPVolumeSlider._isOffScreen` treats a view as off screen when it or an ancestor is hidden or has an
    /// alpha below `FLT_EPSILON` (`shared/facts/volume-hud.md` §4).
    public static let visibleAlphaThreshold: Float = 1.1920929e-7
    /// From iOS 11, a programmatic set during a volume-down press cycle to a value ≥ the value before the
    /// press (other than 0) is refused (seed 000: "iOS11下调小音量的事件周期结束前是不允许设置的新值大于或等于旧值(0除外)").
    public static let downPressRefusalSince = OSVersion(11)
    /// From iOS 15 the private notification is `SystemVolumeDidChange` with short keys, and fires only while
    /// an `MPVolumeView` exists (react-native-system-setting #134, Signal-iOS `VolumeButtons.swift`;
    /// `shared/facts/volume-buttons.md` §2).
    public static let renamedNotificationSince = OSVersion(15)
    /// `AVCaptureEventInteraction` exists from iOS 17.2 (`shared/facts/volume-buttons.md` §3).
    public static let captureEventsSince = OSVersion(17, 2)

    let lock = NSRecursiveLock()
    /// The configuration the device was created with.
    public let configuration: Configuration
    private var timeline = Timeline()
    private var currentTime: Instant = 0

    // The hardware.
    private var volumes: [AudioRoute: Float]
    private var currentRoute: AudioRoute = .speaker
    private var callVolumeLevel: Float = 0.6
    private var callInProgress = false
    private var heldButton: HeldButton?
    private var otherAudio = false
    private var persistentStore: [String: Data] = [:]
    private var entries: [DeviceLogEntry] = []
    /// App actions that came due while the app was suspended in the background.
    private var suspendedActions: [() -> Void] = []
    /// Sound playback state (the Ring/Silent switch and system sounds live in `SimulatedDevice+Sounds.swift`).
    var sounds = SimulatedSounds()

    // The app's process: `nil` when not running.
    var app: AppProcess?
    private var generation = 0
    private var nextObserverID = 0

    private struct HeldButton {
        let button: VolumeButton
        /// The volume before the press: iOS 11+ refuses sets ≥ this during a down press (seed 000).
        let valueBeforePress: Float
        var repeatTimer: Int?
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
        var sessionActive = false
        var configuration = AudioSessionConfiguration.systemDefault
        var hasPlayedAudio = false
        /// What `outputVolume` reads while the app is not live (seed 001).
        var staleVolume: Float
        var volumeObservers: [Int: @Sendable (Float) -> Void] = [:]
        var notificationObservers: [Int: @Sendable (SystemVolumeNotification) -> Void] = [:]
        var lifecycleObservers: [Int: @Sendable (AppLifecycleEvent) -> Void] = [:]
        var captureObservers: [Int: @Sendable (CaptureEvent) -> Void] = [:]
        var volumeViews: [Int: VolumeView] = [:]
        var sequenceNumber = 1000
        /// The app's VolumeKit session lease: app-process state, new at each launch.
        let sessionLease = AudioSessionLease()
    }

    /// Creates a device; the app is launched at time 0.
    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
        var volumes: [AudioRoute: Float] = [:]
        for route in AudioRoute.allCases { volumes[route] = Self.clamp(configuration.headphonesVolume) }
        volumes[.speaker] = Self.clamp(configuration.volume)
        self.volumes = volumes
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
    /// Whether the app's process is running.
    public var isAppRunning: Bool { locked { app != nil } }
    /// The app's state, `nil` when it is not running.
    public var appState: AppState? { locked { app?.state } }
    /// Whether the app's audio session is active.
    public var isSessionActive: Bool { locked { app?.sessionActive ?? false } }
    /// The app's audio session configuration.
    public var sessionConfiguration: AudioSessionConfiguration? { locked { app?.configuration } }
    /// Whether another app is playing audio; VolumeKit must never stop it.
    public var isOtherAudioPlaying: Bool {
        get { locked { otherAudio } }
        set { locked { otherAudio = newValue } }
    }
    /// Everything notable that happened, in time order.
    public var log: [DeviceLogEntry] { locked { entries } }
    /// The times the system volume HUD appeared.
    public var systemHUDTimes: [Instant] {
        log.compactMap { if case .systemHUD(let time, _) = $0 { return time } else { return nil } }
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
    /// while the app is in the background — a suspended app runs no code, its timers fire when it comes back
    /// (Apple, "Managing your app's life cycle": suspended apps remain in memory but do not execute code).
    @discardableResult
    func inApp(after delay: TimeInterval, _ action: @escaping () -> Void) -> Int {
        let launched = generation
        return after(delay) { [unowned self] in
            guard self.generation == launched, self.app != nil else { return }
            if self.app?.state == .background {
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

    func record(_ entry: DeviceLogEntry) { entries.append(entry) }

    func cancelTimeline(_ id: Int) { timeline.cancel(id) }

    func storedValue(_ key: String) -> Data? { locked { persistentStore[key] } }

    func store(_ data: Data?, _ key: String) { locked { persistentStore[key] = data } }

    static func clamp(_ value: Float) -> Float { min(1, max(0, value)) }

    // MARK: - The user's hands

    /// A single press and release of a button.
    public func press(_ button: VolumeButton) {
        buttonDown(button)
        locked { _ = after(configuration.tapLength) { [unowned self] in self.buttonUp(button) } }
    }

    /// A press held for `seconds`: iOS auto-repeats while held (see ``firstRepeatDelay``).
    public func hold(_ button: VolumeButton, for seconds: TimeInterval) {
        buttonDown(button)
        locked { _ = after(seconds) { [unowned self] in self.buttonUp(button) } }
    }

    /// The button goes down now. Pressing the other button ends the first one's press: "It's not possible for
    /// up and down to be pressed simultaneously" (Signal-iOS `VolumeButtons.swift`).
    public func buttonDown(_ button: VolumeButton) {
        locked {
            if let held = heldButton { buttonUp(held.button) }
            if callInProgress {
                // During a phone call the buttons change the call volume and the app sees nothing (seed 002).
                callVolumeLevel = Self.clamp(callVolumeLevel + button.sign * Self.step)
                heldButton = HeldButton(button: button, valueBeforePress: volumes[currentRoute]!)
                record(.callVolume(currentTime, callVolumeLevel))
                return
            }
            if deliverCaptureEvent(button, phase: .began) {
                heldButton = HeldButton(button: button, valueBeforePress: volumes[currentRoute]!)
                return
            }
            heldButton = HeldButton(button: button, valueBeforePress: volumes[currentRoute]!)
            stepVolume(button)
            heldButton?.repeatTimer = after(Self.firstRepeatDelay) { [unowned self] in self.autoRepeat(button) }
        }
    }

    /// The held button comes up now.
    public func buttonUp(_ button: VolumeButton) {
        locked {
            guard let held = heldButton, held.button == button else { return }
            if let timer = held.repeatTimer { timeline.cancel(timer) }
            heldButton = nil
            if !callInProgress { _ = deliverCaptureEvent(button, phase: .ended) }
        }
    }

    private func autoRepeat(_ button: VolumeButton) {
        guard let held = heldButton, held.button == button else { return }
        if !callInProgress { stepVolume(button) }
        heldButton?.repeatTimer = after(Self.repeatInterval) { [unowned self] in self.autoRepeat(button) }
    }

    private func stepVolume(_ button: VolumeButton) {
        let old = volumes[currentRoute]!
        let new = Self.clamp(old + button.sign * Self.step)
        change(to: new, reason: "ExplicitVolumeChange", cause: .button(button))
        if !isHUDSuppressed { record(.systemHUD(currentTime, new)) }
    }

    /// The user drags the Control Center volume slider to `value` (any value, off the 1/16 grid). Opening
    /// Control Center makes the app inactive; closing it makes it active again (JPSVolumeButtonHandler PR #12:
    /// callbacks while inactive are "Probably control center"). Takes 0.6 s of virtual time to play out.
    public func controlCenterSlider(_ value: Float) {
        locked {
            setAppState(.inactive)
            after(0.3) { [unowned self] in
                self.change(to: Self.clamp(value), reason: "ExplicitVolumeChange", cause: .controlCenter)
            }
            after(0.6) { [unowned self] in self.setAppState(.active) }
        }
    }

    /// The user sends the app to the background (home gesture).
    public func background() {
        locked {
            guard let app, app.state != .background else { return }
            setAppState(.inactive)
            setAppState(.background)
        }
    }

    /// The user brings the app back.
    public func foreground() {
        locked {
            guard let app, app.state == .background else { return }
            setAppState(.inactive)
            setAppState(.active)
        }
    }

    /// An audio interruption (an alarm, another app's non-mixable audio, Siri) begins or ends. The app's
    /// session is deactivated when it begins and stays inactive until the app re-activates it, whether or not
    /// an end arrives (seed 002; JPSVolumeButtonHandler #2, RedMadRobot/VolumeButtons #1).
    public func interruption(began: Bool) {
        locked {
            guard app != nil else { return }
            if began {
                deactivateSessionBySystem()
                deliver(.interruptionBegan)
            } else {
                deliver(.interruptionEnded(shouldResume: true))
            }
        }
    }

    /// A phone call starts or ends. It interrupts the app's session and makes the app inactive; while it
    /// lasts the buttons change the call volume and the app sees nothing (seed 002).
    public func phoneCall(began: Bool) {
        locked {
            if began {
                guard !callInProgress else { return }
                callInProgress = true
                if app != nil {
                    deactivateSessionBySystem()
                    deliver(.interruptionBegan)
                    if app?.state == .active { setAppState(.inactive) }
                }
            } else {
                guard callInProgress else { return }
                callInProgress = false
                if app != nil {
                    if app?.state == .inactive { setAppState(.active) }
                    deliver(.interruptionEnded(shouldResume: true))
                }
            }
        }
    }

    /// Audio moves to `route` (headphones plugged in, speaker after unplugging). Each route keeps its own
    /// volume; the change posts `RouteChange` (`shared/facts/volume-buttons.md` §2: twilio-voice-ios #75).
    public func connect(_ route: AudioRoute) {
        locked {
            guard route != currentRoute else { return }
            if let held = heldButton { buttonUp(held.button) }
            let old = volumes[currentRoute]!
            currentRoute = route
            let new = volumes[route]!
            notifyVolume(new, old: old, reason: "RouteChange")
            deliver(.routeChanged(route))
        }
    }

    /// The app crashes or is killed: it ends without any cleanup, and the device keeps whatever volume it
    /// had (seed 000: "处理不了APP crash或者人为杀掉情况下的系统音量恢复").
    public func crash() {
        locked {
            guard app != nil else { return }
            app = nil
            generation += 1
            suspendedActions = []
            record(.appEnded(currentTime))
        }
    }

    /// The app launches (again): a fresh process, active, with the session not yet active and no audio
    /// played. The key-value store keeps what an earlier process wrote.
    public func launch() {
        locked {
            if app != nil { crash() }
            generation += 1
            app = AppProcess(staleVolume: volumes[currentRoute]!)
            record(.appLaunched(currentTime))
        }
    }

    // MARK: - Rules

    /// Whether the system HUD stays hidden on a press: an `MPVolumeView` that is ready, in a window of the
    /// active scene, with no hidden or near-zero-alpha ancestor (its frame does not matter), while the app's
    /// session is active (`shared/facts/volume-hud.md` §4 and SubtleVolume's README; seed 000).
    var isHUDSuppressed: Bool {
        guard let app, app.state == .active, app.sessionActive else { return false }
        return app.volumeViews.values.contains { $0.ready && $0.visible }
    }

    /// Whether the app hears `outputVolume` now: KVO and fresh reads need an active session that has played
    /// audio (seed 001), and a process that is not suspended in the background.
    var isAppListening: Bool {
        guard let app else { return false }
        return app.sessionActive && app.hasPlayedAudio && app.state != .background
    }

    func change(to new: Float, reason: String, cause: DeviceLogEntry.Cause) {
        let old = volumes[currentRoute]!
        volumes[currentRoute] = new
        record(.volume(currentTime, currentRoute, new, cause))
        notifyVolume(new, old: old, reason: reason)
    }

    private func notifyVolume(_ new: Float, old: Float, reason: String) {
        guard let app else { return }
        // KVO fires only when the value changes — never at the rails (seed 000, seed 002 §3.1).
        if new != old, isAppListening {
            let observers = Array(app.volumeObservers.values)
            inApp(after: configuration.kvoLatency) { for observer in observers { observer(new) } }
        }
        // The private notification fires on every press, the rails included (Navideck/VolumeButtonKit; seed 000).
        guard app.state != .background, !app.notificationObservers.isEmpty else { return }
        let notification: SystemVolumeNotification
        if configuration.osVersion >= Self.renamedNotificationSince {
            guard !app.volumeViews.isEmpty else { return }
            self.app?.sequenceNumber += 1
            notification = SystemVolumeNotification(name: "SystemVolumeDidChange", userInfo: [
                "Reason": .string(reason),
                "Volume": .number(Double(new)),
                "AudioCategory": .string("Audio/Video"),
                "SequenceNumber": .number(Double(self.app!.sequenceNumber)),
            ])
        } else {
            notification = SystemVolumeNotification(name: "AVSystemController_SystemVolumeDidChangeNotification", userInfo: [
                "AVSystemController_AudioVolumeChangeReasonNotificationParameter": .string(reason),
                "AVSystemController_AudioVolumeNotificationParameter": .number(Double(new)),
                "AVSystemController_AudioCategoryNotificationParameter": .string("Audio/Video"),
            ])
        }
        let observers = Array(app.notificationObservers.values)
        inApp(after: configuration.kvoLatency) { for observer in observers { observer(notification) } }
    }

    func categoryChanged() {
        let volume = volumes[currentRoute]!
        notifyVolume(volume, old: volume, reason: "CategoryChange")
    }

    func deliver(_ event: AppLifecycleEvent) {
        guard let app else { return }
        let observers = Array(app.lifecycleObservers.values)
        for observer in observers { observer(event) }
    }

    private func deliverCaptureEvent(_ button: VolumeButton, phase: CaptureEventPhase) -> Bool {
        guard let app, app.state == .active, !app.captureObservers.isEmpty,
              configuration.osVersion >= Self.captureEventsSince else { return false }
        // Primary = volume down, secondary = volume up (`shared/facts/volume-buttons.md` §3).
        let event = CaptureEvent(source: button == .down ? .primary : .secondary, phase: phase)
        let observers = Array(app.captureObservers.values)
        inApp(after: 0) { for observer in observers { observer(event) } }
        return true
    }

    private func setAppState(_ state: AppState) {
        guard let current = app?.state, current != state else { return }
        let wasListening = isAppListening
        app?.state = state
        switch (current, state) {
        case (.active, .inactive): deliver(.willResignActive)
        case (.inactive, .background):
            // A suspended app's session is deactivated; KVO stays silent until it re-activates (seed 002).
            deactivateSessionBySystem()
            deliver(.didEnterBackground)
        case (.background, .inactive):
            deliver(.willEnterForeground)
            let held = suspendedActions
            suspendedActions = []
            for action in held { action() }
        case (.inactive, .active): deliver(.didBecomeActive)
        default: break
        }
        if wasListening, !isAppListening { app?.staleVolume = volumes[currentRoute]! }
    }

    private func deactivateSessionBySystem() {
        guard app?.sessionActive == true else { return }
        if isAppListening { app?.staleVolume = volumes[currentRoute]! }
        app?.sessionActive = false
        record(.sessionDeactivated(currentTime, bySystem: true))
    }

    // MARK: - What the app's clients do

    func newObserverID() -> Int {
        nextObserverID += 1
        return nextObserverID
    }

    /// The app's process generation: clients made for an earlier process do nothing.
    var currentGeneration: Int { generation }

    func isCurrent(_ launched: Int) -> Bool { generation == launched && app != nil }

    func appOutputVolume() -> Float {
        guard let app else { return volumes[currentRoute]! }
        return isAppListening ? volumes[currentRoute]! : app.staleVolume
    }

    func appSetVolume(_ value: Float) {
        guard let app, app.volumeViews.values.contains(where: { $0.ready }) else {
            // Before the volume view is ready the slider is not wired: the set is lost (seed 000; JPS #13/#20).
            record(.setIgnored(currentTime, value, reason: "no ready MPVolumeView"))
            return
        }
        let target = Self.clamp(value)
        // The slider hands the value to the system, which applies it a moment later whether or not the app is
        // still running then (a device-side action, not an app timer).
        after(configuration.sliderLatency) { [unowned self] in
            if self.configuration.osVersion >= Self.downPressRefusalSince,
               let held = self.heldButton, held.button == .down, !self.callInProgress,
               target >= held.valueBeforePress, target != 0 {
                self.record(.setRefused(self.currentTime, target))
                return
            }
            self.record(.programmaticSet(self.currentTime, target))
            self.change(to: target, reason: "ExplicitVolumeChange", cause: .app)
        }
    }

    func appInstallVolumeView(alpha: Float, hidden: Bool, inActiveSceneWindow: Bool, onReady: (@Sendable () -> Void)?) -> Int? {
        guard app != nil else { return nil }
        let id = newObserverID()
        app?.volumeViews[id] = VolumeView(ready: false, alpha: alpha, hidden: hidden, inActiveSceneWindow: inActiveSceneWindow)
        inApp(after: configuration.volumeViewReadyDelay) { [unowned self] in
            guard self.app?.volumeViews[id] != nil else { return }
            self.app?.volumeViews[id]?.ready = true
            onReady?()
        }
        return id
    }

    func appSetActive(_ active: Bool, notifyOthers: Bool) throws {
        guard app != nil else { return }
        if active {
            // A call holds the audio hardware: activation fails (AVAudioSession error `insufficientPriority`).
            if callInProgress { throw SimulatedDeviceError.insufficientPriority }
            if app?.sessionActive == false {
                app?.sessionActive = true
                record(.sessionActivated(currentTime))
                // A category that does not mix interrupts other apps' audio (AVAudioSession docs).
                if otherAudio, let configuration = app?.configuration,
                   !configuration.options.contains(.mixWithOthers), configuration.category != .ambient {
                    otherAudio = false
                    record(.otherAudioInterrupted(currentTime))
                }
            }
        } else if app?.sessionActive == true {
            if isAppListening { app?.staleVolume = volumes[currentRoute]! }
            app?.sessionActive = false
            record(.sessionDeactivated(currentTime, bySystem: false, notifiedOthers: notifyOthers))
        }
    }
}

/// Errors the simulated system returns where iOS would.
public enum SimulatedDeviceError: Error, Sendable, Equatable {
    /// `AVAudioSession.ErrorCode.insufficientPriority`: a call holds the audio hardware.
    case insufficientPriority
    /// The app's process is not running.
    case appNotRunning
}

/// Something notable the simulated device did.
public enum DeviceLogEntry: Sendable, Equatable {
    /// What moved the volume.
    public enum Cause: Sendable, Equatable {
        /// A hardware button press or auto-repeat.
        case button(VolumeButton)
        /// The Control Center slider.
        case controlCenter
        /// The app, through the `MPVolumeView` slider.
        case app
    }
    /// The system volume HUD appeared, showing `volume`.
    case systemHUD(Instant, Float)
    /// The volume of `route` became `volume`.
    case volume(Instant, AudioRoute, Float, Cause)
    /// The phone-call volume became this.
    case callVolume(Instant, Float)
    /// The app's programmatic set took effect.
    case programmaticSet(Instant, Float)
    /// The app's programmatic set was refused during a volume-down press (iOS 11+, seed 000).
    case setRefused(Instant, Float)
    /// The app's programmatic set was lost (no ready volume view).
    case setIgnored(Instant, Float, reason: String)
    /// The app activated its session.
    case sessionActivated(Instant)
    /// The session was deactivated, by the system (background, interruption) or by the app.
    case sessionDeactivated(Instant, bySystem: Bool, notifiedOthers: Bool = false)
    /// Another app's audio was interrupted by the app's session.
    case otherAudioInterrupted(Instant)
    /// The app's process started.
    case appLaunched(Instant)
    /// The app's process ended (crash or kill).
    case appEnded(Instant)
    /// A system sound played (or was skipped) — see `SimulatedDevice+Sounds.swift`.
    case systemSound(Instant, SystemSoundID, played: Bool)
}
