import Foundation
import Testing
import VolumeKitDemo
import VolumeKitTesting

@Suite("Field check extras (issue 26)")
struct FieldCheckExtrasTests {
    @Test("The extras cover the HUD, a player, a web view, AirPlay, a Bluetooth reconnect and the camera")
    func extrasProtocol() {
        let steps = FieldCheckStep.extras
        let ids = steps.map(\.id)
        #expect(Set(ids).count == ids.count)
        #expect(Set(ids).isDisjoint(with: FieldCheckStep.standard.map(\.id)), "an extras id repeats a standard one")
        for required in [
            "hud", "hud-landscape", "hud-split-view", "player", "web-view", "airplay", "bluetooth-reconnect", "camera",
        ] {
            #expect(ids.contains(required), "missing step \(required)")
        }
        for step in steps {
            #expect(!step.questions.isEmpty, "\(step.id) asks nothing")
            #expect(Set(step.questions.map(\.id)).count == step.questions.count, "\(step.id) repeats a question id")
            // One way of taking the buttons at a time.
            #expect(!(step.capturesButtons && step.capturesEvents), "\(step.id)")
            #expect(!(step.capturesButtons && step.runsHUD), "\(step.id): capture holds the volume the HUD shows")
        }
        #expect(steps.filter(\.runsHUD).map(\.id) == ["hud", "hud-landscape", "hud-split-view", "player", "web-view"])
        #expect(steps.first { $0.id == "player" }?.aid == .player)
        #expect(steps.first { $0.id == "web-view" }?.aid == .webView)
        #expect(steps.filter(\.capturesEvents).map(\.id) == ["camera"])
        #expect(steps.first { $0.id == "camera" }?.aid == .camera)
        #expect(
            Set(steps.filter(\.isOptional).map(\.id)) == ["hud-split-view", "airplay", "bluetooth-reconnect", "camera"])
        // The standard protocol is untouched by them: still version 1, nothing of the extras in it.
        #expect(FieldCheckStep.standard.allSatisfy { !$0.runsHUD && !$0.capturesEvents && $0.aid == nil })
    }

    @Test("Walking the extras starts the HUD, capture and capture events only in their steps, never two at once")
    func walkExtras() {
        var check = FieldCheck.extras()
        #expect(check.name == "field check extras 1")
        let first = check.begin()
        #expect(first == [.mark("field check extras 1: \(FieldCheckStep.extras.count) steps", answer: nil), .startHUD])
        var actions = first
        while check.currentStep != nil {
            actions += check.start()
            actions += check.done()
            while check.currentQuestion != nil { actions += check.answer(true) }
        }
        #expect(actions.last == .finish)
        var hud = false
        var capturing = false
        var events = false
        var stepIndex = -1
        for action in actions {
            switch action {
            case .startHUD:
                #expect(!hud && !capturing && !events)
                hud = true
            case .stopHUD:
                #expect(hud)
                hud = false
            case .startButtons:
                #expect(!capturing && !hud && !events)
                capturing = true
            case .stopButtons:
                #expect(capturing)
                capturing = false
            case .startCaptureEvents:
                #expect(!events && !capturing && !hud)
                events = true
            case .stopCaptureEvents:
                #expect(events)
                events = false
            case .mark(let text, _) where text.hasPrefix("step "):
                stepIndex += 1
                let step = check.steps[stepIndex]
                #expect(hud == step.runsHUD, "\(step.id)")
                #expect(capturing == step.capturesButtons, "\(step.id)")
                #expect(events == step.capturesEvents, "\(step.id)")
            default: break
            }
        }
        #expect(!hud && !capturing && !events, "everything stops at the end")
    }

    @Test("Stopping the extras during the camera step stops capture events before closing")
    func stopDuringCamera() {
        var check = FieldCheck.extras()
        _ = check.begin()
        while check.currentStep?.id != "camera" {
            if check.currentStep?.isOptional == true {
                _ = check.skip()
            } else {
                _ = check.start()
                _ = check.done()
                while check.currentQuestion != nil { _ = check.answer(false) }
            }
        }
        #expect(
            check.stop() == [.mark("field check stopped at step camera", answer: nil), .stopCaptureEvents, .finish])
    }

    @Test("The performer records each feature's start and stop as app calls on hud and camera")
    func performerRecordsFeatures() {
        let device = SimulatedDevice()
        let recorder = TraceRecorder(header: .simulator(device, note: "extras"), clock: device.clock)
        var calls: [String] = []
        var performer = FieldCheckPerformer(
            recorder: recorder, startButtons: {}, stopButtons: {}, startSilentMode: {}, stopSilentMode: {}, finish: {})
        performer.startHUD = { calls.append("hud on") }
        performer.stopHUD = { calls.append("hud off") }
        performer.startCaptureEvents = { calls.append("camera on") }
        performer.stopCaptureEvents = { calls.append("camera off") }
        performer.perform([.startHUD, .stopHUD, .startCaptureEvents, .stopCaptureEvents])
        #expect(calls == ["hud on", "hud off", "camera on", "camera off"])
        let apps = recorder.records.compactMap { record -> String? in
            if case .app(let feature, let call) = record.event { "\(call) \(feature)" } else { nil }
        }
        #expect(apps == ["start hud", "stop hud", "start camera", "stop camera"])
    }

    @Test("The extras' trace says so in its note; the standard check's note is unchanged")
    func extrasNote() {
        let device = DeviceInfo(osVersion: OSVersion(17, 4), kind: .iphone)
        let extras = FieldCheckTrace.header(
            model: "iPhone15,2", device: device, isSimulatorBuild: false, buttons: VolumeButtonsConfiguration(),
            sessionMode: "AVAudioSessionModeDefault", protocolName: FieldCheck.extras().name)
        #expect(extras.note == "field check extras 1")
        let standard = FieldCheckTrace.header(
            model: "iPhone15,2", device: device, isSimulatorBuild: false, buttons: VolumeButtonsConfiguration(),
            sessionMode: "AVAudioSessionModeDefault")
        #expect(standard.note == "field check 1")
    }

    @Test("The player steps' tone is a valid 16-bit mono PCM WAV of the length asked for")
    func toneIsWAV() {
        let data = FieldCheckTone.wav(seconds: 2)
        let bytes = [UInt8](data)
        func u32(_ at: Int) -> Int {
            Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
        }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        #expect(String(decoding: bytes[0..<4], as: UTF8.self) == "RIFF")
        #expect(String(decoding: bytes[8..<16], as: UTF8.self) == "WAVEfmt ")
        #expect(u16(20) == 1 && u16(22) == 1 && u32(24) == FieldCheckTone.sampleRate && u16(34) == 16)
        #expect(String(decoding: bytes[36..<40], as: UTF8.self) == "data")
        #expect(u32(40) == 2 * 2 * FieldCheckTone.sampleRate)
        #expect(u32(4) == bytes.count - 8)
        // Quiet, and silent at both ends (faded).
        let samples = stride(from: 44, to: bytes.count, by: 2).map { Int16(bitPattern: UInt16(u16($0))) }
        #expect(samples.map { abs(Int($0)) }.max()! <= Int(Int16.max) / 4 + 1)
        #expect(samples.first == 0 && abs(Int(samples.last!)) < 50)
        #expect(FieldCheckTone.page(audioFile: "tone.wav").contains("<audio controls loop src=\"tone.wav\">"))
    }
}
