import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Issue 12 item 9: scripts from a user are untrusted input; each bound is in docs/security.md.
@Suite("Hostile scripts")
struct HostileScriptTests {
    private func commands(_ records: [ScenarioRecord]) -> [String] {
        records.compactMap { if case .command(let line) = $0.kind { return line } else { return nil } }
    }

    @Test("A CRLF script whose first line is a comment runs every line")
    func crlfScriptRunsEveryLine() throws {
        let scenario = try Scenario(parsing: "# CRLF from Windows\r\nvolume 0.5\r\nstart\r\npress up x2\r\nstop\r\n")
        #expect(scenario.lines.map(\.number) == [2, 3, 4, 5])
        let records = ScenarioRunner(scenario: scenario).run()
        #expect(commands(records) == ["start", "press up x2", "stop"])
        #expect(records.filter { $0.kind == .button(.up, .pressed) }.count == 2)
    }

    @Test("A CR-only script runs every line, and errors name the right line")
    func crOnlyScriptRunsEveryLine() throws {
        let scenario = try Scenario(parsing: "# old Mac\rstart\rpress down\rstop")
        #expect(scenario.lines.map(\.number) == [2, 3, 4])
        #expect(commands(ScenarioRunner(scenario: scenario).run()) == ["start", "press down", "stop"])
        #expect(throws: ScenarioError(line: 3, message: "unknown command 'jump'")) {
            try Scenario(parsing: "start\r\n\r\njump\r\n")
        }
        #expect(throws: ScenarioError(line: 4, message: "unknown command 'jump'")) {
            try Scenario(parsing: "start\r\rstop\rjump")
        }
    }

    @Test("An endless script on standard input is refused at 1 MiB, quickly")
    func endlessInputIsCapped() throws {
        let handle = try #require(FileHandle(forReadingAtPath: "/dev/zero"))
        let start = Date()
        #expect(throws: ScenarioInputError(message: "the script is larger than 1048576 bytes (1 MiB), the limit")) {
            try Scenario.readScript(from: handle.fileDescriptor)
        }
        #expect(Date().timeIntervalSince(start) < 5)
    }

    @Test("A script with a NUL byte or invalid UTF-8 is refused with a sentence")
    func binaryInputIsRefused() throws {
        #expect(throws: ScenarioInputError(message: "the script has a NUL byte at byte 6; a script is text")) {
            try Scenario.decodeScript(Data("start\0stop".utf8))
        }
        #expect(throws: ScenarioInputError(message: "the script is not valid UTF-8 text")) {
            try Scenario.decodeScript(Data([0x73, 0x74, 0xFF, 0x0A]))
        }
        #expect(try Scenario.decodeScript(Data("start\r\nstop".utf8)) == "start\r\nstop")
    }

    @Test("A script asking for more than a day of virtual time is refused before it runs")
    func virtualTimeIsCapped() throws {
        let script = "start\n" + String(repeating: "wait 86400\n", count: 150)
        #expect(
            throws: ScenarioError(
                line: 3,
                message:
                    "the script asks for more than 86400 s (one day) of virtual time, the limit; split it into shorter scripts"
            )
        ) {
            try Scenario(parsing: script)
        }
        _ = try Scenario(parsing: "start\nwait 43200\nhold up 43000\npress up x10 every 1")  // a day fits
        let presses = "start\n" + String(repeating: "press up x10000 every 0.01\n", count: 11)
        #expect(throws: ScenarioError(line: 12, message: "the script asks for more than 100000 presses, the limit")) {
            try Scenario(parsing: presses)
        }
    }

    @Test("A run stops at the record limit, delivering records as they come")
    func recordsAreCappedAndStreamed() throws {
        // A day-long hold auto-repeats far past the record limit (lowered here to keep the test fast).
        let runner = ScenarioRunner(scenario: try Scenario(parsing: "start\nhold up 86400"))
        runner.recordLimit = 2_000
        var count = 0
        var clockAtFirstRecord: Instant?
        #expect(throws: ScenarioLimitError(records: 2_000)) {
            try runner.run { _ in
                count += 1
                if clockAtFirstRecord == nil { clockAtFirstRecord = runner.device.now }
            }
        }
        #expect(count == 2_000)
        #expect(runner.device.now < 1_000)  // stopped early, not after simulating the whole day
        #expect(try #require(clockAtFirstRecord) < 120)  // delivered within minutes of virtual time, not at the end
        let collecting = ScenarioRunner(scenario: try Scenario(parsing: "start\nhold up 86400"))
        collecting.recordLimit = 2_000
        let records = collecting.run()
        #expect(records.count == 2_001)
        #expect(
            records.last?.kind
                == .error(
                    "stopped after 2000 records, the limit for one run; shorten the script's holds, presses or waits"))
        #expect(ScenarioRunner.maximumRecords == 100_000)
    }

    @Test("An unknown word of 1 MB is echoed back cut to 40 characters")
    func echoedInputIsTruncated() throws {
        let word = String(repeating: "z", count: 1_000_000)
        let cut = String(repeating: "z", count: 40) + "…"
        #expect(throws: ScenarioError(line: 1, message: "unknown command '\(cut)'")) { try Scenario(parsing: word) }
        #expect(
            throws: ScenarioError(line: 2, message: "'\(cut)' is not a time in seconds (a number from 0 to 86,400)")
        ) {
            try Scenario(parsing: "start\nwait \(word)")
        }
    }

    @Test("A mute record for an unknown state names its reason in JSON")
    func unknownMuteJSONHasReason() {
        let record = ScenarioRecord(time: 1, kind: .mute(.unknown(.noCompletion)))
        #expect(record.json == #"{"t":1.0, "type":"mute", "state":"unknown", "reason":"noCompletion"}"#)
    }
}

extension HostileScriptTests {
    @Test("Echoed words show control characters as escapes, never raw (issue 23, item 7)")
    func echoedInputIsCleaned() {
        let word = "\u{1B}[2J\u{1B}]0;owned\u{7}" + String(repeating: "q", count: 100)
        let shown = #"\u{1B}[2J\u{1B}]0;owned\u{7}"# + String(repeating: "q", count: 26) + "…"
        #expect(throws: ScenarioError(line: 1, message: "unknown command '\(shown)'")) { try Scenario(parsing: word) }
        #expect(throws: ScenarioError(line: 2, message: "'\(shown)' is not a button (up or down)")) {
            try Scenario(parsing: "start\npress \(word)")
        }
    }

    @Test("A time over one day says the limit (issue 23: a newcomer's `wait 86401`)")
    func timeLimitIsSaid() {
        #expect(
            throws: ScenarioError(
                line: 2, message: "'86401' is more than 86,400 seconds (one day), the limit for one command")
        ) { try Scenario(parsing: "start\nwait 86401") }
        #expect(throws: ScenarioError(line: 2, message: "'-1' is not a time in seconds (a number from 0 to 86,400)")) {
            try Scenario(parsing: "start\nwait -1")
        }
    }
}
