import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the user physically did on the simulated device, recorded by the device itself — apart from anything
/// VolumeKit reports — so that an oracle can judge every event VolumeKit delivered against it
/// (``PressOracle``).
public struct TruthRecord: Sendable, Equatable {
    /// One physical action.
    public enum Action: Sendable, Equatable {
        /// A button went down at the record's time and came up `duration` seconds later (`nil` while still
        /// down). `context` says whether an app could see the press then, and which buttons were pressed
        /// (``PressContext/source``: the phone's or a headset's).
        case press(VolumeButton, duration: TimeInterval?, context: PressContext)
        /// The user's volume on the current route became `value` by other means than the buttons, and is the
        /// user's from then on: Control Center's slider (`by` is `"controlCenter"`), the volume a Bluetooth
        /// headset stored itself, taken after it connects (`"bluetoothSync"`), or Headphone Notifications
        /// turning a loud volume down (`"headphoneSafety"`, the system's doing, not the user's hand).
        case volume(Float, by: String)
        /// The user moved the audio to another route (plugged headphones in, connected a speaker).
        case route(AudioRoute)
    }

    /// When, in seconds of virtual time.
    public var time: Instant
    /// What.
    public var action: Action

    /// Creates a record.
    public init(time: Instant, action: Action) {
        self.time = time
        self.action = action
    }
}

/// Where a press happened, as the device knew it at the instant the button went down.
public struct PressContext: Sendable, Equatable {
    /// How visible the press was to an app in front.
    public enum Visibility: String, Sendable, Equatable {
        /// The app is running, active and not suspended, with no call, interruption or alarm holding the audio:
        /// a capturing app is expected to see the press (once it has settled, see ``PressOracle``).
        case inFront
        /// The app is running and in front, but an interruption began (another app's audio, Siri, an alarm) and
        /// nothing has ended it yet: whether the app sees the press depends on when it gets its session back.
        case interrupted
        /// The app is not running, not active (background, Control Center, Siri) or a call takes the buttons:
        /// no app can see the press, and reporting it would be a phantom.
        case unseen
    }

    /// How visible the press was.
    public var visibility: Visibility
    /// Seconds since the last change that disturbs capture (launch, becoming active, an interruption's begin or
    /// end, a call, an alarm, a takeover, the camera, a route change, a media reset, a Control Center change);
    /// `.infinity` when nothing has happened yet.
    public var sinceDisturbance: TimeInterval
    /// The volume was already at the rail the press pushes toward (0 for down, 1 for up): it changes nothing.
    public var atRail: Bool
    /// The volume the press's own step left (its first step; `nil` when it moved nothing: a call, the ringer,
    /// capture events).
    public var landedOn: Float?
    /// Whether the app's own capture claimed to be capturing when the button went down
    /// (``SimulatedDevice/setCaptureClaim(_:)``), `nil` when no app set a claim.
    public var claimedCapture: Bool?
    /// Which buttons: the phone's side buttons, or a headset's (``SimulatedDevice/headsetPress(_:)``).
    public var source: PressSource = .sideButton
    /// The EU headphone warning took the press's first step: it moved nothing
    /// (``DeviceBehaviour/HeadphoneLimit/euWarning``), and nothing reached the app.
    public var volumeLimitWarning = false
    /// When the EU headphone warning took one of the hold's auto-repeats instead (its first step above the
    /// limit came while held): that repeat moved nothing, so the hold's steps show a gap of two. `nil` when it
    /// took none.
    public var warnedRepeat: Instant?

    /// Which buttons a press was made with.
    public enum PressSource: String, Sendable, Equatable {
        /// The phone's volume buttons: what VolumeKit captures.
        case sideButton
        /// A headset's volume buttons (wired remote or Bluetooth): they move the volume of the headset's
        /// route, as a side button's press or to the headset's own level (``DeviceBehaviour/headsetButtons``).
        /// An app may take it for a press; it need not.
        case headset
    }

    /// Creates a context.
    public init(
        visibility: Visibility, sinceDisturbance: TimeInterval, atRail: Bool = false, claimedCapture: Bool? = nil
    ) {
        self.visibility = visibility
        self.sinceDisturbance = sinceDisturbance
        self.atRail = atRail
        self.claimedCapture = claimedCapture
    }
}

extension TruthRecord {
    /// One JSON object, keys in a stable order: `{"t":…, "type":"truth", "action":"press", "button":"up",
    /// "duration":0.08, "seen":"inFront"}` or `{"t":…, "type":"truth", "action":"volume", "value":0.3,
    /// "by":"controlCenter"}`.
    public var json: String {
        let t = "\"t\":\(ScenarioRecord.format(time))"
        switch action {
        case .press(let button, let duration, let context):
            let length = duration.map { ScenarioRecord.format($0) } ?? "null"
            // Side-button presses print as before; a headset's and a warned press say so.
            let source = context.source == .sideButton ? "" : ", \"source\":\"\(context.source.rawValue)\""
            let warning =
                (context.volumeLimitWarning ? ", \"warning\":true" : "")
                + (context.warnedRepeat.map { ", \"warnedRepeat\":\(ScenarioRecord.format($0))" } ?? "")
            return
                "{\(t), \"type\":\"truth\", \"action\":\"press\", \"button\":\"\(button.rawValue)\", \"duration\":\(length), \"seen\":\"\(context.visibility.rawValue)\"\(source)\(warning)}"
        case .volume(let value, let by):
            return
                "{\(t), \"type\":\"truth\", \"action\":\"volume\", \"value\":\(ScenarioRecord.format(Double(value))), \"by\":\"\(by)\"}"
        case .route(let route):
            return "{\(t), \"type\":\"truth\", \"action\":\"route\", \"route\":\"\(route.rawValue)\"}"
        }
    }

    /// One line for people: "1.0      you pressed up (0.08 s)".
    public var text: String {
        let t = ScenarioRecord.format(time).padded(toLength: 8)
        switch action {
        case .press(let button, let duration, let context):
            let length = duration.map { " (\(ScenarioRecord.format($0)) s)" } ?? ""
            let note: String
            switch context.visibility {
            case .inFront: note = ""
            case .interrupted: note = ", during an interruption"
            case .unseen: note = ", the app not in front"
            }
            let headset = context.source == .headset ? " on the headset" : ""
            let warning =
                (context.volumeLimitWarning ? ", taken by the high-volume warning" : "")
                + (context.warnedRepeat.map {
                    ", its repeat at \(ScenarioRecord.format($0)) taken by the high-volume warning"
                } ?? "")
            return "\(t) you pressed \(button.rawValue)\(headset)\(length)\(note)\(warning)"
        case .volume(let value, let by):
            let level = ScenarioRecord.format(Double(value))
            switch by {
            case "bluetoothSync": return "\(t) the Bluetooth headset set the volume to its own \(level)"
            case "headphoneSafety": return "\(t) Headphone Safety turned the volume down to \(level)"
            default: return "\(t) you set the volume to \(level) in Control Center"
            }
        case .route(let route):
            return "\(t) you moved the audio to \(route.rawValue)"
        }
    }
}

/// The device's side of the ground truth: it records each press and each volume the user chooses as it
/// happens, with the context an app had then.
extension SimulatedDevice {
    /// Everything the user physically did, in time order: each press (button, when, how long, whether an app
    /// could see it, and with which buttons) and each volume chosen in Control Center or set for the user by a
    /// headset's sync or Headphone Safety. Kept apart from what any app reports.
    public var truth: [TruthRecord] { locked { truthLog } }

    /// Set by the harness that runs the app: asked at each button press whether the app's capture claims to be
    /// capturing then (``PressContext/claimedCapture``; e.g. `{ engine.isCapturing }`). `nil` removes it.
    public func setCaptureClaim(_ claim: (@Sendable () -> Bool)?) {
        locked { captureClaimProvider = claim }
    }

    /// Marks now as a moment that disturbs capture (``PressContext/sinceDisturbance``): the harness calls it when
    /// the app starts or stops capture; the device itself marks launches, app-state changes, interruptions,
    /// calls, alarms, takeovers, the camera, route changes and media resets.
    public func markDisturbance() {
        locked { lastDisturbance = currentTime }
    }

    /// The context of a press of `button` now.
    func pressContext(_ button: VolumeButton) -> PressContext {
        let visibility: PressContext.Visibility
        if let app, app.state == .active, !app.isSuspended, !callInProgress {
            visibility = audioInterrupted || alarmRinging ? .interrupted : .inFront
        } else {
            visibility = .unseen
        }
        let volume = volumes[currentRoute]!
        let atRail = button == .down ? volume <= 0 : volume >= 1
        let claim = captureClaimProvider
        return PressContext(
            visibility: visibility, sinceDisturbance: currentTime - lastDisturbance, atRail: atRail,
            claimedCapture: claim.map { $0() })
    }

    /// Records a press going down now; returns its index for ``recordRelease(_:)``.
    func recordPress(_ button: VolumeButton, source: PressContext.PressSource = .sideButton) -> Int {
        var context = pressContext(button)
        context.source = source
        truthLog.append(TruthRecord(time: currentTime, action: .press(button, duration: nil, context: context)))
        return truthLog.count - 1
    }

    /// Records that the EU warning took the first step of the press at `index`.
    func recordWarning(_ index: Int) {
        updatePress(index) { $0.volumeLimitWarning = true }
    }

    /// Records that the EU warning took an auto-repeat of the hold at `index` now.
    func recordWarnedRepeat(_ index: Int) {
        let now = currentTime
        updatePress(index) { $0.warnedRepeat = now }
    }

    /// Records the volume the press at `index` left with its first step.
    func recordStep(_ index: Int) {
        let landed = volumes[currentRoute]
        updatePress(index) { $0.landedOn = landed }
    }

    /// Changes the context of the press at `index` (nothing when it is no press record).
    private func updatePress(_ index: Int, _ change: (inout PressContext) -> Void) {
        guard truthLog.indices.contains(index),
            case .press(let button, let duration, var context) = truthLog[index].action
        else { return }
        change(&context)
        truthLog[index].action = .press(button, duration: duration, context: context)
    }

    /// Records the release of the press at `index` now.
    func recordRelease(_ index: Int) {
        guard truthLog.indices.contains(index),
            case .press(let button, nil, let context) = truthLog[index].action
        else { return }
        truthLog[index].action = .press(button, duration: currentTime - truthLog[index].time, context: context)
    }

    /// Records a volume the user chose by other means than the buttons.
    func recordUserVolume(_ value: Float, by source: String) {
        truthLog.append(TruthRecord(time: currentTime, action: .volume(value, by: source)))
    }

    /// Records a route change the user made.
    func recordRoute(_ route: AudioRoute) {
        truthLog.append(TruthRecord(time: currentTime, action: .route(route)))
    }

    /// Marks a disturbance from inside the device (already locked).
    func disturb() { lastDisturbance = currentTime }
}
