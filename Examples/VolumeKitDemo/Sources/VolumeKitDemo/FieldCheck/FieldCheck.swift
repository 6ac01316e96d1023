import Foundation
import VolumeKit

/// The field check's progression, platform-free: which step is on screen, what the trace records at each
/// input, and when VolumeKit's button capture and Ring/Silent detector start and stop.
///
/// One `mutating` method per input (the person taps Begin, Start, Done, Yes/No, Skip or Stop) returns the
/// actions to carry out, in order; the screen performs them on a `TraceRecorder` and on VolumeKit. What each
/// step records (`docs/field-check.md`):
///
/// - on screen: the capture and detector changes the step needs (``Action/startButtons``, …);
/// - Start: a mark `step <id>: <title>`, then the step's gesture;
/// - each answer: a mark `<id>/<question id>: <question>` with the answer;
/// - Skip: a mark `step <id> skipped`.
public struct FieldCheck: Sendable, Equatable {
    /// The protocol's version, written in the trace's note: a changed step list is a new version.
    public static let version = 1
    /// The extras' version (``FieldCheckStep/extras``), written the same way: `field check extras 1`.
    public static let extrasVersion = 1

    /// Where the person is.
    public enum Phase: Sendable, Equatable {
        /// Before Begin.
        case notStarted
        /// The step's instruction is on screen; the person has not started it yet.
        case ready(step: Int)
        /// The person is doing the step.
        case doing(step: Int)
        /// The step is done; its question `question` is on screen.
        case asking(step: Int, question: Int)
        /// Every step done, or stopped early.
        case finished
    }

    /// What the screen must do.
    public enum Action: Sendable, Equatable {
        /// Record a mark (a person's answer when `answer` is set).
        case mark(String, answer: Bool?)
        /// Record what the person does, as it starts.
        case gesture(TraceGesture)
        /// Start capturing the volume buttons.
        case startButtons
        /// Stop capturing them (the user's volume comes back).
        case stopButtons
        /// Start the Ring/Silent detector.
        case startSilentMode
        /// Stop it.
        case stopSilentMode
        /// Start VolumeKit's HUD.
        case startHUD
        /// Stop it (the system HUD comes back).
        case stopHUD
        /// Start capturing the buttons as camera capture events (with the camera preview on screen).
        case startCaptureEvents
        /// Stop it.
        case stopCaptureEvents
        /// Close the trace: it is ready to export.
        case finish
    }

    /// The steps, in order.
    public let steps: [FieldCheckStep]
    /// The protocol's name, as the first mark and the trace's note say it (`field check 1`).
    public let name: String
    /// Where the person is.
    public private(set) var phase: Phase = .notStarted
    /// The answers so far, by `<step id>/<question id>`.
    public private(set) var answers: [String: Bool] = [:]
    /// The steps skipped, by id.
    public private(set) var skipped: [String] = []
    private var capturing = false
    private var detecting = false
    private var showingHUD = false
    private var capturingEvents = false

    /// A check of `steps` (the standard protocol by default) called `name`.
    public init(steps: [FieldCheckStep] = FieldCheckStep.standard, name: String = "field check \(FieldCheck.version)") {
        self.steps = steps
        self.name = name
    }

    /// The extras: ``FieldCheckStep/extras``, named `field check extras 1`.
    public static func extras() -> FieldCheck {
        FieldCheck(steps: FieldCheckStep.extras, name: "field check extras \(extrasVersion)")
    }

    /// The step on screen, if any.
    public var currentStep: FieldCheckStep? {
        switch phase {
        case .ready(let step), .doing(let step), .asking(let step, _): steps[step]
        case .notStarted, .finished: nil
        }
    }

    /// The question on screen, if any.
    public var currentQuestion: FieldCheckQuestion? {
        guard case .asking(let step, let question) = phase else { return nil }
        return steps[step].questions[question]
    }

    /// The person taps Begin: the first step comes on screen.
    public mutating func begin() -> [Action] {
        guard phase == .notStarted else { return [] }
        return [.mark("\(name): \(steps.count) steps", answer: nil)] + show(0)
    }

    /// The person taps Start: the step's mark and gesture are recorded, then the person does it.
    public mutating func start() -> [Action] {
        guard case .ready(let index) = phase else { return [] }
        let step = steps[index]
        phase = .doing(step: index)
        return [.mark("step \(step.id): \(step.title)", answer: nil)] + (step.gesture.map { [.gesture($0)] } ?? [])
    }

    /// The person taps Done: the step's first question comes on screen (or the next step, if it has none).
    public mutating func done() -> [Action] {
        guard case .doing(let index) = phase else { return [] }
        guard !steps[index].questions.isEmpty else { return show(index + 1) }
        phase = .asking(step: index, question: 0)
        return []
    }

    /// The person answers the question on screen.
    public mutating func answer(_ yes: Bool) -> [Action] {
        guard case .asking(let index, let number) = phase else { return [] }
        let step = steps[index]
        let question = step.questions[number]
        let key = "\(step.id)/\(question.id)"
        answers[key] = yes
        let mark = Action.mark("\(key): \(question.text)", answer: yes)
        if number + 1 < step.questions.count {
            phase = .asking(step: index, question: number + 1)
            return [mark]
        }
        return [mark] + show(index + 1)
    }

    /// The person skips an optional step (before or while doing it).
    public mutating func skip() -> [Action] {
        let index: Int
        switch phase {
        case .ready(let step), .doing(let step): index = step
        default: return []
        }
        guard steps[index].isOptional else { return [] }
        skipped.append(steps[index].id)
        return [.mark("step \(steps[index].id) skipped", answer: nil)] + show(index + 1)
    }

    /// The person stops the check early: everything stops and the trace closes with what it has.
    public mutating func stop() -> [Action] {
        let at: String
        switch phase {
        case .notStarted, .finished: return []
        case .ready(let step), .doing(let step), .asking(let step, _): at = steps[step].id
        }
        return [.mark("field check stopped at step \(at)", answer: nil)] + finish()
    }

    /// Puts step `index` on screen, starting and stopping what it needs; past the last step, finishes.
    private mutating func show(_ index: Int) -> [Action] {
        guard index < steps.count else { return [.mark("field check complete", answer: nil)] + finish() }
        let step = steps[index]
        phase = .ready(step: index)
        var actions: [Action] = []
        // What the step does not need stops first, so two ways of capturing never overlap.
        if capturingEvents && !step.capturesEvents {
            capturingEvents = false
            actions.append(.stopCaptureEvents)
        }
        if showingHUD && !step.runsHUD {
            showingHUD = false
            actions.append(.stopHUD)
        }
        if detecting != step.detectsSilentMode {
            detecting = step.detectsSilentMode
            actions.append(detecting ? .startSilentMode : .stopSilentMode)
        }
        if capturing != step.capturesButtons {
            capturing = step.capturesButtons
            actions.append(capturing ? .startButtons : .stopButtons)
        }
        if !showingHUD && step.runsHUD {
            showingHUD = true
            actions.append(.startHUD)
        }
        if !capturingEvents && step.capturesEvents {
            capturingEvents = true
            actions.append(.startCaptureEvents)
        }
        return actions
    }

    private mutating func finish() -> [Action] {
        var actions: [Action] = []
        if capturingEvents { actions.append(.stopCaptureEvents) }
        if showingHUD { actions.append(.stopHUD) }
        if detecting { actions.append(.stopSilentMode) }
        if capturing { actions.append(.stopButtons) }
        detecting = false
        capturing = false
        showingHUD = false
        capturingEvents = false
        phase = .finished
        return actions + [.finish]
    }
}

/// Carries out a ``FieldCheck``'s actions: records marks, gestures and each feature's start and stop on the
/// trace, and starts and stops the features — the same code for the screen on an iPhone and for the
/// simulated person on Linux, so that both write the same trace for the same inputs.
public struct FieldCheckPerformer {
    /// The trace being recorded.
    public let recorder: TraceRecorder
    /// Starts capturing the volume buttons (feature `buttons`).
    public var startButtons: () throws -> Void
    /// Stops capturing them.
    public var stopButtons: () -> Void
    /// Starts the Ring/Silent detector (feature `mute`).
    public var startSilentMode: () -> Void
    /// Stops it.
    public var stopSilentMode: () -> Void
    /// Closes the trace.
    public var finish: () -> Void
    /// Starts VolumeKit's HUD (feature `hud`; the extras' HUD steps). Nothing by default.
    public var startHUD: () -> Void = {}
    /// Stops it.
    public var stopHUD: () -> Void = {}
    /// Starts capturing the buttons as camera capture events (feature `camera`). Nothing by default.
    public var startCaptureEvents: () throws -> Void = {}
    /// Stops it.
    public var stopCaptureEvents: () -> Void = {}

    /// Creates a performer recording on `recorder`.
    public init(
        recorder: TraceRecorder, startButtons: @escaping () throws -> Void, stopButtons: @escaping () -> Void,
        startSilentMode: @escaping () -> Void, stopSilentMode: @escaping () -> Void,
        finish: @escaping () -> Void
    ) {
        self.recorder = recorder
        self.startButtons = startButtons
        self.stopButtons = stopButtons
        self.startSilentMode = startSilentMode
        self.stopSilentMode = stopSilentMode
        self.finish = finish
    }

    /// Carries out `actions` in order. Returns a sentence for each problem (capture that could not start),
    /// also recorded as a mark.
    @discardableResult
    public func perform(_ actions: [FieldCheck.Action]) -> [String] {
        var problems: [String] = []
        for action in actions {
            switch action {
            case .mark(let text, let answer):
                recorder.mark(text, answer: answer)
            case .gesture(let gesture):
                recorder.gesture(gesture)
            case .startButtons:
                recorder.appCalled("start", on: "buttons")
                do {
                    try startButtons()
                } catch {
                    recorder.mark("buttons did not start: \(error)")
                    problems.append("Capture could not start: \(error)")
                }
            case .stopButtons:
                recorder.appCalled("stop", on: "buttons")
                stopButtons()
            case .startSilentMode:
                recorder.appCalled("start", on: "mute")
                startSilentMode()
            case .stopSilentMode:
                recorder.appCalled("stop", on: "mute")
                stopSilentMode()
            case .startHUD:
                recorder.appCalled("start", on: "hud")
                startHUD()
            case .stopHUD:
                recorder.appCalled("stop", on: "hud")
                stopHUD()
            case .startCaptureEvents:
                recorder.appCalled("start", on: "camera")
                do {
                    try startCaptureEvents()
                } catch {
                    recorder.mark("camera capture events did not start: \(error)")
                    problems.append("Capture events could not start: \(error)")
                }
            case .stopCaptureEvents:
                recorder.appCalled("stop", on: "camera")
                stopCaptureEvents()
            case .finish:
                finish()
            }
        }
        return problems
    }
}
