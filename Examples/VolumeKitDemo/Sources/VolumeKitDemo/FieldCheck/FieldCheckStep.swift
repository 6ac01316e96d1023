import Foundation
import VolumeKit

/// A yes/no question only the person holding the iPhone can answer ("did the system HUD appear?").
public struct FieldCheckQuestion: Sendable, Equatable, Identifiable {
    /// Short and stable, unique within its step (`hud`, `counted`): the trace's marks name it.
    public let id: String
    /// The question as the screen asks it.
    public let text: String

    /// Creates a question.
    public init(_ id: String, _ text: String) {
        self.id = id
        self.text = text
    }

    /// Did the system's own volume HUD appear?
    static let hud = FieldCheckQuestion("hud", "Did the system volume HUD appear?")

    /// Did VolumeKit's own HUD appear?
    static let customHUD = FieldCheckQuestion(
        "custom-hud", "Did VolumeKit's HUD (a bar near the top of the screen) appear?")

    /// Did the screen show each press? `presses` says which.
    static func counted(_ presses: String) -> FieldCheckQuestion {
        FieldCheckQuestion("counted", "Did this screen show every press (\(presses))?")
    }
}

/// One step of the field check: what the person is asked to do, what VolumeKit runs meanwhile, and the
/// questions asked afterwards.
public struct FieldCheckStep: Sendable, Equatable, Identifiable {
    /// Short and stable (`hold-up`): the trace's marks name it, so maintainers can find a step in any trace.
    public let id: String
    /// A few words, for the screen's title and the step's mark.
    public let title: String
    /// What the person does, as the screen says it.
    public let instruction: String
    /// What the person does, as the trace records it when the step starts (`nil`: nothing to record).
    public let gesture: TraceGesture?
    /// Whether VolumeKit captures the volume buttons during the step (off: the buttons work as usual).
    public let capturesButtons: Bool
    /// Whether the Ring/Silent detector runs during the step.
    public let detectsSilentMode: Bool
    /// Whether the person may skip the step (a call needs a second phone).
    public let isOptional: Bool
    /// Asked in order once the person says the step is done.
    public let questions: [FieldCheckQuestion]
    /// Whether VolumeKit's own HUD runs during the step (feature `hud`).
    public let runsHUD: Bool
    /// Whether the volume buttons are captured as camera capture events during the step (strategy
    /// `captureEvents`, feature `camera`; iOS 17.2+, with a camera preview on screen).
    public let capturesEvents: Bool
    /// What the screen shows for the person to use during the step, if anything.
    public let aid: FieldCheckAid?

    /// Creates a step.
    public init(
        id: String, title: String, instruction: String, gesture: TraceGesture?, capturesButtons: Bool = true,
        detectsSilentMode: Bool = false, runsHUD: Bool = false, capturesEvents: Bool = false,
        aid: FieldCheckAid? = nil, isOptional: Bool = false, questions: [FieldCheckQuestion]
    ) {
        self.id = id
        self.title = title
        self.instruction = instruction
        self.gesture = gesture
        self.capturesButtons = capturesButtons
        self.detectsSilentMode = detectsSilentMode
        self.runsHUD = runsHUD
        self.capturesEvents = capturesEvents
        self.aid = aid
        self.isOptional = isOptional
        self.questions = questions
    }
}

/// Something the field check's screen shows during a step for the person to use.
public enum FieldCheckAid: String, Sendable, Equatable {
    /// A media player (AVKit's `VideoPlayer`) with a short tone: a player taking over the audio session.
    case player
    /// A web page with an `<audio>` element playing the same tone: a web view taking over the session.
    case webView
    /// A live camera preview: capture events reach only an app that is using the camera.
    case camera
}

extension FieldCheckStep {
    /// The fixed protocol of issue 14 (field check version ``FieldCheck/version``): taps up and down, 3 s
    /// holds, presses at 0 and at 1, headphones in and out, a Control Center change, Siri, a call, the
    /// Ring/Silent switch (or Action button), background and back, and VolumeKit letting go. Each step
    /// exercises rules the envelope leaves open (`docs/field-check.md` says which).
    public static let standard: [FieldCheckStep] = [
        FieldCheckStep(
            id: "tap-up", title: "Taps up",
            instruction: "Press volume up three times, about a second apart.",
            gesture: .other("press up x3 every 1.0"),
            questions: [.hud, .counted("3 up")]),
        FieldCheckStep(
            id: "tap-down", title: "Taps down",
            instruction: "Press volume down three times, about a second apart.",
            gesture: .other("press down x3 every 1.0"),
            questions: [.hud, .counted("3 down")]),
        FieldCheckStep(
            id: "hold-up", title: "Hold up",
            instruction: "Hold volume up for about 3 seconds, then let go.",
            gesture: .hold(.up, seconds: 3),
            questions: [
                .hud, FieldCheckQuestion("repeats", "While you held it, did the count keep rising (repeats)?"),
            ]),
        FieldCheckStep(
            id: "hold-down", title: "Hold down",
            instruction: "Hold volume down for about 3 seconds, then let go.",
            gesture: .hold(.down, seconds: 3),
            questions: [
                .hud, FieldCheckQuestion("repeats", "While you held it, did the count keep rising (repeats)?"),
            ]),
        FieldCheckStep(
            id: "to-zero", title: "Volume to 0",
            instruction:
                "VolumeKit has let go of the buttons. Press volume down until the system HUD shows the volume at zero, then twice more.",
            gesture: .other("volume to 0 with the buttons, capture off"), capturesButtons: false,
            questions: [
                FieldCheckQuestion("hud", "Did the system volume HUD appear (it should: capture is off)?"),
                FieldCheckQuestion("empty", "Did the HUD show the volume at zero?"),
            ]),
        FieldCheckStep(
            id: "at-zero", title: "Presses at 0",
            instruction: "The volume is at 0. Press volume down twice, then up once.",
            gesture: .other("press down x2 every 1.0, then up"),
            questions: [.hud, .counted("2 down, 1 up")]),
        FieldCheckStep(
            id: "to-one", title: "Volume to 1",
            instruction:
                "VolumeKit has let go again. Press volume up until the system HUD shows the volume full, then twice more.",
            gesture: .other("volume to 1 with the buttons, capture off"), capturesButtons: false,
            questions: [
                FieldCheckQuestion("hud", "Did the system volume HUD appear (it should: capture is off)?"),
                FieldCheckQuestion("full", "Did the HUD show the volume full?"),
            ]),
        FieldCheckStep(
            id: "at-one", title: "Presses at 1",
            instruction: "The volume is at 1. Press volume up twice, then down once.",
            gesture: .other("press up x2 every 1.0, then down"),
            questions: [.hud, .counted("2 up, 1 down")]),
        FieldCheckStep(
            id: "headphones-in", title: "Headphones in",
            instruction:
                "Connect headphones (wired, or Bluetooth ones already paired). Wait 2 seconds, then press volume up once.",
            gesture: .other("route headphones"),
            questions: [
                .hud, .counted("1 up"), FieldCheckQuestion("bluetooth", "Were they Bluetooth headphones?"),
            ]),
        FieldCheckStep(
            id: "headphones-out", title: "Headphones out",
            instruction: "Disconnect the headphones. Wait 2 seconds, then press volume down once.",
            gesture: .other("route speaker"),
            questions: [.hud, .counted("1 down")]),
        FieldCheckStep(
            id: "control-center", title: "Control Center",
            instruction:
                "Open Control Center, drag the volume slider to about half, close Control Center. Then press volume up once.",
            gesture: .other("Control Center slider to about 0.5, then press up"),
            questions: [
                FieldCheckQuestion("slider", "Did the Control Center slider move as you dragged it?"),
                FieldCheckQuestion("shown", "After you closed it, did this screen show about half as your volume?"),
                .hud, .counted("1 up"),
            ]),
        FieldCheckStep(
            id: "siri", title: "Siri",
            instruction:
                "Ask Siri something it answers aloud (hold the side button: “What time is it?”). After the answer, press volume up once.",
            gesture: .other("Siri, then press up"),
            questions: [
                FieldCheckQuestion("spoke", "Did Siri answer aloud?"), .hud, .counted("1 up after Siri"),
            ]),
        FieldCheckStep(
            id: "call", title: "A call",
            instruction:
                "If you can: have another phone call this iPhone, answer, talk for 5 seconds, hang up. Then press volume down once.",
            gesture: .other("call, then press down"), isOptional: true,
            questions: [.hud, .counted("1 down after the call")]),
        FieldCheckStep(
            id: "silent-switch", title: "Ring/Silent",
            instruction:
                "Turn Silent mode on with the Ring/Silent switch (or the Action button, or Control Center), wait 3 seconds, turn it off again, wait 3 seconds.",
            gesture: .other("Silent mode on, then off"), detectsSilentMode: true,
            questions: [
                FieldCheckQuestion("shown", "Did this screen show Silent, then Ring, each within about 2 seconds?"),
                FieldCheckQuestion("action-button", "Does this iPhone have an Action button instead of a switch?"),
            ]),
        FieldCheckStep(
            id: "background", title: "Background and back",
            instruction:
                "Go to the Home Screen, press volume up once there, come back to this app and press volume up once.",
            gesture: .other("background, press up, foreground, press up"),
            questions: [
                FieldCheckQuestion("home-hud", "On the Home Screen, did the system volume HUD appear?"),
                FieldCheckQuestion("back-hud", "Back in this app, did the system volume HUD appear?"),
                FieldCheckQuestion("back-counted", "Back in this app, did this screen show the press?"),
            ]),
        FieldCheckStep(
            id: "let-go", title: "VolumeKit lets go",
            instruction: "VolumeKit has stopped. Press volume down once.",
            gesture: .press(.down), capturesButtons: false,
            questions: [FieldCheckQuestion("hud", "Did the system volume HUD appear (it should: capture is off)?")]),
    ]
}

extension FieldCheckStep {
    /// An extras step in which something else takes over the audio session while VolumeKit's HUD runs: the
    /// person plays a tone in it, presses during and after, and says which HUD showed. The player and the web
    /// view steps differ only in what plays the tone.
    /// - Parameters:
    ///   - id: the step's id (`player`, `web-view`).
    ///   - title: what takes the session, as the title starts ("A player"); " takes the session" follows.
    ///   - what: what the person taps play in, as the instruction names it ("the player").
    ///   - gestureName: what plays, as the trace's gesture names it ("player").
    ///   - aid: what the screen shows for it.
    static func takingTheSession(
        id: String, title: String, what: String, gestureName: String, aid: FieldCheckAid
    ) -> FieldCheckStep {
        FieldCheckStep(
            id: id, title: "\(title) takes the session",
            instruction:
                "Tap play in \(what) below. While the tone plays, press volume up twice. Then pause it and press volume down once.",
            gesture: .other("\(gestureName) plays, press up x2, pause, press down, HUD on"), capturesButtons: false,
            runsHUD: true, aid: aid,
            questions: [
                FieldCheckQuestion("played", "Did you hear the tone?"),
                FieldCheckQuestion("custom-hud", "While it played, did VolumeKit's HUD appear?"),
                FieldCheckQuestion("hud", "While it played, did the system volume HUD appear?"),
                FieldCheckQuestion(
                    "after", "After you paused it, did VolumeKit's HUD (not the system's) show the last press?"),
            ])
    }

    /// The extras (field check extras version ``FieldCheck/extrasVersion``, issue 26), a second check with its
    /// own trace: VolumeKit's HUD in portrait, in landscape and beside another app on an iPad, a player and a
    /// web view taking over the audio session while the HUD runs, AirPlay and a Bluetooth reconnect while
    /// capture runs, and capture events with a camera preview. `docs/field-check.md` says what each tells.
    public static let extras: [FieldCheckStep] = [
        FieldCheckStep(
            id: "hud", title: "VolumeKit's HUD",
            instruction:
                "VolumeKit's HUD replaces the system's now (capture is off: the volume really changes). Press volume up once, then down once.",
            gesture: .other("press up, then down, HUD on"), capturesButtons: false, runsHUD: true,
            questions: [
                .customHUD,
                FieldCheckQuestion(
                    "placed", "Did it sit below the status bar (or beside the Dynamic Island), fully visible?"),
                .hud,
            ]),
        FieldCheckStep(
            id: "hud-landscape", title: "HUD in landscape",
            instruction:
                "Turn Portrait Orientation Lock off, turn the iPhone to landscape, press volume up once, then turn it back.",
            gesture: .other("landscape, press up, portrait, HUD on"), capturesButtons: false, runsHUD: true,
            questions: [
                .customHUD,
                FieldCheckQuestion("placed", "In landscape, was it fully visible, clear of the notch or island?"),
                .hud,
            ]),
        FieldCheckStep(
            id: "hud-split-view", title: "iPad: beside another app",
            instruction:
                "iPad only (on an iPhone, skip): open another app beside this one (Split View or Stage Manager). Tap this app, press volume up; tap the other app, press volume up.",
            gesture: .other("split view, press up in each app, HUD on"), capturesButtons: false, runsHUD: true,
            isOptional: true,
            questions: [
                FieldCheckQuestion(
                    "this-app", "With this app active, did VolumeKit's HUD appear and not the system's?"),
                FieldCheckQuestion("other-app", "With the other app active, did the system HUD appear (it should)?"),
            ]),
        .takingTheSession(id: "player", title: "A player", what: "the player", gestureName: "player", aid: .player),
        .takingTheSession(
            id: "web-view", title: "A web view", what: "the web page", gestureName: "web view", aid: .webView),
        FieldCheckStep(
            id: "airplay", title: "AirPlay",
            instruction:
                "If an AirPlay speaker or TV is near: in Control Center, choose it as the audio output, come back, press volume up twice and down once. Then choose this iPhone again.",
            gesture: .other("route AirPlay, press up x2, down"), isOptional: true,
            questions: [
                .hud, .counted("2 up, 1 down"),
                FieldCheckQuestion("kept", "Did the speaker's own volume stay where it was?"),
            ]),
        FieldCheckStep(
            id: "bluetooth-reconnect", title: "Bluetooth reconnect",
            instruction:
                "With Bluetooth headphones connected: press volume up once. Turn them off (AirPods: into the case, lid closed), wait 5 seconds, turn them on again until they reconnect, wait 5 seconds, press volume up once.",
            gesture: .other("Bluetooth off, on again, press up before and after"), isOptional: true,
            questions: [
                FieldCheckQuestion("reconnected", "Did the headphones reconnect to this iPhone?"),
                .hud, .counted("2 up"),
            ]),
        FieldCheckStep(
            id: "camera", title: "Camera capture events",
            instruction:
                "iOS 17.2 or later (else skip). Allow the camera. With the preview showing, press volume up three times, a second apart, then hold volume down for 2 seconds.",
            gesture: .other("camera preview, press up x3 every 1.0, hold down 2 s"), capturesButtons: false,
            capturesEvents: true, aid: .camera, isOptional: true,
            questions: [
                FieldCheckQuestion("preview", "Did the camera preview show?"),
                .counted("3 up, then a hold"),
                .hud,
            ]),
    ]
}
