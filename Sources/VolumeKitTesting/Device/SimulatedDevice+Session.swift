import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Another part of the app that can take its audio session over.
public enum SessionComponent: String, Sendable, Equatable, CaseIterable {
    /// An `AVCaptureSession` with `automaticallyConfiguresApplicationAudioSession` (the default): it moves the
    /// session to `.playAndRecord` (seed 002 "问题一").
    case camera
    /// An `AVPlayer` starting playback (SubtleVolume #25).
    case player
    /// A `WKWebView` playing media (hirbod/react-native-volume-manager #40/#41).
    case webView

    /// The configuration the component leaves the session in.
    public var configuration: AudioSessionConfiguration {
        switch self {
        case .camera:
            AudioSessionConfiguration(category: .playAndRecord, options: [.mixWithOthers, .allowBluetoothA2DP])
        case .player, .webView: AudioSessionConfiguration(category: .playback)
        }
    }
}

/// An audio session mode (`AVAudioSession.Mode`): the ones whose rules the simulated device models.
public enum SessionMode: String, Sendable, Equatable, CaseIterable {
    /// `.default`.
    case `default`
    /// `.videoRecording`, a camera screen's mode: "valid only with the record and playAndRecord categories"
    /// (AVAudioSession docs): setting another category then fails (``SimulatedDeviceError/incompatibleCategory``).
    case videoRecording

    /// Whether `category` may be set while the session is in this mode.
    public func allows(_ category: AudioCategory) -> Bool {
        self != .videoRecording || category.records
    }
}

/// Session and interruptions: activation, calls, alarms, Siri, and other components taking the session over.
extension SimulatedDevice {
    /// An audio interruption (another app's non-mixable audio) begins or ends. The app's session is
    /// deactivated when it begins and stays inactive until the app re-activates it, whether or not an end
    /// arrives (seed 002; JPSVolumeButtonHandler #2, RedMadRobot/VolumeButtons #1). An end carries `.shouldResume`.
    public func interruption(began: Bool) {
        interruption(began: began, shouldResume: true)
    }

    /// An audio interruption begins or ends, as ``interruption(began:)``; an end carries `.shouldResume` only when
    /// `shouldResume` is `true` (without it, the interrupting audio goes on: the user started it).
    public func interruption(began: Bool, shouldResume: Bool) {
        locked {
            guard app != nil else { return }
            audioInterrupted = began
            disturb()
            if began {
                deactivateSessionBySystem()
                deliver(.interruptionBegan)
            } else {
                deliver(.interruptionEnded(shouldResume: shouldResume))
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
                disturb()
                if app != nil {
                    deactivateSessionBySystem()
                    deliver(.interruptionBegan)
                    if app?.state == .active { setAppState(.inactive) }
                }
            } else {
                guard callInProgress else { return }
                callInProgress = false
                audioInterrupted = false
                disturb()
                if app != nil {
                    if app?.state == .inactive { setAppState(.active) }
                    deliver(.interruptionEnded(shouldResume: true))
                }
            }
        }
    }

    /// Siri's panel over the app for `seconds`: the app goes inactive and comes back active; what happens to
    /// its session is ``DeviceBehaviour/siriShape`` (openradar 44895456).
    public func siri(for seconds: TimeInterval = 1) {
        locked {
            guard app?.state == .active else { return }
            let shape = behaviour.siriShape
            setAppState(.inactive)
            disturb()
            if shape != .inactiveOnly {
                audioInterrupted = true
                deactivateSessionBySystem()
                deliver(.interruptionBegan)
            }
            let launched = generation
            after(seconds) { [unowned self] in
                guard self.generation == launched, self.app != nil else { return }
                self.disturb()
                if shape == .interruptsWithEnd {
                    self.audioInterrupted = false
                    self.deliver(.interruptionEnded(shouldResume: true))
                }
                if self.app?.state == .inactive { self.setAppState(.active) }
            }
        }
    }

    /// An alarm rings for `seconds` while the app stays in front: it interrupts the session and holds the
    /// audio (activation fails while it rings); when it stops an end arrives only if `sendsEnd` (alarms usually
    /// send one; envelope.md).
    public func alarm(for seconds: TimeInterval, sendsEnd: Bool) {
        locked {
            guard app != nil, !alarmRinging else { return }
            alarmRinging = true
            audioInterrupted = true
            disturb()
            deactivateSessionBySystem()
            deliver(.interruptionBegan)
            let launched = generation
            after(seconds) { [unowned self] in
                self.alarmRinging = false
                guard self.generation == launched, self.app != nil else { return }
                self.disturb()
                if sendsEnd {
                    self.audioInterrupted = false
                    self.deliver(.interruptionEnded(shouldResume: true))
                }
            }
        }
    }

    /// Another component of the app takes its session over: the category changes (posting `CategoryChange`
    /// and a route-change notification, reason `.categoryChange`) and, under
    /// ``DeviceBehaviour/SessionTakeover/deactivates``, KVO stops and the HUD comes back until the app
    /// activates its session again.
    public func takeOverSession(by component: SessionComponent) {
        locked {
            guard let current = app else { return }
            disturb()
            record(.sessionTakenOver(currentTime, by: component.rawValue))
            if behaviour.sessionTakeover == .deactivates {
                if isAppListening { app?.staleVolume = volumes[currentRoute]! }
                app?.sessionTakenOver = true
            }
            app?.configuration = component.configuration
            if current.configuration.category != component.configuration.category { categoryChanged() }
            deliverRouteChange(RouteChange(reason: "categoryChange", outputs: outputs(of: currentRoute)))
        }
    }

    /// The app's camera session starts: capture events reach the app (``DeviceBehaviour/captureEventsGate``).
    /// With `configuresSession` (AVCaptureSession's default) it takes the audio session over.
    public func startCamera(configuresSession: Bool = true) {
        locked {
            guard app != nil else { return }
            disturb()
            app?.cameraRunning = true
            if configuresSession { takeOverSession(by: .camera) }
        }
    }

    /// The app's camera session stops.
    public func stopCamera() {
        locked {
            disturb()
            app?.cameraRunning = false
        }
    }

    /// Whether the app's camera session runs.
    public var isCameraRunning: Bool { locked { app?.cameraRunning ?? false } }

    /// The app's own code sets up its session, as a camera screen does before VolumeKit starts
    /// (`setCategory(.playAndRecord, mode: .videoRecording, options: …)`, then `setActive(true)` when
    /// `activates`). Throws what the session throws (``SimulatedDeviceError/incompatibleCategory``).
    public func configureAppSession(
        _ configuration: AudioSessionConfiguration, mode: SessionMode = .default, activates: Bool = true
    ) throws {
        try locked {
            guard app != nil else { throw SimulatedDeviceError.appNotRunning }
            guard mode.allows(configuration.category) else { throw SimulatedDeviceError.incompatibleCategory }
            app?.mode = mode
            try appSetConfiguration(configuration)
            if activates { try appSetActive(true, notifyOthers: false) }
        }
    }

    /// The app's session mode (`nil` when the app is not running).
    public var sessionMode: SessionMode? { locked { app?.mode } }

    /// The media server restarts (`AVAudioSession.mediaServicesWereResetNotification`): the app's session
    /// loses its category, mode, options and activation, and has played no audio since (`outputVolume` is
    /// stale until it primes again). The live clients renew the KVO observation and the volume views
    /// themselves, so the app's observers and views stay (`shared/facts/envelope.md`, "iOS-layer facts";
    /// Apple, "Responding to audio session interruptions").
    public func resetMediaServices() {
        locked {
            guard app != nil else { return }
            disturb()
            deactivateSessionBySystem()
            app?.configuration = .systemDefault
            app?.mode = .default
            app?.hasPlayedAudio = false
            app?.primingUntil = nil
            app?.sessionTakenOver = false
            deliver(.mediaServicesWereReset)
        }
    }

    func categoryChanged() {
        let volume = volumes[currentRoute]!
        notifyVolume(volume, old: volume, reason: "CategoryChange")
    }

    func deactivateSessionBySystem() {
        guard app?.sessionActive == true else { return }
        if isAppListening { app?.staleVolume = volumes[currentRoute]! }
        app?.sessionActive = false
        record(.sessionDeactivated(currentTime, bySystem: true))
    }

    func appSetConfiguration(_ configuration: AudioSessionConfiguration) throws {
        if let mode = app?.mode, !mode.allows(configuration.category) {
            throw SimulatedDeviceError.incompatibleCategory
        }
        let old = app?.configuration
        app?.configuration = configuration
        // A category change posts `CategoryChange` (facts §2: reasons seen).
        if old?.category != configuration.category { categoryChanged() }
    }

    func appSetActive(_ active: Bool, notifyOthers: Bool) throws {
        guard app != nil else { return }
        if active {
            // A call or an alarm holds the audio hardware: activation fails (`insufficientPriority`).
            if callInProgress || alarmRinging { throw SimulatedDeviceError.insufficientPriority }
            if app?.sessionActive == false || app?.sessionTakenOver == true {
                app?.sessionActive = true
                app?.sessionTakenOver = false
                record(.sessionActivated(currentTime))
                // A category that does not mix interrupts other apps' audio (AVAudioSession docs).
                if otherAudio, let configuration = app?.configuration,
                    !configuration.options.contains(.mixWithOthers), configuration.category != .ambient
                {
                    otherAudio = false
                    record(.otherAudioInterrupted(currentTime))
                }
            }
        } else if app?.sessionActive == true {
            // Deactivating while audio I/O runs (the primer's sound) fails and leaves the session active.
            if let until = app?.primingUntil, currentTime < until { throw SimulatedDeviceError.sessionBusy }
            if isAppListening { app?.staleVolume = volumes[currentRoute]! }
            app?.sessionActive = false
            record(.sessionDeactivated(currentTime, bySystem: false, notifiedOthers: notifyOthers))
        }
    }
}
