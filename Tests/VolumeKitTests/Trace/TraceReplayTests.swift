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

    @Test("Every VolumeKit strategy replays to the events it produced", arguments: [
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
        let setIndices = trace.records.indices.filter { if case .setVolume = trace.records[$0].event { true } else { false } }
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

    @Test("A trace whose strategy is not a VolumeKit engine cannot be replayed, with a sentence")
    func unsupportedStrategy() throws {
        var trace = try TraceRecording.standardSession().recorder.trace
        trace.header.strategy = "baseline"
        #expect(throws: TraceReplayError.unsupportedStrategy("baseline")) { try TraceReplay.run(trace) }
        #expect(TraceReplayError.unsupportedStrategy("baseline").description.contains("outputVolume"))
    }
}
