import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Lifecycle: background and foreground, suspension, crashes and launches.
extension SimulatedDevice {
    /// The user sends the app to the background (home gesture). It is suspended
    /// ``DeviceBehaviour/suspensionDelay`` later unless it comes back first — never under
    /// ``DeviceBehaviour/BackgroundAudio/neverSuspended``.
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
            audioInterrupted = false
            disturb()
            record(.appLaunched(currentTime))
        }
    }

    /// The device restarts, off for `after` seconds: the app ends like a crash, the boot time (wall clock
    /// minus uptime, ``/VolumeKitCore/DeviceInfo/bootTime`` in the clients) moves on, and the app launches
    /// again. The simulated uptime does not go back: the new boot's uptime is taken to be larger than the
    /// one any record was saved at — the case an uptime comparison misses. Each route keeps its volume
    /// (what iOS does to volumes at a restart is not modelled).
    public func reboot(after seconds: TimeInterval = 60) {
        locked {
            crash()
            limitWarned = []
            bootWallTime += currentTime + max(0, seconds)
            launch()
        }
    }

    func setAppState(_ state: AppState) {
        guard let current = app?.state, current != state else { return }
        let wasListening = isAppListening
        app?.state = state
        record(.appState(currentTime, state))
        switch (current, state) {
        case (.active, .inactive): deliver(.willResignActive)
        case (.inactive, .background):
            let delay = behaviour.suspensionDelay
            if behaviour.backgroundAudio == .neverSuspended {
                // The audio background mode, playing: the app runs on and keeps its session (envelope.md).
                deliver(.didEnterBackground)
            } else if delay <= 0 {
                let wasActive = app?.sessionActive == true
                app?.sessionLostToSuspension = wasActive
                deactivateSessionBySystem()
                deliver(.didEnterBackground)
                suspend()
            } else {
                deliver(.didEnterBackground)
                let launched = generation
                app?.suspensionTimer = after(delay) { [unowned self] in
                    guard self.generation == launched, self.app?.state == .background else { return }
                    self.suspend()
                }
            }
        case (.background, .inactive):
            if let timer = app?.suspensionTimer { timeline.cancel(timer) }
            app?.suspensionTimer = nil
            app?.isSuspended = false
            deliver(.willEnterForeground)
            let held = suspendedActions
            suspendedActions = []
            for action in held { action() }
            if behaviour.lateInterruptionBegan == .onResume { deliverLateInterruptionBegan() }
        case (.inactive, .active):
            // Becoming active again ends what an interruption left: the app re-activates its session now.
            audioInterrupted = false
            disturb()
            deliver(.didBecomeActive)
            if behaviour.lateInterruptionBegan == .afterActive { deliverLateInterruptionBegan() }
        default: break
        }
        if wasListening, !isAppListening { app?.staleVolume = volumes[currentRoute]! }
    }

    /// The app stops running code; its session is deactivated and KVO stays silent until it re-activates
    /// (seed 002).
    private func suspend() {
        app?.suspensionTimer = nil
        if app?.sessionActive == true { app?.sessionLostToSuspension = true }
        deactivateSessionBySystem()
        if isAppListening { app?.staleVolume = volumes[currentRoute]! }
        app?.isSuspended = true
    }

    /// The late interruption "began" (``DeviceBehaviour/lateInterruptionBegan``): iOS deactivated the session of
    /// the app while it was suspended, and tells it when it runs again. On iOS 10.3 to 14.4 it carries
    /// `AVAudioSessionInterruptionWasSuspendedKey` and reaches the app as any "began"; from 14.5 to 15 it carries
    /// the reason `.appWasSuspended`, which VolumeKit's live client withholds (`AppLifecycleClient+Live.swift`),
    /// so nothing reaches the engine there but its details (``deliverWithheld(_:)``) — the simulated clients
    /// stand for the live ones; from 16 iOS sends none (`shared/facts/envelope.md`). Once per trip to the
    /// background.
    private func deliverLateInterruptionBegan() {
        guard app?.sessionLostToSuspension == true else { return }
        app?.sessionLostToSuspension = false
        let version = configuration.osVersion
        guard version >= Self.lateBeganSince, version < Self.lateBeganUntil else { return }
        let reaches = version < Self.appWasSuspendedReasonSince
        record(.lateInterruptionBegan(currentTime, delivered: reaches))
        guard reaches else {
            deliverWithheld(
                InterruptionDetails(kind: .began, reason: "appWasSuspended", wasSuspended: true, delivered: false))
            return
        }
        audioInterrupted = true
        disturb()
        deliver(.interruptionBegan, details: InterruptionDetails(kind: .began, wasSuspended: true))
    }

    /// Tells the app's lifecycle clients of an interruption they withhold from their events.
    private func deliverWithheld(_ details: InterruptionDetails) {
        guard let app else { return }
        for observer in app.withheldInterruptionObservers.sorted(by: { $0.key < $1.key }).map(\.value) {
            observer(details)
        }
    }

    /// The details iOS gives with `event`, an interruption: its kind and options, and from iOS 14.5 a "began"'s
    /// reason, `default` (another session took the audio); `nil` for other events.
    func interruptionDetails(of event: AppLifecycleEvent) -> InterruptionDetails? {
        guard var details = InterruptionDetails(event) else { return nil }
        if details.kind == .began, configuration.osVersion >= Self.appWasSuspendedReasonSince {
            details.reason = "default"
        }
        return details
    }
}

extension SimulatedDevice {
    /// From iOS 10.3 a suspended app's lost session is reported when it runs again, with
    /// `AVAudioSessionInterruptionWasSuspendedKey` (``DeviceBehaviour/lateInterruptionBegan``).
    public static let lateBeganSince = OSVersion(10, 3)
    /// From iOS 14.5 that "began" carries the reason `.appWasSuspended` instead.
    public static let appWasSuspendedReasonSince = OSVersion(14, 5)
    /// From iOS 16 it is no longer sent (`shared/facts/envelope.md`: "`.appWasSuspended` is not sent from iOS 16").
    public static let lateBeganUntil = OSVersion(16)
}
