import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// `volumekit simulate --trace FILE`: the runner records what crossed the engines' clients, labelled synthetic.
@Suite("Simulated runs write traces")
struct ScenarioTraceTests {
    static let script = """
        volume 0.5
        start
        press up
        hold down 1.2
        wait 0.5
        route headphones
        mute on
        wait 2
        stop
        """

    static func run(_ script: String = script, strategy: SimulatedStrategy = .outputVolume) throws -> (
        ScenarioRunner, [ScenarioRecord], Trace
    ) {
        let runner = ScenarioRunner(scenario: try Scenario(parsing: script), strategy: strategy)
        runner.traceOptions = ScenarioTraceOptions()
        let records = runner.run()
        let recorder = try #require(runner.traceRecorder)
        // Through the file format, as `trace replay` and `trace fit` read it.
        return (runner, records, try Trace(jsonLines: Data(recorder.trace.jsonLines.utf8)))
    }

    @Test("The header says the trace is synthetic and lists the rules the run used")
    func labelledSynthetic() throws {
        let (runner, _, trace) = try Self.run()
        #expect(trace.header.source == .simulator)
        #expect(trace.header.deviceModel == "simulator")
        #expect(trace.header.strategy == "outputVolume")
        for assignment in runner.behaviour.assignments {
            #expect(trace.header.note?.contains(assignment) == true, "\(assignment)")
        }
        #expect(TraceFit.fit(trace).textLines.last?.contains("synthetic") == true)
    }

    @Test("Script lines become gestures; the app's start and stop and its button events are recorded")
    func gesturesAndCalls() throws {
        let (_, records, trace) = try Self.run()
        let gestures = trace.records.compactMap { record -> TraceGesture? in
            if case .gesture(let gesture) = record.event { return gesture } else { return nil }
        }
        #expect(
            gestures == [
                .press(.up), .hold(.down, seconds: 1.2), .other("route headphones"),
                .other("Ring/Silent switch silent"),
            ])
        let calls = trace.records.compactMap { record -> String? in
            if case .app(let feature, let call) = record.event { return "\(call) \(feature)" } else { return nil }
        }
        #expect(calls == ["start mute", "start buttons", "stop buttons", "stop mute"])
        let recorded = trace.records.compactMap { record -> String? in
            if case .buttonEvent(let button, let phase) = record.event { return "\(button) \(phase)" }
            return nil
        }
        let seen = records.compactMap { record -> String? in
            if case .button(let button, let phase) = record.kind { return "\(button) \(phase)" } else { return nil }
        }
        #expect(!seen.isEmpty)
        #expect(recorded == seen)
        // Both engines' clients are recorded, each tagged with its feature; the sound probe's plays with them.
        #expect(trace.records.contains { $0.feature == "mute" })
        #expect(trace.records.contains { if case .soundStarted = $0.event { true } else { false } })
        #expect(trace.records.contains { if case .setVolume = $0.event { $0.feature == "buttons" } else { false } })
    }

    @Test("Replaying the trace gives the run's button events, and the same sets")
    func replays() throws {
        let (_, records, trace) = try Self.run()
        let report = try TraceReplay.run(trace)
        #expect(report.eventsMatchRecording == true)
        #expect(report.setDifferences.isEmpty)
        let seen = records.filter { if case .button = $0.kind { true } else { false } }.map(\.json)
        #expect(report.jsonLines.filter { $0.contains(#""type":"button""#) } == seen)
    }

    @Test("A crash and a launch are marked; the baseline app's run is recorded too")
    func crashAndBaseline() throws {
        let (_, _, trace) = try Self.run("volume 0.5\nstart\npress up\ncrash\nlaunch\nwait 1", strategy: .baseline)
        #expect(trace.header.strategy == "baseline")
        let marks = trace.records.compactMap { record -> String? in
            if case .mark(let text, _) = record.event { return text } else { return nil }
        }
        #expect(marks == ["the app crashed", "the app launched again"])
        #expect(trace.records.contains { $0.feature == "recovery" })
        // The baseline is not one of VolumeKit's engines: a replay runs only the mute monitor, and no buttons.
        let report = try TraceReplay.run(trace)
        #expect(report.events.isEmpty)
        #expect(report.eventsMatchRecording == false)
    }

    @Test("Without a trace, the runner records nothing")
    func noTrace() throws {
        let runner = ScenarioRunner(scenario: try Scenario(parsing: Self.script))
        runner.run()
        #expect(runner.traceRecorder == nil)
    }

    @Test("A trace that would outgrow what a reader accepts stops the run with a sentence; the file stays readable")
    func traceLimit() throws {
        let runner = ScenarioRunner(scenario: try Scenario(parsing: "volume 0.5\nstart\nhold up 30\nstop"))
        let lines = Locked([String]())
        let limits = Trace.Limits(maxRecords: 200)
        runner.traceOptions = ScenarioTraceOptions(
            keepsRecords: false, limits: limits, onLine: { line in lines.withLock { $0.append(line) } })
        let records = runner.run()
        guard case .error(let message)? = records.last?.kind else {
            Issue.record("no error at the end: \(String(describing: records.last))")
            return
        }
        #expect(message.contains("stopped after 200 trace records"))
        #expect(message.contains("shorten the script"))
        #expect(lines.current.count == 201)
        let trace = try Trace(jsonLines: Data(lines.current.joined(separator: "\n").utf8), limits: limits)
        #expect(trace.records.count == 200)
        // Kept out of memory: the recorder holds nothing.
        #expect(runner.traceRecorder?.records.isEmpty == true)
    }

    @Test("Writing a trace where it cannot go is one sentence naming the reason")
    func unwritablePaths() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vk-trace-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appendingPathComponent("no/such/folder/t.jsonl")
        #expect(throws: TraceError.self) { try TraceFileWriter(url: missing) }
        do {
            _ = try TraceFileWriter(url: missing)
        } catch {
            #expect(
                "\(error)"
                    == "cannot write the trace to '\(missing.path)': the folder '\(missing.deletingLastPathComponent().path)' does not exist."
            )
        }
        do {
            _ = try TraceFileWriter(url: folder)
            Issue.record("a folder was accepted")
        } catch {
            #expect("\(error)" == "cannot write the trace to '\(folder.path)': it is a folder; name a file in it.")
        }
        // /proc takes no new files, even for root.
        do {
            _ = try TraceFileWriter(url: URL(fileURLWithPath: "/proc/vk-trace.jsonl"))
            Issue.record("/proc accepted a file")
        } catch {
            #expect("\(error)".hasPrefix("cannot write the trace to '/proc/vk-trace.jsonl': it may not be written"))
        }
        // An existing file is emptied, then written line by line.
        let file = folder.appendingPathComponent("t.jsonl")
        try Data("old contents, longer than the new\n".utf8).write(to: file)
        let writer = try TraceFileWriter(url: file)
        writer.write("{}")
        writer.close()
        writer.write("ignored after close")
        #expect(try String(contentsOf: file, encoding: .utf8) == "{}\n")
        #expect(writer.failure == nil)
    }

    @Test("A write that fails (a full disk) is kept as a sentence, not a crash")
    func fullDisk() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { return }
        let writer = try TraceFileWriter(url: URL(fileURLWithPath: "/dev/full"))
        writer.write(String(repeating: "x", count: 100_000))
        writer.write("more")
        writer.close()
        let failure = try #require(writer.failure)
        #expect("\(failure)".hasPrefix("cannot write the trace to '/dev/full': writing failed"))
    }
}
