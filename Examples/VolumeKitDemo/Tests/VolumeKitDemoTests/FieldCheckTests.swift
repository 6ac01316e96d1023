import Foundation
import Testing
import VolumeKitDemo
import VolumeKitTesting

@Suite("Field check protocol")
struct FieldCheckTests {
    /// Walks the whole check answering `yes` to everything, returning every action in order.
    static func walk(_ check: inout FieldCheck, answer: Bool = true) -> [FieldCheck.Action] {
        var actions = check.begin()
        while check.currentStep != nil {
            actions += check.start()
            actions += check.done()
            while check.currentQuestion != nil { actions += check.answer(answer) }
        }
        return actions
    }

    @Test("The standard protocol covers issue 14's list, with unique step and question ids")
    func standardProtocol() {
        let steps = FieldCheckStep.standard
        let ids = steps.map(\.id)
        #expect(Set(ids).count == ids.count)
        for required in [
            "tap-up", "tap-down", "hold-up", "at-zero", "at-one", "headphones-in", "headphones-out",
            "control-center", "siri", "call", "silent-switch", "background",
        ] {
            #expect(ids.contains(required), "missing step \(required)")
        }
        for step in steps {
            #expect(!step.questions.isEmpty, "\(step.id) asks nothing")
            #expect(Set(step.questions.map(\.id)).count == step.questions.count, "\(step.id) repeats a question id")
        }
        #expect(steps.first { $0.id == "hold-up" }?.gesture == .hold(.up, seconds: 3))
        // Presses at 0 and at 1 need the volume taken there with capture off first.
        for (rail, before) in [("at-zero", "to-zero"), ("at-one", "to-one")] {
            let index = ids.firstIndex(of: rail)!
            #expect(ids[index - 1] == before && !steps[index - 1].capturesButtons && steps[index].capturesButtons)
        }
        #expect(steps.filter(\.isOptional).map(\.id) == ["call"])
        #expect(steps.filter(\.detectsSilentMode).map(\.id) == ["silent-switch"])
    }

    @Test("A step records its mark and gesture at Start and one mark per answer, nothing before")
    func stepRecords() {
        var check = FieldCheck()
        #expect(check.begin() == [.mark("field check 1: \(check.steps.count) steps", answer: nil), .startButtons])
        #expect(check.phase == .ready(step: 0))
        // Done and answers before Start do nothing.
        #expect(check.done().isEmpty && check.answer(true).isEmpty)
        #expect(
            check.start() == [.mark("step tap-up: Taps up", answer: nil), .gesture(.other("press up x3 every 1.0"))])
        #expect(check.phase == .doing(step: 0))
        #expect(check.start().isEmpty)
        #expect(check.done().isEmpty && check.phase == .asking(step: 0, question: 0))
        #expect(check.answer(false) == [.mark("tap-up/hud: Did the system volume HUD appear?", answer: false)])
        // The last answer of a step puts the next step on screen; capture stays on between them.
        #expect(
            check.answer(true) == [.mark("tap-up/counted: Did this screen show every press (3 up)?", answer: true)])
        #expect(check.phase == .ready(step: 1))
        #expect(check.answers == ["tap-up/hud": false, "tap-up/counted": true])
    }

    @Test("Walking the whole check runs capture exactly in the capturing steps and the detector only for the switch")
    func wholeCheck() {
        var check = FieldCheck()
        let actions = Self.walk(&check, answer: false)
        #expect(check.phase == .finished)
        #expect(actions.last == .finish)
        // Every step's mark, once, in order, and one mark per question.
        let marks = actions.compactMap { if case .mark(let text, let answer) = $0 { (text, answer) } else { nil } }
        let stepMarks = marks.filter { $0.0.hasPrefix("step ") }.map(\.0)
        #expect(stepMarks == check.steps.map { "step \($0.id): \($0.title)" })
        #expect(marks.filter { $0.1 == false }.count == check.steps.map(\.questions.count).reduce(0, +))
        #expect(check.answers.count == check.steps.map(\.questions.count).reduce(0, +))
        // Capture alternates start/stop, ending stopped; replaying the actions gives each step its state.
        var capturing = false
        var detecting = false
        var stepIndex = -1
        for action in actions {
            switch action {
            case .startButtons:
                #expect(!capturing)
                capturing = true
            case .stopButtons:
                #expect(capturing)
                capturing = false
            case .startSilentMode:
                #expect(!detecting)
                detecting = true
            case .stopSilentMode:
                #expect(detecting)
                detecting = false
            case .mark(let text, _) where text.hasPrefix("step "):
                stepIndex += 1
                #expect(capturing == check.steps[stepIndex].capturesButtons, "\(check.steps[stepIndex].id)")
                #expect(detecting == check.steps[stepIndex].detectsSilentMode, "\(check.steps[stepIndex].id)")
            default: break
            }
        }
        #expect(!capturing && !detecting)
        #expect(marks.last?.0 == "field check complete")
    }

    @Test("Only an optional step can be skipped, and the skip is recorded")
    func skipping() {
        var check = FieldCheck()
        _ = check.begin()
        #expect(check.skip().isEmpty)
        while check.currentStep?.id != "call" {
            _ = check.start()
            _ = check.done()
            while check.currentQuestion != nil { _ = check.answer(true) }
        }
        let actions = check.skip()
        #expect(actions.first == .mark("step call skipped", answer: nil))
        #expect(check.currentStep?.id == "silent-switch")
        #expect(actions.contains(.startSilentMode))
        #expect(check.skipped == ["call"])
    }

    @Test("Stopping early stops capture and the detector and closes the trace")
    func stoppingEarly() {
        var check = FieldCheck()
        #expect(check.stop().isEmpty)
        _ = check.begin()
        while check.currentStep?.id != "silent-switch" {
            if check.currentStep?.isOptional == true {
                _ = check.skip()
                continue
            }
            _ = check.start()
            _ = check.done()
            while check.currentQuestion != nil { _ = check.answer(true) }
        }
        _ = check.start()
        #expect(
            check.stop() == [
                .mark("field check stopped at step silent-switch", answer: nil), .stopSilentMode, .stopButtons,
                .finish,
            ])
        #expect(check.phase == .finished)
        #expect(check.stop().isEmpty && check.begin().isEmpty)
    }

    @Test("Only a run on hardware says device; an iOS Simulator build says simulator")
    func headerSource() {
        let device = DeviceInfo(osVersion: OSVersion(17, 4), kind: .iphone)
        let buttons = VolumeButtonsConfiguration()
        let real = FieldCheckTrace.header(
            model: "iPhone15,2", device: device, isSimulatorBuild: false, buttons: buttons, sessionMode: "default")
        #expect(real.source == .device && real.deviceModel == "iPhone15,2" && real.osVersion == OSVersion(17, 4))
        #expect(real.session == buttons.session && real.strategy == "outputVolume" && real.note == "field check 1")
        let simulated = FieldCheckTrace.header(
            model: "iPhone15,2", device: device, isSimulatorBuild: true, buttons: buttons, sessionMode: "default")
        #expect(simulated.source == .simulator && simulated.deviceModel == "simulator")
        #expect(simulated.note?.contains("iOS Simulator (iPhone15,2)") == true)
    }

    @Test("Trace files are named device-os-date.jsonl")
    func fileNames() {
        let date = Date(timeIntervalSince1970: 1_796_083_200)  // 2026-12-01 00:00 UTC
        #expect(
            FieldCheckTrace.fileName(model: "iPhone15,2", os: OSVersion(17, 4), date: date)
                == "iPhone15-2-ios17.4-2026-12-01.jsonl")
        #expect(
            FieldCheckTrace.fileName(model: "iPad13,1", os: OSVersion(18, 0), date: date - 1, attempt: 2)
                == "iPad13-1-ios18.0-2026-11-30-2.jsonl")
        #expect(FieldCheckTrace.fileName(model: "a/b c", os: OSVersion(17, 4), date: date).hasPrefix("a-b-c-"))
    }
}

@Suite("When the field check's trace closes")
struct FieldCheckClosingTests {
    @Test("It closes once: at finish with nothing stopping, else when the last stop has settled")
    func closing() {
        var idle = FieldCheckClosing()
        let first = idle.finish()
        #expect(first && idle.isClosed)
        let again = [idle.finish(), idle.stopSettled()]
        #expect(again == [false, false], "closed once")
        var closing = FieldCheckClosing()
        closing.stopBegan()
        closing.stopBegan()
        let early = [closing.stopSettled(), closing.finish()]
        #expect(early == [false, false], "not finished yet, then a stop still settling")
        let last = closing.stopSettled()
        #expect(last && closing.isClosed)
        #expect(FieldCheckClosing.closeDelay >= 0.4, "the lease's retries: 3 × 0.1 s after the first try")
    }
}

@Suite("Field check on the simulated iPhone")
struct SimulatedFieldCheckTests {
    @Test(
        "The simulated person's check replays to the same events and sets, and VolumeKit hid the HUD where it captures")
    func simulatedCheck() throws {
        let run = SimulatedFieldCheck()
        run.run()
        #expect(run.check.phase == .finished)
        let trace = try Trace(jsonLines: Data(run.recorder.trace.jsonLines.utf8))
        #expect(trace.header.source == .simulator)
        let report = try TraceReplay.run(trace)
        #expect(report.setDifferences.isEmpty)
        #expect(report.eventsMatchRecording == true)
        #expect(report.undeliveredInputs == 0)
        #expect(report.muteChanges.map(\.value).contains(.silent))
        let answers = run.check.answers
        // Where VolumeKit captures, the simulated iPhone shows no system HUD; where it lets go, it does.
        for step in run.check.steps {
            if let hud = answers["\(step.id)/hud"] { #expect(hud == !step.capturesButtons, "\(step.id)") }
            if let counted = answers["\(step.id)/counted"] { #expect(counted, "\(step.id)") }
        }
        #expect(answers["background/home-hud"] == true)
        #expect(answers["background/back-hud"] == false && answers["background/back-counted"] == true)
        #expect(answers["to-zero/empty"] == true && answers["to-one/full"] == true)
        #expect(answers["silent-switch/shown"] == true && answers["control-center/shown"] == true)
        #expect(answers["hold-up/repeats"] == true && answers["hold-down/repeats"] == true)
    }

    /// Every port name the trace carries: the route details' UIDs, and in stored pending restores the
    /// `bluetooth:<UID>` keys and the `portUID` values.
    static func portNames(_ trace: Trace) throws -> [String] {
        var names: [String] = []
        for record in trace.records {
            var stored: Data?
            switch record.event {
            case .routeDetails(_, let ports): names += ports.map(\.uid)
            // The pending restores only: the calibration is stored too (`VolumeKit.calibration.v1`), and it
            // holds no port at all (model, iOS version and timings).
            case .storeWrite(let key, let data), .read(.stored(let key, let data)):
                if key.hasPrefix("VolumeKit.pendingRestores.") { stored = data }
            default: break
            }
            guard let stored else { continue }
            for (key, value) in try JSONDecoder().decode([String: PendingRestore].self, from: stored) {
                if key.hasPrefix("bluetooth:") { names.append(String(key.dropFirst("bluetooth:".count))) }
                if let port = value.portUID { names.append(port) }
            }
        }
        return names
    }

    @Test("The simulated check's trace names audio ports port-1, port-2… only, each route change once, and replays")
    func noPortUIDs() throws {
        // On a Bluetooth headset, so the store holds a headset's record too.
        let run = SimulatedFieldCheck()
        run.device.connect(.bluetooth, headset: "AA:BB:CC:DD:EE:FF-tacl")
        run.run()
        let trace = try Trace(jsonLines: Data(run.recorder.trace.jsonLines.utf8))
        let names = try Self.portNames(trace)
        #expect(names.contains { $0 != names.first }, "route details and stored headsets: \(Set(names))")
        #expect(
            names.allSatisfy { $0.hasPrefix("port-") && Int($0.dropFirst(5)) != nil }, "\(Set(names).sorted())")
        var text = trace.jsonLines
        for record in trace.records {
            if case .storeWrite(_, let data?) = record.event { text += String(decoding: data, as: UTF8.self) }
        }
        for uid in ["AA:BB:CC:DD:EE:FF-tacl", "Wired Headphones", "\"uid\":\"Speaker\""] {
            #expect(!text.contains(uid), "\(uid) in the trace")
        }
        // Each route change has one routeDetails record, right after it.
        let events = trace.records.map(\.event)
        let changes = events.indices.filter {
            if case .lifecycle(.routeChanged, _) = events[$0] { true } else { false }
        }
        let details = events.indices.filter { if case .routeDetails = events[$0] { true } else { false } }
        #expect(!changes.isEmpty && details == changes.map { $0 + 1 })
        let report = try TraceReplay.run(trace)
        #expect(report.setDifferences.isEmpty)
        #expect(report.eventsMatchRecording == true)
    }

    @Test(
        "Stopped while capturing, the trace closes only once capture has stopped: the restore, the category and the deactivation are in it"
    )
    func closesAfterStopping() throws {
        // At volume 0 capture holds the volume two steps up, so stopping sets it back and waits for its KVO.
        let run = SimulatedFieldCheck(.init(volume: 0))
        run.run(stoppingIn: "tap-up")
        #expect(run.check.phase == .finished)
        let records = run.recorder.records
        let closed = try #require(run.recordsWhenClosed, "the trace was never closed")
        let stop = try #require(records.lastIndex { $0.event == .app(feature: "buttons", call: "stop") })
        let late = records[closed...].filter { $0.feature == "buttons" }
        #expect(late.isEmpty, "recorded after the file closed: \(late.map(\.event))")
        // What the stop did is inside: the user's volume set back, then the session deactivated.
        let kept = records[stop..<closed]
        #expect(kept.contains { if case .setVolume = $0.event { true } else { false } })
        #expect(kept.contains { if case .setActive(false, _, _) = $0.event { true } else { false } })
    }

    /// The fixture `Tests/VolumeKitTests/Fixtures/Traces/simulator-ios17.4-2026-12-01.jsonl` is this check's
    /// trace; with `FIELD_CHECK_TRACE_OUT=PATH` the test writes the trace there instead (docs/field-check.md).
    @Test("The committed simulator fixture is the simulated check's trace")
    func fixtureIsTheSimulatedCheck() throws {
        let run = SimulatedFieldCheck()
        run.run()
        let text = run.recorder.trace.jsonLines
        if let path = ProcessInfo.processInfo.environment["FIELD_CHECK_TRACE_OUT"] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return
        }
        let fixture = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("../../Tests/VolumeKitTests/Fixtures/Traces/simulator-ios17.4-2026-12-01.jsonl")
        let committed = try Trace(contentsOf: fixture)
        let fresh = try Trace(jsonLines: Data(text.utf8))
        // The store's JSON has sorted keys, so the same run is the same trace in every process.
        #expect(
            committed == fresh,
            "regenerate: FIELD_CHECK_TRACE_OUT=\(fixture.standardizedFileURL.path) swift test")
    }
}
