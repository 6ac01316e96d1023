import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

@Suite("Trace replay")
struct TraceReplayTests {
    @Test("A recorded simulated run replays to the same button events and the same sets")
    func replayGivesTheSameEvents() throws {
        let run = try TraceRecording.standardSession()
        #expect(run.events.count > 10)
        // Through the file: what a developer would hand back.
        let trace = try Trace(jsonLines: Data(run.recorder.trace.jsonLines.utf8))
        let report = try TraceReplay.run(trace)
        #expect(report.events.map(\.description) == run.events.map(\.description))
        #expect(zip(report.events, run.events).allSatisfy { abs($0.time - $1.time) < 1e-9 })
        #expect(report.eventsMatchRecording == true)
        #expect(report.setDifferences.isEmpty)
        #expect(report.sets.count == report.recordedSets.count && report.sets.count > 5)
        #expect(report.undeliveredInputs == 0)
        #expect(!report.startInferred)
    }

    @Test("Recording changes nothing: the same session with and without the decorator gives the same events and device")
    func recordingIsTransparent() throws {
        let recorded = try TraceRecording.standardSession()
        // The same session on bare clients.
        let device = SimulatedDevice()
        let events = Locked([VolumeButtonEvent]())
        let engine = VolumeButtonsEngine(
            clients: device.clients, onEvent: { event in events.withLock { $0.append(event) } })
        try engine.start()
        device.advance(by: 1.5)
        for (button, wait) in [(VolumeButton.up, 0.5), (.up, 0.5), (.down, 0.5)] {
            device.press(button); device.advance(by: wait)
        }
        device.hold(.up, for: 1.6); device.advance(by: 2.4)
        device.hold(.down, for: 1.3); device.advance(by: 2.1)
        device.controlCenterSlider(0.3); device.advance(by: 1)
        device.press(.up); device.advance(by: 0.5)
        device.press(.down); device.advance(by: 0.5)
        device.connect(.headphones); device.advance(by: 1)
        device.press(.up); device.advance(by: 0.5)
        device.connect(.speaker); device.advance(by: 1)
        device.press(.down); device.advance(by: 0.5)
        engine.stop()
        device.advance(by: 1)
        #expect(events.current == recorded.events)
        #expect(device.log == recorded.device.log)
    }

    @Test("A trace from a fixed headroom replays with it: the same anchor sets, not the cold policy's")
    func fixedHeadroomReplays() throws {
        // From 0.125 a fixed 2 steps from the rails holds the user's own volume; the cold policy (4 steps) would
        // anchor at 0.25.
        var device = SimulatedDevice.Configuration()
        device.volume = 0.125
        let run = try TraceRecording.standardSession(device, buttons: .fixedHeadroom)
        let text = run.recorder.trace.jsonLines
        #expect(text.contains(#""headroomPolicy":{"burstSpacing":0.05,"maximumSteps":2}"#))
        let trace = try Trace(jsonLines: Data(text.utf8))
        #expect(trace.header.headroomPolicy == VolumeButtonsConfiguration.fixedHeadroom.headroomPolicy)
        let report = try TraceReplay.run(trace)
        #expect(report.setDifferences.isEmpty, "\(report.setDifferences)")
        #expect(report.events == run.events)
        // Without the policy in its header, the trace replays with the default one, and the sets differ.
        let policy = #""headroomPolicy":{"burstSpacing":0.05,"maximumSteps":2},"#
        let older = text.replacingOccurrences(of: policy, with: "")
        let olderReport = try TraceReplay.run(try Trace(jsonLines: Data(older.utf8)))
        #expect(!olderReport.setDifferences.isEmpty)
    }

    @Test(
        "Every VolumeKit strategy replays to the events it produced",
        arguments: [
            VolumeButtonsConfiguration(strategy: .systemNotification, allowsPrivateAPI: true),
            VolumeButtonsConfiguration(strategy: .captureEvents),
            VolumeButtonsConfiguration(mode: .passive),
        ])
    func everyStrategyReplays(buttons: VolumeButtonsConfiguration) throws {
        let run = try TraceRecording.standardSession(buttons: buttons)
        #expect(run.events.count >= 10)
        let trace = try Trace(jsonLines: Data(run.recorder.trace.jsonLines.utf8))
        #expect(trace.header.strategy == buttons.strategy.rawValue && trace.header.buttonMode == buttons.mode)
        let report = try TraceReplay.run(trace)
        #expect(report.events == run.events)
        #expect(report.eventsMatchRecording == true)
        #expect(report.setDifferences.isEmpty)
        #expect(report.undeliveredInputs == 0)
    }

    @Test("A trace without app records starts the engine at its first record")
    func inferredStart() throws {
        let run = try TraceRecording.standardSession()
        var trace = run.recorder.trace
        trace.records.removeAll { if case .app = $0.event { true } else { false } }
        let report = try TraceReplay.run(trace)
        #expect(report.startInferred)
        // Without the stop, the last release and the restore set are missing; everything before is the same.
        #expect(Array(report.events.prefix(run.events.count - 1)) == Array(run.events.prefix(run.events.count - 1)))
    }

    @Test("Replay flags where VolumeKit's sets now differ from the recorded ones")
    func replayFlagsChangedSets() throws {
        let run = try TraceRecording.standardSession()
        var trace = run.recorder.trace
        // Pretend the recording VolumeKit set other values: the first set changes, the second disappears.
        let setIndices = trace.records.indices.filter {
            if case .setVolume = trace.records[$0].event { true } else { false }
        }
        try #require(setIndices.count > 3)
        trace.records[setIndices[0]].event = .setVolume(0.123, view: 1)
        trace.records.remove(at: setIndices[2])
        let report = try TraceReplay.run(trace)
        #expect(report.setDifferences.count == 2)
        guard case .changed(let recorded, let now)? = report.setDifferences.first else {
            Issue.record("expected a changed set first, got \(report.setDifferences)")
            return
        }
        #expect(recorded.value == 0.123)
        #expect(now.value != 0.123)
        #expect(report.setDifferences.contains { if case .extra = $0 { true } else { false } })
        #expect(report.jsonLines.contains { $0.contains("\"type\":\"setChanged\"") })
        #expect(report.textLines.contains { $0.contains("! set differs") })
    }

    @Test(
        "Long recordings are compared too: one changed, one missing and one extra set among thousands",
        arguments: [300, 2500])
    func longComparisons(count: Int) {
        let recorded = (0..<count).map { TraceReplayReport.TimedSet(time: Double($0), value: Float($0 % 16) / 16) }
        var now = recorded
        now[100].value = 0.99
        now.remove(at: 200)
        now.insert(.init(time: 250.5, value: 0.5), at: 250)
        let report = TraceReplayReport(
            source: .device, events: [], recordedEvents: nil, sets: now, recordedSets: recorded,
            undeliveredInputs: 0, startInferred: false, diagnostics: [])
        #expect(
            report.setDifferences == [
                .changed(recorded: recorded[100], now: now[100]),
                .missing(recorded: recorded[200]),
                .extra(now: .init(time: 250.5, value: 0.5)),
            ])
    }

    @Test("A trace whose strategy is not a VolumeKit engine cannot be replayed, with a sentence")
    func unsupportedStrategy() throws {
        var trace = try TraceRecording.standardSession().recorder.trace
        trace.header.strategy = "baseline"
        #expect(throws: TraceReplayError.unsupportedStrategy("baseline")) { try TraceReplay.run(trace) }
        #expect(TraceReplayError.unsupportedStrategy("baseline").description.contains("outputVolume"))
    }
}

@Suite("Trace replay of mute detection")
struct MuteTraceReplayTests {
    @Test("A recorded mute detection run records the sound probe and replays to the same Ring/Silent states")
    func muteReplays() throws {
        let run = TraceRecording()
        let seen = Locked([TraceReplayReport.MuteChange]())
        let device = run.device
        let mute = MuteSwitchEngine(
            soundURL: URL(fileURLWithPath: "/VolumeKit.bundle/mute-probe.caf"),
            clients: device.clients.recording(to: run.recorder, feature: "mute"),
            onChange: { change in seen.withLock { $0.append(.init(time: device.now, value: change.new)) } }
        )
        run.recorder.appCalled("start", on: "mute")
        mute.start()
        try run.start()
        device.advance(by: 3)
        run.recorder.gesture(.other("Ring/Silent switch to silent"))
        device.setMuteSwitch(on: true)
        device.advance(by: 4)
        run.press(.up)
        device.setMuteSwitch(on: false)
        device.advance(by: 4)
        run.recorder.appCalled("stop", on: "mute")
        mute.stop()
        run.stop()
        #expect(seen.current.map(\.value.name) == ["ringing", "silent", "ringing"])
        let trace = try Trace(jsonLines: Data(run.recorder.trace.jsonLines.utf8))
        let probes = trace.records.filter { $0.feature == "mute" }
        #expect(probes.contains { if case .soundStarted = $0.event { true } else { false } })
        #expect(probes.contains { if case .soundCompleted = $0.event { true } else { false } })
        let report = try TraceReplay.run(trace)
        #expect(report.muteChanges == seen.current)
        #expect(report.events == run.events)
        #expect(report.eventsMatchRecording == true)
        #expect(report.setDifferences.isEmpty)
        #expect(report.undeliveredInputs == 0)
        #expect(report.jsonLines.contains { $0.contains("\"type\":\"mute\", \"state\":\"silent\"") })

        // The fit splits the probe's completions into skipped (on silent) and played sounds.
        let plays = device.log.compactMap { entry -> Bool? in
            if case .systemSound(_, _, let played) = entry { return played }
            return nil
        }
        let fit = TraceFit.fit(trace)
        let skipped = try #require(fit["soundSkippedDelay"])
        let played = try #require(fit["soundPlayedDelay"])
        #expect(skipped.samples == plays.filter { !$0 }.count && skipped.samples > 0)
        #expect(played.samples == plays.filter { $0 }.count && played.samples > 0)
        #expect(fit.verdict(skipped) == .inside)
        #expect((skipped.value?.number ?? 1) < (played.value?.number ?? 0))
    }
}
