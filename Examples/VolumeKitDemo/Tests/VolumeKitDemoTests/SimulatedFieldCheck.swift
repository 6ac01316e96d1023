import Foundation
import VolumeKitDemo
import VolumeKitTesting

/// The field check walked on a `SimulatedDevice` by a simulated person: the same ``FieldCheck`` actions
/// the screen carries out, on the same engines (a `VolumeButtonsEngine` and a `MuteSwitchEngine` on the
/// device's clients, recorded through `recording(to:feature:)`), each step done as its instruction says.
///
/// The person answers truthfully where the simulator can tell (did the system HUD show, did the screen
/// count every press, is the volume at 0); the rest are fixed and named in the trace's note. The trace says
/// `"source":"simulator"`: it is the simulator's behaviour, never evidence of an iPhone's.
final class SimulatedFieldCheck: @unchecked Sendable {
    /// Answers the simulator cannot give, fixed.
    static let fixedAnswers = [
        "headphones-in/bluetooth": false, "control-center/slider": true, "siri/spoke": true,
        "silent-switch/action-button": false,
    ]

    let device: SimulatedDevice
    let recorder: TraceRecorder
    private(set) var check = FieldCheck()
    private var buttons: VolumeButtonsEngine!
    private var mute: MuteSwitchEngine!
    private let events = Locked([VolumeButtonEvent]())
    private let userVolumes = Locked([Float]())
    private let muteStates = Locked([MuteState]())
    private let closing = Locked(FieldCheckClosing())
    private let closedAt = Locked<Int?>(nil)
    /// When the step on screen started, the presses the person made in it, and moments inside it.
    private var stepStart: Instant = 0
    private var pressesMade = 0
    private var moments: [String: Instant] = [:]

    init(_ configuration: SimulatedDevice.Configuration = .init(), date: String = "2026-12-01") {
        device = SimulatedDevice(configuration)
        let answers = Self.fixedAnswers.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value ? "yes" : "no")" }
        let note =
            "field check \(FieldCheck.version) walked by SimulatedFieldCheck (a simulated person) on SimulatedDevice "
            + "(iOS \(configuration.osVersion) \(configuration.kind.rawValue), default behaviour), \(date); "
            + "fixed answers: \(answers.joined(separator: ", "))"
        let recorder = TraceRecorder(
            header: .simulator(device, buttons: VolumeButtonsConfiguration(), note: note), clock: device.clock)
        self.recorder = recorder
        let events = self.events
        let userVolumes = self.userVolumes
        let muteStates = self.muteStates
        buttons = VolumeButtonsEngine(
            clients: device.clients.recording(to: recorder, feature: "buttons"),
            onEvent: { event in
                events.withLock { $0.append(event) }
                recorder.buttonEvent(event)
            },
            onUserVolume: { volume in userVolumes.withLock { $0.append(volume) } }
        )
        mute = MuteSwitchEngine(
            observesVolume: false, soundURL: URL(fileURLWithPath: "/VolumeKit.bundle/mute-probe.caf"),
            clients: device.clients.recording(to: recorder, feature: "mute"),
            onChange: { change in muteStates.withLock { $0.append(change.new) } }
        )
    }

    /// How many records the trace held when the screen would have closed its file (`nil`: not closed).
    var recordsWhenClosed: Int? { closedAt.current }

    /// The button events the app received.
    var buttonEvents: [VolumeButtonEvent] { events.current }

    /// What capture learned of the simulated iPhone: what the screen's "Your iPhone" shows.
    var calibration: CalibrationMachine { buttons.calibration }

    /// Walks every step, answering each question; the check ends finished. With `stoppingIn`, the person
    /// stops the check once that step's presses are done (the check ends stopped).
    func run(stoppingIn stop: String? = nil) {
        perform(check.begin())
        device.advance(by: 2)
        while let step = check.currentStep {
            stepStart = device.now
            pressesMade = 0
            moments = [:]
            perform(check.start())
            act(step.id)
            if step.id == stop {
                perform(check.stop())
                device.advance(by: 2)
                return
            }
            device.advance(by: 1)
            perform(check.done())
            while let question = check.currentQuestion {
                device.advance(by: 0.5)
                perform(check.answer(answer("\(step.id)/\(question.id)")))
            }
            device.advance(by: 1.5)  // reading the next instruction
        }
        device.advance(by: 1)
    }

    // MARK: - The screen's side

    private func perform(_ actions: [FieldCheck.Action]) {
        let buttons = self.buttons!
        let mute = self.mute!
        let (closing, closedAt, recorder, clock) = (self.closing, self.closedAt, self.recorder, device.clock)
        // Closes as the screen does (FieldCheckModel): after capture has stopped, and closeDelay more.
        let close: @Sendable () -> Void = { closedAt.withLock { if $0 == nil { $0 = recorder.records.count } } }
        FieldCheckPerformer(
            recorder: recorder, startButtons: { try buttons.start() },
            stopButtons: {
                guard buttons.isStarted else { return }
                closing.withLock { $0.stopBegan() }
                buttons.stop(onStopped: {
                    _ = clock.schedule(FieldCheckClosing.closeDelay) {
                        if closing.withLock({ $0.stopSettled() }) { close() }
                    }
                })
            },
            startSilentMode: { mute.start() }, stopSilentMode: { mute.stop() },
            finish: { if closing.withLock({ $0.finish() }) { close() } }
        ).perform(actions)
    }

    // MARK: - The person's side

    private func press(_ button: VolumeButton, times: Int = 1, every: TimeInterval = 1) {
        for _ in 0..<times {
            device.press(button)
            pressesMade += 1
            device.advance(by: every)
        }
    }

    /// Does what step `id`'s instruction says.
    private func act(_ id: String) {
        switch id {
        case "tap-up": press(.up, times: 3)
        case "tap-down": press(.down, times: 3)
        case "hold-up", "hold-down":
            device.hold(id == "hold-up" ? .up : .down, for: 3)
            pressesMade += 1
            device.advance(by: 3.5)
        case "to-zero": press(.down, times: 18, every: 0.5)
        case "at-zero":
            press(.down, times: 2)
            press(.up)
        case "to-one": press(.up, times: 18, every: 0.5)
        case "at-one":
            press(.up, times: 2)
            press(.down)
        case "headphones-in", "headphones-out":
            device.connect(id == "headphones-in" ? .headphones : .speaker)
            device.advance(by: 2)
            press(id == "headphones-in" ? .up : .down)
        case "control-center":
            device.controlCenterSlider(0.5)
            device.advance(by: 1.5)
            press(.up)
        case "siri":
            device.siri(for: 3)
            device.advance(by: 4)
            press(.up)
        case "call":
            device.phoneCall(began: true)
            device.advance(by: 5)
            device.phoneCall(began: false)
            device.advance(by: 2)
            press(.down)
        case "silent-switch":
            device.setMuteSwitch(on: true)
            device.advance(by: 3)
            device.setMuteSwitch(on: false)
            device.advance(by: 3)
        case "background":
            device.background()
            device.advance(by: 1)
            moments["home-press"] = device.now
            press(.up)
            device.foreground()
            moments["foreground"] = device.now
            device.advance(by: 2)
            moments["back-press"] = device.now
            press(.up)
        case "let-go": press(.down)
        default: break
        }
    }

    private func hudShown(from start: Instant, to end: Instant) -> Bool {
        device.systemHUDTimes.contains { $0 >= start && $0 <= end }
    }

    private func pressed(since start: Instant) -> Int {
        buttonEvents.filter { $0.time >= start && $0.phase == .pressed }.count
    }

    /// What the person answers to `key` (`step/question`).
    private func answer(_ key: String) -> Bool {
        if let fixed = Self.fixedAnswers[key] { return fixed }
        let now = device.now
        switch key {
        case "background/home-hud":
            return hudShown(from: moments["home-press"] ?? now, to: moments["foreground"] ?? now)
        case "background/back-hud": return hudShown(from: moments["back-press"] ?? now, to: now)
        case "background/back-counted": return pressed(since: moments["back-press"] ?? now) >= 1
        case "to-zero/empty": return device.volume == 0
        case "to-one/full": return device.volume == 1
        case "control-center/shown": return userVolumes.current.last.map { abs($0 - 0.5) < 0.01 } ?? false
        case "silent-switch/shown":
            let states = muteStates.current
            guard let silent = states.firstIndex(of: .silent) else { return false }
            return states[silent...].contains(.ringing)
        default: break
        }
        if key.hasSuffix("/hud") { return hudShown(from: stepStart, to: now) }
        if key.hasSuffix("/counted") { return pressed(since: stepStart) == pressesMade }
        if key.hasSuffix("/repeats") {
            return buttonEvents.contains { $0.time >= stepStart && $0.phase == .repeated }
        }
        return false
    }
}
