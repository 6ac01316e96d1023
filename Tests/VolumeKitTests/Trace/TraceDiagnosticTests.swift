import Foundation
import TestSupport
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Traces carry VolumeKit's diagnostics (issue 22, item 3): format 2's `diagnostic` record, written by the
/// recording clients for whatever a button engine on them raises, read strictly, and compared by a replay.
@Suite("Trace diagnostics")
struct TraceDiagnosticTests {
    /// `scenarios/burst-at-zero.txt` under `sample:106`: 16 down presses at volume 0 use up the headroom.
    static func burstRun() throws -> (runner: ScenarioRunner, lines: [String]) {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../scenarios/burst-at-zero.txt").standardized
        let scenario = try Scenario(parsing: try String(contentsOf: url, encoding: .utf8))
        let runner = ScenarioRunner(scenario: scenario, behaviour: .sample(106))
        let lines = Locked([String]())
        // As `volumekit simulate --trace` does: the lines streamed to the file, nothing kept.
        runner.traceOptions = ScenarioTraceOptions(keepsRecords: false) { line in lines.withLock { $0.append(line) } }
        runner.run()
        return (runner, lines.current)
    }

    static func trace(_ lines: [String]) throws -> Trace {
        try Trace(jsonLines: Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    static func diagnostics(_ trace: Trace) -> [(time: Double, diagnostic: VolumeButtonsDiagnostic, by: String?)] {
        trace.records.compactMap {
            if case .diagnostic(let diagnostic) = $0.event { return ($0.time, diagnostic, $0.feature) }
            return nil
        }
    }

    @Test("simulate --trace of a burst at 0 writes each diagnostic the app received, once, at its time")
    func simulatedTraceCarriesDiagnostics() throws {
        let (runner, lines) = try Self.burstRun()
        let received = runner.diagnostics
        try #require(received.map(\.name).contains("headroomExhausted"), "the scenario no longer raises it")
        #expect(lines.contains { $0.contains(#""type":"diagnostic","name":"headroomExhausted","by":"buttons""#) })
        #expect(lines.first?.contains(#""version":3"#) == true)
        let recorded = Self.diagnostics(try Self.trace(lines))
        #expect(recorded.map(\.diagnostic.traceName) == received.map(\.name))
        for (record, app) in zip(recorded, received) {
            #expect(abs(record.time - app.time) < 1e-9)
            #expect(record.by == "buttons")
        }
    }

    @Test("Writing and reading keeps the diagnostic records, and the replay raises the same ones")
    func roundTripAndReplay() throws {
        let (_, lines) = try Self.burstRun()
        let trace = try Self.trace(lines)
        #expect(try Trace(jsonLines: Data(trace.jsonLines.utf8)) == trace)
        #expect(trace.jsonLines == (lines.joined(separator: "\n") + "\n"))
        let report = try TraceReplay.run(trace)
        let recorded = try #require(report.recordedDiagnostics)
        #expect(!recorded.isEmpty)
        #expect(report.diagnosticsNow.map(\.value) == recorded.map(\.value))
        #expect(report.diagnosticDifferences == [])
        #expect(report.textLines.contains { $0.hasPrefix("\(recorded.count) diagnostic") && $0.hasSuffix("the same") })
        #expect(report.jsonLines.last?.contains(#""diagnosticDifferences":0"#) == true)
    }

    @Test("A trace edited to drop a diagnostic, or to add one, replays with the difference reported")
    func editedTraceReportsTheDifference() throws {
        let (_, lines) = try Self.burstRun()
        let index = try #require(lines.firstIndex { $0.contains(#""type":"diagnostic""#) })
        var dropped = lines
        dropped.remove(at: index)
        let report = try TraceReplay.run(try Self.trace(dropped))
        let time = try #require(report.diagnosticsNow.first?.time)
        #expect(report.diagnosticDifferences == [.extra(now: .init(time: time, value: .headroomExhausted))])
        #expect(
            report.textLines.contains { $0.contains("! diagnostic headroomExhausted raised now, not in the recording") }
        )
        #expect(report.jsonLines.contains { $0.contains(#""type":"diagnosticExtra", "name":"headroomExhausted""#) })
        #expect(report.jsonLines.last?.contains(#""diagnosticDifferences":1"#) == true)
        // Not a refusal: the events and sets are still compared as before.
        #expect(report.eventsMatchRecording == true)
        #expect(report.setDifferences == [])

        // A diagnostic the engine does not raise (another payload at the same moment) is missing now.
        var added = lines
        added.insert(
            lines[index].replacingOccurrences(
                of: #""name":"headroomExhausted""#, with: #""name":"railPressesUnseen","rail":0"#), at: index + 1)
        let other = try TraceReplay.run(try Self.trace(added))
        #expect(other.diagnosticDifferences.count == 1)
        guard case .missing(let missing)? = other.diagnosticDifferences.first else {
            Issue.record("\(other.diagnosticDifferences)")
            return
        }
        #expect(missing.value == .railPressesUnseen(0))
        #expect(
            other.textLines.contains { $0.contains("! diagnostic railPressesUnseen rail 0 recorded, not raised now") })
        #expect(
            other.jsonLines.contains {
                $0.contains(#""type":"diagnosticMissing", "name":"railPressesUnseen", "rail":0"#)
            })
    }

    @Test("A format-1 trace still reads and replays, comparing no diagnostics; it cannot hold a diagnostic record")
    func formatOne() throws {
        let (_, lines) = try Self.burstRun()
        let old = lines.filter { !$0.contains(#""type":"diagnostic""#) }
        var v1 = old
        v1[0] = old[0].replacingOccurrences(of: #""version":3"#, with: #""version":1"#)
        #expect(v1[0] != old[0])
        let trace = try Self.trace(v1)
        #expect(trace.formatVersion == 1)
        let report = try TraceReplay.run(trace)
        #expect(report.recordedDiagnostics == nil)
        #expect(report.diagnosticDifferences == [])
        #expect(!report.diagnosticsNow.isEmpty)
        #expect(report.jsonLines.last?.contains(#""recordedDiagnostics":null"#) == true)
        // A diagnostic record in a trace that says it is format 1 is refused at its line.
        var mixed = lines
        mixed[0] = v1[0]
        let line = try #require(lines.firstIndex { $0.contains(#""type":"diagnostic""#) }) + 1
        #expect(
            throws: TraceError(
                line: line,
                .invalidValue(
                    field: "type", value: "\"diagnostic\"",
                    expected: "a record type of trace format 1 (diagnostic records came with format 2)"))
        ) { try Self.trace(mixed) }
    }

    static let header = Trace(
        header: TraceHeader(
            source: .simulator, deviceModel: "simulator", deviceKind: .iphone, osVersion: OSVersion(17, 4),
            volumeKitVersion: "source")
    ).jsonLines.trimmingCharacters(in: .newlines)

    @Test(
        "A malformed diagnostic record is refused at its line, with the field named",
        arguments: [
            (#"{"t":1,"type":"diagnostic"}"#, TraceError.Problem.missingField("name")),
            (
                #"{"t":1,"type":"diagnostic","name":7}"#,
                .wrongType(field: "name", expected: "a string", found: "a number (7.0)")
            ),
            (#"{"t":1,"type":"diagnostic","name":"volumeSetFailed"}"#, .missingField("value")),
            (
                #"{"t":1,"type":"diagnostic","name":"volumeSetFailed","value":"half"}"#,
                .wrongType(field: "value", expected: "a number", found: "a string (\"half\")")
            ),
            (
                #"{"t":1,"type":"diagnostic","name":"railPressesUnseen","rail":2}"#,
                .invalidValue(field: "rail", value: "2.0", expected: "a volume in 0…1")
            ),
            (
                #"{"t":1,"type":"diagnostic","name":"sessionTakenOver","category":"loud"}"#,
                .invalidValue(
                    field: "category", value: "\"loud\"",
                    expected: "one of " + AudioCategory.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))
            ),
            (#"{"t":1,"type":"diagnostic","name":"unreadableNotification"}"#, .missingField("error")),
            (
                #"{"t":1,"type":"diagnostic","name":"unreadableNotification","error":{"kind":"odd"}}"#,
                .invalidValue(
                    field: "error.kind", value: "\"odd\"",
                    expected: #"one of "unknownName", "missingValue", "wrongType", "volumeOutOfRange""#)
            ),
            (
                #"{"t":1,"type":"diagnostic","name":"unreadableNotification","error":{"kind":"wrongType","key":"V"}}"#,
                .missingField("error.found")
            ),
            (
                #"{"t":1,"type":"diagnostic","name":"unreadableNotification","error":{"kind":"volumeOutOfRange","value":true}}"#,
                .wrongType(
                    field: "error.value", expected: #"a number, or "nan", "inf" or "-inf""#, found: "a boolean (true)")
            ),
        ])
    func malformed(line: String, problem: TraceError.Problem) {
        #expect(throws: TraceError(line: 2, problem)) { try Self.trace([Self.header, line]) }
    }

    @Test("An unknown diagnostic name is refused, its echo cut and cleaned")
    func unknownName() throws {
        let name = "\u{1B}[31m" + String(repeating: "x", count: 100)
        let line = #"{"t":1,"type":"diagnostic","name":""# + "\\u001b[31m" + String(repeating: "x", count: 100) + #""}"#
        do {
            _ = try Self.trace([Self.header, line])
            Issue.record("accepted")
        } catch let error as TraceError {
            #expect(error.line == 2)
            guard case .invalidValue(field: "name", _, let expected) = error.problem else {
                Issue.record("\(error)")
                return
            }
            #expect(expected.contains("\"headroomExhausted\""))
            #expect(!error.description.contains("\u{1B}"))
            #expect(!error.description.contains(name))
        }
    }

    /// Runs the `volumekit` executable `swift test` built beside the test bundle; its exit status and output.
    static func volumekit(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let outcome = try await runChildProcess(volumekitExecutable, arguments)
        return (outcome.status, outcome.output)
    }

    @Test(
        "The command line: simulate --trace writes the diagnostics it prints; trace replay --json reports a dropped one"
    )
    func commandLine() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: volumekitExecutable.path),
            "build volumekit first")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../scenarios/burst-at-zero.txt").standardized
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("vk-diagnostics-\(UUID()).jsonl")
        let edited = file.deletingPathExtension().appendingPathExtension("edited.jsonl")
        defer {
            try? FileManager.default.removeItem(at: file)
            try? FileManager.default.removeItem(at: edited)
        }
        let run = try await Self.volumekit([
            "simulate", "--profile", "sample:106", "--json", "--trace", file.path, script.path,
        ])
        #expect(run.status == 0)
        let printed = run.output.split(separator: "\n").filter { $0.contains(#""type":"diagnostic""#) }
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
        let written = lines.filter { $0.contains(#""type":"diagnostic""#) }
        #expect(!printed.isEmpty)
        #expect(written.count == printed.count)
        #expect(written.allSatisfy { $0.contains(#""name":"headroomExhausted""#) })
        let same = try await Self.volumekit(["trace", "replay", "--json", file.path])
        #expect(same.status == 0)
        #expect(same.output.contains(#""diagnosticDifferences":0"#))
        try Data((lines.filter { !$0.contains(#""type":"diagnostic""#) }.joined(separator: "\n") + "\n").utf8)
            .write(to: edited)
        let dropped = try await Self.volumekit(["trace", "replay", "--json", edited.path])
        #expect(dropped.status == 0)
        #expect(dropped.output.contains(#""type":"diagnosticExtra", "name":"headroomExhausted""#))
        #expect(dropped.output.contains(#""diagnosticDifferences":\#(written.count)"#))
    }

    @Test("The trace's diagnostic names are the ones simulate --json and the verdict print")
    func namesAgree() {
        for event in TraceFormatTests.everyDiagnostic {
            #expect(event.traceName == event.name)
        }
        #expect(Set(TraceFormatTests.everyDiagnostic.map(\.name)) == Set(VolumeButtonsDiagnostic.traceNames))
    }

    @Test("The recording clients tell the diagnostic observer they wrap, and record before the app hears")
    func observerChain() throws {
        let device = SimulatedDevice()
        let recorder = TraceRecorder(header: .simulator(device), clock: device.clock)
        let heard = Locked([VolumeButtonsDiagnostic]())
        var clients = device.clients
        clients.diagnosticObserver = { diagnostic in heard.withLock { $0.append(diagnostic) } }
        let recording = clients.recording(to: recorder, feature: "buttons")
        recording.diagnosticObserver(.ambiguousStep)
        #expect(heard.current == [.ambiguousStep])
        #expect(recorder.records.map(\.event) == [.diagnostic(.ambiguousStep)])
        #expect(recorder.records.first?.feature == "buttons")
    }
}
