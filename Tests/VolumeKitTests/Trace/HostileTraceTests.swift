import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Hostile traces, second round (issue 23, items 1, 6 and 7, and `trace fit missing.jsonl`): times beyond a
/// `Double`'s microsecond, FIFOs, and error text that echoed the input unbounded with control characters.
/// Each is refused with a sentence, never a hang, a raw system message or a raw escape sequence.
@Suite("Hostile traces")
struct HostileTraceTests {
    /// A simulated field check's trace (clock origin 0; holds whose repeating timers hung the replay at 2^53 s),
    /// one line per element.
    static let lines: [String] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Fixtures/Traces/simulator-ios17.4-2026-12-01.jsonl").standardized
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }()

    /// The trace with the header's `clockOrigin` replaced.
    static func withOrigin(_ origin: String) -> String {
        let header = lines[0].replacingOccurrences(of: #""clockOrigin":0"#, with: #""clockOrigin":\#(origin)"#)
        return ([header] + lines.dropFirst()).joined(separator: "\n") + "\n"
    }

    /// The trace with every record's `t` shifted by `shift` seconds (text-wise, as a file would say it).
    static func shifted(by shift: Double) -> String {
        var out = [lines[0]]
        for line in lines.dropFirst() {
            guard let range = line.range(of: #"^\{"t":[0-9.e+-]+"#, options: .regularExpression),
                let time = Double(line[range].dropFirst(5))
            else {
                out.append(line)
                continue
            }
            out.append(#"{"t":\#(time + shift)"# + line[range.upperBound...])
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// Whether `text` holds a character that would reach a terminal as a control.
    static func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }

    @Test(
        "A clock origin whose precision cannot hold a microsecond is refused at line 1, with the bound",
        arguments: ["1e16", "9.007199254740992e15", "1.2e16", "2e16", "3e16", "1e12", "8589934592", "-1e16"])
    func hugeOrigins(origin: String) {
        #expect(Self.lines.count > 100)
        #expect {
            try Trace(jsonLines: Data(Self.withOrigin(origin).utf8))
        } throws: { error in
            guard let error = error as? TraceError, case .invalidValue("clockOrigin", _, _) = error.problem else {
                return false
            }
            return error.line == 1 && error.description.contains("below 8589934592 (2^33 s")
        }
    }

    @Test("Record times beyond the bound are refused at their line; times up to it read and replay")
    func hugeRecordTimes() throws {
        #expect {
            try Trace(jsonLines: Data(Self.shifted(by: 1e16).utf8))
        } throws: { error in
            guard let error = error as? TraceError, case .invalidValue("t", _, _) = error.problem else { return false }
            return error.line == 2 && error.description.contains("stays below 8589934592 s")
        }
        // A large but reachable origin (about 250 years of uptime) still reads and replays.
        let trace = try Trace(jsonLines: Data(Self.withOrigin("8e9").utf8))
        #expect(trace.header.clockOrigin == 8e9)
        #expect(try TraceReplay.run(trace).setDifferences.isEmpty)
        #expect(Trace.latestTime == 8_589_934_592)
    }

    @Test(
        "Large but reachable clock origins replay as at their own (a read at a timer's instant was missed from 6.8e7 s)",
        arguments: ["6.8e7", "1e8", "8.5e9"])
    func largeOriginsReplayTheSame(origin: String) throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Fixtures/Traces").standardized
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".jsonl") }
        #expect(names.count >= 3)
        for name in names {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            let moved = text.replacingOccurrences(
                of: #""clockOrigin":[0-9.e+]+"#, with: #""clockOrigin":\#(origin)"#, options: .regularExpression)
            let report = try TraceReplay.run(try Trace(jsonLines: Data(moved.utf8)))
            #expect(report.setDifferences.isEmpty, "\(name) at \(origin): \(report.setDifferences.count) differences")
            #expect(report.eventsMatchRecording != false, "\(name) at \(origin)")
        }
    }

    @Test("A trace made in code with times beyond the bound is refused by the replay, not run forever")
    func hugeTimesInCode() throws {
        var trace = try Trace(jsonLines: Data(Self.withOrigin("0").utf8))
        trace.header.clockOrigin = 1e16
        #expect {
            try TraceReplay.run(trace)
        } throws: { error in
            guard let error = error as? TraceError, case .invalidValue("clockOrigin", _, _) = error.problem else {
                return false
            }
            return error.line == nil
        }
    }

    @Test("An unknown record type of 200,000 characters is echoed cut to 40, and control characters as escapes")
    func echoedInputIsCutAndCleaned() {
        let header = Self.lines[0]
        let long = String(repeating: "x", count: 200_000)
        func message(_ record: String, after lines: [String] = [header]) -> String {
            do {
                _ = try Trace(jsonLines: Data((lines + [record]).joined(separator: "\n").utf8))
                return "accepted"
            } catch {
                return "\(error)"
            }
        }
        let cut = message(#"{"t":0,"type":"\#(long)"}"#)
        #expect(cut.count < 200, "\(cut.count) characters")
        #expect(cut.contains(#""\#(String(repeating: "x", count: 40))…""#), "\(cut.prefix(120))")
        // ESC [2J (clear the screen), an OSC title ending in BEL, a C1 CSI: shown, never sent.
        let hostile = #"\u001b[2J\u001b]0;owned\u0007\u009b"#
        for record in [
            #"{"t":0,"type":"\#(hostile)"}"#,
            #"{"t":0,"type":"read","what":"\#(hostile)"}"#,
            #"{"t":0,"type":"notification","name":"n","observer":1,"userInfo":{"\#(hostile)\#(long)":[]}}"#,
            #"{"t":0,"type":"kvo","value":"\#(hostile)\#(long)","observer":1}"#,
            #"{"t":0,"type":"storeWrite","key":"k","data":"\#(hostile)"}"#,
        ] {
            let text = message(record)
            #expect(text.hasPrefix("line 2: "), "\(text.prefix(200))")
            #expect(!Self.hasControl(text), "\(text.prefix(200))")
            #expect(text.contains(#"\u{1B}[2J"#), "\(text.prefix(200))")
            #expect(text.count < 400, "\(text.count) characters")
        }
        // The header's own words too.
        let format = message(#"{"format":"\#(hostile)\#(long)"}"#, after: [])
        #expect(!Self.hasControl(format) && format.contains(#"\u{7}"#) && format.count < 300, "\(format.prefix(200))")
        let os = header.replacingOccurrences(of: #""os":"17.4""#, with: #""os":"\#(hostile)""#)
        #expect(os != header)
        let osText = message(os, after: [])
        #expect(!Self.hasControl(osText) && osText.contains(#"\u{9B}"#), "\(osText)")
    }

    @Test("A replay's own messages echo the trace's words cut and cleaned")
    func replayMessagesAreCleaned() {
        let text = TraceReplayError.unsupportedStrategy("\u{1B}[2J" + String(repeating: "y", count: 10_000)).description
        #expect(!Self.hasControl(text) && text.count < 300, "\(text.prefix(200))")
        let failure = TraceReplayError.recordedFailure("\u{7}" + String(repeating: "z", count: 10_000)).description
        #expect(!Self.hasControl(failure) && failure.count < 300, "\(failure.prefix(200))")
    }

    @Test("A folder, a device or a missing path is refused with a sentence naming what it is")
    func notRegularFiles() {
        func problem(_ path: String) -> String {
            do {
                _ = try Trace(contentsOf: URL(fileURLWithPath: path))
                return "read"
            } catch {
                return "\(error)"
            }
        }
        #expect(
            problem("/dev/null")
                == "the file cannot be read (it is not a regular file but a FIFO, socket or device; to read a pipe, give - and send the trace to standard input)."
        )
        #expect(problem(FileManager.default.temporaryDirectory.path).contains("it is a folder"))
        #expect(
            problem("/nonexistent-\(UUID())/t.jsonl")
                == "the file cannot be read (there is no file at this path; check the path).")
    }
}
