import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Buttons and volume: presses, auto-repeat, the Control Center slider, what the app reads and observes of
/// the volume, and the app's sets through the volume view's slider.
extension SimulatedDevice {
    // MARK: - The user's hands

    /// A single press and release of a button (down for ``DeviceBehaviour/tapLength``).
    public func press(_ button: VolumeButton) {
        locked {
            buttonDown(button)
            let release = after(behaviour.tapLength) { [unowned self] in self.buttonUp(button) }
            heldButton?.releaseTimer = release
        }
    }

    /// A press held for `seconds`: iOS auto-repeats while held (``DeviceBehaviour/firstRepeatDelay``, then
    /// every ``DeviceBehaviour/repeatInterval``). Returns at once: the release happens as time passes, so
    /// other things can happen during the hold.
    public func hold(_ button: VolumeButton, for seconds: TimeInterval) {
        locked {
            buttonDown(button)
            let release = after(seconds) { [unowned self] in self.buttonUp(button) }
            heldButton?.releaseTimer = release
        }
    }

    /// The button goes down now. Pressing the other button ends the first one's press: "It's not possible for
    /// up and down to be pressed simultaneously" (Signal-iOS `VolumeButtons.swift`).
    public func buttonDown(_ button: VolumeButton) {
        locked {
            if let held = heldButton { buttonUp(held.button) }
            heldButton = HeldButton(
                button: button, valueBeforePress: volumes[currentRoute]!, truthIndex: recordPress(button))
            if callInProgress {
                // During a phone call the buttons change the call volume and the app sees nothing (seed 002).
                callVolumeLevel = Self.clamp(callVolumeLevel + button.sign * Self.step)
                record(.callVolume(currentTime, callVolumeLevel))
                return
            }
            if deliverCaptureEvent(button, phase: .began) { return }
            let warned = stepVolume(button)
            if let index = heldButton?.truthIndex, !buttonsMoveRinger {
                recordStep(index)
                if warned { recordWarning(index) }
            }
            heldButton?.repeatTimer = after(behaviour.firstRepeatDelay) { [unowned self] in self.autoRepeat(button) }
        }
    }

    /// The held button comes up now.
    public func buttonUp(_ button: VolumeButton) {
        locked {
            guard let held = heldButton, held.button == button else { return }
            if let timer = held.repeatTimer { timeline.cancel(timer) }
            if let timer = held.releaseTimer { timeline.cancel(timer) }
            if let index = held.truthIndex { recordRelease(index) }
            heldButton = nil
            if !callInProgress { _ = deliverCaptureEvent(button, phase: .ended) }
        }
    }

    private func autoRepeat(_ button: VolumeButton) {
        guard let held = heldButton, held.button == button else { return }
        if !callInProgress, stepVolume(button), let index = held.truthIndex { recordWarnedRepeat(index) }
        heldButton?.repeatTimer = after(behaviour.repeatInterval) { [unowned self] in self.autoRepeat(button) }
    }

    /// Whether the buttons move the ringer now: ``DeviceBehaviour/IdleButtons/ringer``, with no active app
    /// session and nothing playing (cloudfour 2011, mbni 2016).
    var buttonsMoveRinger: Bool {
        guard behaviour.idleButtons == .ringer, !otherAudio else { return false }
        guard let app else { return true }
        return !app.sessionActive || app.isSuspended
    }

    /// Where a press from `old` lands (``DeviceBehaviour/stepQuantization``).
    func stepped(from old: Float, _ button: VolumeButton) -> Float {
        switch behaviour.stepQuantization {
        case .exact, .rounded:
            return Self.clamp(old + button.sign * Self.step)
        case .grid:
            let position = Double(old) * 16
            let target = button == .up ? (position + 1e-3).rounded(.down) + 1 : (position - 1e-3).rounded(.up) - 1
            return Self.clamp(Float(target / 16))
        }
    }

    /// One step of a press or an auto-repeat (or of a headset's press, `to` its own level). Returns whether the
    /// EU headphone warning took the step (``warnsAtLimit(from:to:)``): then nothing moved.
    @discardableResult
    func stepVolume(_ button: VolumeButton, to level: Float? = nil) -> Bool {
        if buttonsMoveRinger, level == nil {
            ringerVolumeLevel = Self.clamp(ringerVolumeLevel + button.sign * Self.step)
            record(.ringerVolume(currentTime, ringerVolumeLevel))
            record(.systemHUD(currentTime, ringerVolumeLevel))
            return false
        }
        let old = volumes[currentRoute]!
        let new = level ?? stepped(from: old, button)
        if warnsAtLimit(from: old, to: new) { return true }
        change(to: new, reason: "ExplicitVolumeChange", cause: .button(button))
        if !isHUDSuppressed { record(.systemHUD(currentTime, new)) }
        return false
    }

    /// The user drags the Control Center volume slider to `value` (any value, off the 1/16 grid). Opening
    /// Control Center makes the app inactive; closing it makes it active again (JPSVolumeButtonHandler PR #12:
    /// callbacks while inactive are "Probably control center"). The drag arrives as one change or as a
    /// series (``DeviceBehaviour/controlCenterDrag``). Takes ``controlCenterTime(drag:)`` of virtual time
    /// to play out (0.6 s by default).
    public func controlCenterSlider(_ value: Float) {
        controlCenter(value, drag: behaviour.controlCenterDrag)
    }

    /// The user drags the Control Center slider to `value`: like ``controlCenterSlider(_:)``, always as a
    /// series of intermediate values (``DeviceBehaviour/ControlCenterDrag/series``).
    public func controlCenterDrag(_ value: Float) {
        controlCenter(value, drag: .series)
    }

    private func controlCenter(_ value: Float, drag: DeviceBehaviour.ControlCenterDrag) {
        locked {
            setAppState(.inactive)
            let target = Self.clamp(value)
            recordUserVolume(target, by: "controlCenter")
            switch drag {
            case .oneJump:
                after(0.3) { [unowned self] in
                    self.change(to: target, reason: "ExplicitVolumeChange", cause: .controlCenter)
                }
            case .series:
                // Values every 0.06 s over ``DeviceBehaviour/controlCenterDragLength`` (five over 0.24 s by
                // default), the first 0.1 s after Control Center opens.
                let start = volumes[currentRoute]!
                let length = behaviour.controlCenterDragLength
                let count = max(2, Int((length / Self.dragValueInterval).rounded()) + 1)
                let interval = length / Double(count - 1)
                for index in 1...count {
                    let fraction = Float(index) / Float(count)
                    let point = index == count ? target : start + (target - start) * fraction
                    after(0.1 + interval * Double(index - 1)) { [unowned self] in
                        self.change(to: point, reason: "ExplicitVolumeChange", cause: .controlCenter)
                    }
                }
            }
            after(controlCenterTime(drag: drag)) { [unowned self] in self.setAppState(.active) }
        }
    }

    /// The interval between the values of a Control Center drag delivered as a series.
    static let dragValueInterval: TimeInterval = 0.06

    /// How long a Control Center gesture keeps the app inactive: 0.6 s for one jump, and for a series its
    /// ``DeviceBehaviour/controlCenterDragLength`` plus 0.36 s (0.6 s at the default 0.24 s). `nil`: as
    /// ``DeviceBehaviour/controlCenterDrag`` delivers ``controlCenterSlider(_:)``.
    public func controlCenterTime(drag: DeviceBehaviour.ControlCenterDrag? = nil) -> TimeInterval {
        switch drag ?? behaviour.controlCenterDrag {
        case .oneJump: 0.6
        case .series: 0.36 + behaviour.controlCenterDragLength
        }
    }

    // MARK: - What the app sees of the volume

    /// Whether the app hears `outputVolume` now: KVO and fresh reads need an active session that has played
    /// audio (seed 001), not taken over by another component, in a process that is not suspended.
    var isAppListening: Bool {
        guard let app else { return false }
        return app.sessionActive && app.hasPlayedAudio && !app.isSuspended && !app.sessionTakenOver
    }

    /// A value as the app reads it: rounded to 1e-4 under ``DeviceBehaviour/StepQuantization/rounded``
    /// (Apple forums thread 756484).
    public func reported(_ value: Float) -> Float {
        guard behaviour.stepQuantization == .rounded else { return value }
        return Float((Double(value) * 10_000).rounded() / 10_000)
    }

    func change(to new: Float, reason: String, cause: DeviceLogEntry.Cause) {
        let old = volumes[currentRoute]!
        volumes[currentRoute] = new
        record(.volume(currentTime, currentRoute, new, cause))
        volumeDidChange(to: new)
        notifyVolume(new, old: old, reason: reason)
    }

    /// The volume view's slider learns of a change late (``DeviceBehaviour/volumeCacheDelay``).
    func volumeDidChange(to new: Float) {
        guard behaviour.downPressRefusal == .cachedEqualSetDrop else { return }
        after(behaviour.volumeCacheDelay) { [unowned self] in self.sliderCache = new }
    }

    /// Tells the app of a change: KVO (only when the value changes — never at the rails, seed 000, seed 002
    /// §3.1) and the private notification (every press, the rails included: Navideck/VolumeButtonKit;
    /// seed 000), both ``DeviceBehaviour/kvoLatency`` plus `extraDelay` later.
    func notifyVolume(_ new: Float, old: Float, reason: String, extraDelay: TimeInterval = 0) {
        guard let app else { return }
        let delay = behaviour.kvoLatency + extraDelay
        let value = reported(new)
        if new != old, isAppListening {
            let observers = app.volumeObservers.sorted { $0.key < $1.key }.map(\.value)
            inApp(after: delay) { for observer in observers { observer(value) } }
        }
        guard !app.isSuspended, !app.notificationObservers.isEmpty else { return }
        let notification: SystemVolumeNotification
        if configuration.osVersion >= Self.renamedNotificationSince {
            guard !app.volumeViews.isEmpty else { return }
            self.app?.sequenceNumber += 1
            notification = SystemVolumeNotification(
                name: "SystemVolumeDidChange",
                userInfo: [
                    "Reason": .string(reason),
                    "Volume": .number(Double(value)),
                    "AudioCategory": .string("Audio/Video"),
                    "SequenceNumber": .number(Double(self.app!.sequenceNumber)),
                ])
        } else {
            notification = SystemVolumeNotification(
                name: "AVSystemController_SystemVolumeDidChangeNotification",
                userInfo: [
                    "AVSystemController_AudioVolumeChangeReasonNotificationParameter": .string(reason),
                    "AVSystemController_AudioVolumeNotificationParameter": .number(Double(value)),
                    "AVSystemController_AudioCategoryNotificationParameter": .string("Audio/Video"),
                ])
        }
        let observers = app.notificationObservers.sorted { $0.key < $1.key }.map(\.value)
        inApp(after: delay) { for observer in observers { observer(notification) } }
    }

    func appOutputVolume() -> Float {
        guard let app else { return reported(volumes[currentRoute]!) }
        return reported(isAppListening ? volumes[currentRoute]! : app.staleVolume)
    }

    /// Whether the current route has volume control: AirPlay/HDMI under ``DeviceBehaviour/externalVolume``
    /// `noSlider` has none, and the volume view shows no slider (openradar 42881405).
    var routeHasVolumeControl: Bool { !(currentRoute == .external && behaviour.externalVolume == .noSlider) }

    /// The app sets the volume through the volume view's slider.
    func appSetVolume(_ value: Float) {
        guard let app, app.volumeViews.values.contains(where: { $0.ready }) else {
            // Before the volume view is ready the slider is not wired: the set is lost (decompiled MediaPlayer
            // `setVolume:withNotificationDelay:` does nothing until volume control is available; JPS #13/#20).
            record(.setIgnored(currentTime, value, reason: "no ready MPVolumeView"))
            return
        }
        let target = Self.clamp(value)
        if !routeHasVolumeControl {
            // AirPlay/HDMI: no volume control, the slider is gone (openradar 42881405).
            record(.setIgnored(currentTime, target, reason: "route has no volume control"))
            return
        }
        if behaviour.downPressRefusal == .cachedEqualSetDrop {
            // Decompiled iOS 18.2 `-setVolume:`: `if (_volume != a3)` — a set equal to the cache is dropped.
            guard target != sliderCache else {
                record(.setRefused(currentTime, target))
                return
            }
            sliderCache = target
        }
        // The slider hands the value to the system, which applies it a moment later whether or not the app is
        // still running then (a device-side action, not an app timer).
        after(behaviour.sliderLatency) { [unowned self] in
            // Handed over on another route, it reaches the system after a change to AirPlay/HDMI: that route has
            // no volume control either way (openradar 42881405).
            if !self.routeHasVolumeControl {
                self.record(.setIgnored(self.currentTime, target, reason: "route has no volume control"))
                return
            }
            if self.behaviour.downPressRefusal == .seedShape,
                self.configuration.osVersion >= Self.downPressRefusalSince,
                let held = self.heldButton, held.button == .down, !self.callInProgress,
                target >= held.valueBeforePress, target != 0
            {
                self.record(.setRefused(self.currentTime, target))
                return
            }
            self.record(.programmaticSet(self.currentTime, target))
            self.change(to: target, reason: "ExplicitVolumeChange", cause: .app)
            if self.behaviour.ownSetHUD == .shownWithoutVisibleView, !self.hasVisibleReadyView {
                self.record(.systemHUDForSet(self.currentTime, target))
            }
        }
    }

    /// Delivers a capture event if the app has an interaction that receives it: iOS 17.2+, the app active,
    /// and its camera running unless ``DeviceBehaviour/CaptureEventsGate/anyApp`` (AVKit header, Signal-iOS).
    func deliverCaptureEvent(_ button: VolumeButton, phase: CaptureEventPhase) -> Bool {
        guard let app, app.state == .active, !app.captureObservers.isEmpty,
            configuration.osVersion >= Self.captureEventsSince,
            app.cameraRunning || behaviour.captureEventsGate == .anyApp
        else { return false }
        // Primary = volume down, secondary = volume up (`shared/facts/volume-buttons.md` §3).
        let event = CaptureEvent(source: button == .down ? .primary : .secondary, phase: phase)
        let observers = app.captureObservers.sorted { $0.key < $1.key }.map(\.value)
        inApp(after: 0) { for observer in observers { observer(event) } }
        return true
    }
}
