import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Other sources of the volume than the phone's buttons, Control Center and the app, which can move it while
/// the app is active (`shared/facts/envelope.md`, "Added for the honest-oracle round"): a
/// headset's own buttons, a Bluetooth headset's absolute volume taken after it connects, and the headphone
/// limit — the EU warning that takes a press, and Headphone Notifications turning the volume down.
extension SimulatedDevice {
    /// Whether a headset is the current route (wired headphones or Bluetooth), so its buttons can be pressed and
    /// the headphone limit applies.
    var isHeadsetRoute: Bool { currentRoute == .headphones || currentRoute == .bluetooth }

    /// The user presses a volume button on the headset (a tap; nothing happens without a headset on the route).
    /// A wired remote's press reaches iOS as a volume key and moves one step as a side button's does, without
    /// auto-repeat (JPSVolumeButtonHandler #23: the handler fires "only one shot" from the headphones); a
    /// Bluetooth headset's does too, or moves to the headset's own level under
    /// ``DeviceBehaviour/HeadsetButtons/absoluteVolume``. Either way the change is a press's
    /// (`ExplicitVolumeChange`, the HUD unless suppressed), made with no side button down: no capture event
    /// (`AVCaptureEventInteraction` takes the side buttons), and no iOS 11 refusal (a side button's press cycle,
    /// seed 000). During a call it changes the call volume. Recorded in ``truth`` as a press with
    /// ``PressContext/PressSource/headset``.
    public func headsetPress(_ button: VolumeButton) {
        locked {
            guard isHeadsetRoute else { return }
            let index = recordPress(button, source: .headset)
            after(behaviour.tapLength) { [unowned self] in self.recordRelease(index) }
            if callInProgress {
                callVolumeLevel = Self.clamp(callVolumeLevel + button.sign * Self.step)
                record(.callVolume(currentTime, callVolumeLevel))
                return
            }
            let absolute = currentRoute == .bluetooth && behaviour.headsetButtons == .absoluteVolume
            let level = absolute ? Self.absoluteStep(from: volumes[currentRoute]!, button) : nil
            if stepVolume(button, to: level) { recordWarning(index) }
            if !buttonsMoveRinger || absolute { recordStep(index) }
        }
    }

    /// The top of Bluetooth AVRCP's absolute volume scale (0…0x7F).
    static let absoluteLevels: Float = 127
    /// One step of a headset's own volume on that scale: 8 of 127, 16 steps as the phone has.
    static let absoluteStepLevels: Float = 8

    /// Where a press of a headset that steps its own absolute volume lands from `value`: the headset's level
    /// nearest to `value`, plus or minus one of its steps (8 of 127), as iOS reads it — off the 1/16 grid
    /// (from 0.5: 72/127 ≈ 0.567, where a side button gives 0.5625).
    static func absoluteStep(from value: Float, _ button: VolumeButton) -> Float {
        let level = (value * absoluteLevels).rounded() + button.sign * absoluteStepLevels
        return min(absoluteLevels, max(0, level)) / absoluteLevels
    }

    /// Whether the EU headphone warning takes a step from `old` to `new` now
    /// (``DeviceBehaviour/HeadphoneLimit/euWarning``): on a headset route, the first step on that route that would
    /// cross ``DeviceBehaviour/headphoneLimitLevel`` upward shows the warning and moves nothing; later steps go
    /// through (SO 29193657: "two clicks of the hardware volume up button are required"). Once per route until
    /// the device restarts (the EU rule asks the warning again after 20 hours of listening). The warning shows
    /// in the HUD's place, so it appears where the HUD would. Records it when it does.
    func warnsAtLimit(from old: Float, to new: Float) -> Bool {
        let limit = Float(behaviour.headphoneLimitLevel)
        guard behaviour.headphoneLimit == .euWarning, isHeadsetRoute, old <= limit, new > limit,
            !limitWarned.contains(currentRoute)
        else { return false }
        limitWarned.insert(currentRoute)
        record(.volumeLimitWarning(currentTime, currentRoute))
        if !isHUDSuppressed { record(.systemHUD(currentTime, old)) }
        return true
    }

    /// Headphone Notifications: the 7-day exposure limit is exceeded now, "a notification is sent and the volume is
    /// turned down" (Apple's Headphone Safety setting, iOS 14.2+; techwarrant.com: mid-listening) — on a headset
    /// route louder than ``DeviceBehaviour/headphoneLimitLevel``, to that level. The system's change posts
    /// `ExplicitVolumeChange`, as every change of the volume the model makes does. The lowered volume is the
    /// user's from then on (``truth``: `.volume(level, by: "headphoneSafety")`).
    public func headphoneSafetyLowering() {
        locked {
            let level = Float(behaviour.headphoneLimitLevel)
            guard isHeadsetRoute, volumes[currentRoute]! > level else { return }
            disturb()
            recordUserVolume(level, by: "headphoneSafety")
            change(to: level, reason: "ExplicitVolumeChange", cause: .otherSource("headphoneSafety"))
        }
    }

    /// The Bluetooth headset reports the volume it keeps itself, and iOS takes it now (absolute volume sync,
    /// as after a connect; envelope.md): the Bluetooth route's volume becomes `value`, the user's from then on
    /// (``truth``: `.volume(value, by: "bluetoothSync")`). Nothing happens off Bluetooth. Posts
    /// `ExplicitVolumeChange`, as every change of the volume the model makes does.
    public func bluetoothSync(_ value: Float) {
        locked {
            guard currentRoute == .bluetooth else { return }
            let target = Self.clamp(value)
            disturb()
            recordUserVolume(target, by: "bluetoothSync")
            guard target != volumes[.bluetooth]! else { return }
            change(to: target, reason: "ExplicitVolumeChange", cause: .otherSource("bluetoothSync"))
        }
    }

    /// Audio moves to the Bluetooth headset `headset` (`nil`: the last one), as ``connect(_:headset:)`` does, and
    /// the headset keeps `storedVolume` itself: iOS takes it ``DeviceBehaviour/bluetoothSyncDelay`` later
    /// (``bluetoothSync(_:)``) if the headset is still the route then. Nothing is scheduled when the route does
    /// not change.
    public func connectBluetooth(headset: String? = nil, syncingTo storedVolume: Float) {
        locked {
            let before = (currentRoute, bluetoothPort)
            connect(.bluetooth, headset: headset)
            guard currentRoute == .bluetooth, before != (currentRoute, bluetoothPort) else { return }
            let port = bluetoothPort
            after(behaviour.bluetoothSyncDelay) { [unowned self] in
                guard self.currentRoute == .bluetooth, self.bluetoothPort == port else { return }
                self.bluetoothSync(storedVolume)
            }
        }
    }
}
