import Foundation
import TestSupport
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Malformed traces (issue 14): a real trace, cut or corrupted anywhere, is refused with its line number and
/// a sentence — never a crash, never a silent misread.
@Suite("Malformed traces")
struct MalformedTraceTests {
    /// A trace of a whole simulated field check, as `simulate --trace` writes it: every record type the
    /// simulator makes.
    static let lines: [String] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../scenarios/field-check.txt").standardized
        guard let text = try? String(contentsOf: url, encoding: .utf8), let scenario = try? Scenario(parsing: text)
        else { return [] }
        let runner = ScenarioRunner(scenario: scenario)
        let lines = Locked([String]())
        runner.traceOptions = ScenarioTraceOptions(
            keepsRecords: false, onLine: { line in lines.withLock { $0.append(line) } })
        runner.run()
        return lines.current
    }()

    /// Reproducible positions, spread over the file.
    static func positions(_ count: Int, below limit: Int, seed: UInt64) -> [Int] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(limit))
        }
    }

    @Test("A trace cut at any byte is read up to the cut, or refused as cut off at the cut's line")
    func cutAnywhere() async {
        #expect(Self.lines.count > 500)
        // Off the cooperative pool (150 reads): beside it, real-time loopback tests keep their threads.
        let problems = await offThePool { () -> [String] in
            // The first 200 lines: every kind of record the run makes appears early; reading is linear.
            let data = Data(Self.lines.prefix(200).map { $0 + "\n" }.joined().utf8)
            // Where each line starts, to know the line of a cut.
            var starts: [Int] = [0]
            for (index, byte) in data.enumerated() where byte == 0x0A { starts.append(index + 1) }
            var problems: [String] = []
            for cut in Self.positions(150, below: data.count, seed: 14) + [1, data.count - 1] {
                let line = starts.lastIndex { $0 <= cut }! + 1
                let atLineEnd = cut == starts[line - 1] || data[cut - 1] == 0x0A || data[cut] == 0x0A
                do {
                    let trace = try Trace(jsonLines: data.prefix(cut))
                    // Only a cut at a line's end leaves a whole trace: the lines before the cut.
                    let whole = data[cut] == 0x0A ? line - 1 : line - 2
                    if !atLineEnd || trace.records.count != whole {
                        problems.append("cut at \(cut) (line \(line)) read as \(trace.records.count) records")
                    }
                } catch let error as TraceError {
                    if error != TraceError(line: line, .truncated)
                        || !error.description.hasPrefix("line \(line): the last record is cut off")
                    {
                        problems.append("cut at \(cut) (line \(line)): \(error)")
                    }
                } catch {
                    problems.append("cut at \(cut): untyped error \(error)")
                }
            }
            return problems
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test("A value of the wrong type anywhere in a real trace names its line and its field")
    func wrongTypeAnywhere() {
        let all = Self.lines
        for position in Self.positions(150, below: all.count - 2, seed: 7) {
            // The header, then the line to break and the one after it (times still never decrease).
            let lines = [all[0]] + all[(position + 1)...(position + 2)]
            let index = 1
            // The line's first boolean, first string and first number each become a value of another type.
            let line = lines[index]
            for (value, replacement) in [(#":true"#, #":"yes""#), (#":false"#, #":0"#), (#":""#, #":7,"x":""#)] {
                guard let range = line.range(of: value) else { continue }
                var broken = lines
                broken[index] = line.replacingCharacters(in: range, with: replacement)
                do {
                    _ = try Trace(jsonLines: Data(broken.joined(separator: "\n").utf8))
                    Issue.record("accepted line \(index + 1): \(broken[index])")
                } catch let error as TraceError {
                    #expect(error.line == index + 1, "\(error)")
                    #expect(!error.description.contains("Problem."), "\(error)")
                } catch {
                    Issue.record("untyped error \(error)")
                }
            }
            if let range = line.range(of: #"(?<=:)-?[0-9][0-9.e+-]*"#, options: .regularExpression) {
                var broken = lines
                broken[index] = line.replacingCharacters(in: range, with: "[]")
                do {
                    _ = try Trace(jsonLines: Data(broken.joined(separator: "\n").utf8))
                    Issue.record("accepted line \(index + 1): \(broken[index])")
                } catch let error as TraceError {
                    #expect(error.line == index + 1, "\(error)")
                    #expect(
                        error.description.contains("should be") || error.description.contains("is an array"), "\(error)"
                    )
                } catch {
                    Issue.record("untyped error \(error)")
                }
            }
        }
    }

    @Test(
        "A headroom policy out of its range is refused at line 1, naming the field and the range",
        arguments: [
            (#"{"burstSpacing":-0.1,"maximumSteps":6}"#, "headroomPolicy.burstSpacing", "0…1 s"),
            (#"{"burstSpacing":0.05,"maximumSteps":99}"#, "headroomPolicy.maximumSteps", "0…8"),
            (#"{"burstSpacing":"fast","maximumSteps":6}"#, "headroomPolicy.burstSpacing", "a number"),
        ])
    func badHeadroomPolicy(policy: String, field: String, expected: String) {
        guard let header = Self.lines.first else { return }
        let changed = header.replacingOccurrences(
            of: #""headroomPolicy":{"burstSpacing":0.05,"maximumSteps":6}"#, with: #""headroomPolicy":\#(policy)"#)
        #expect(changed != header)
        do {
            _ = try Trace(jsonLines: Data(([changed] + Self.lines.dropFirst()).joined(separator: "\n").utf8))
            Issue.record("\(policy) accepted")
        } catch let error as TraceError {
            #expect(error.line == 1)
            #expect(error.description.contains(field) && error.description.contains(expected), "\(error)")
        } catch {
            Issue.record("untyped error \(error)")
        }
    }

    @Test(
        "Versions other than 1, 2 and 3 are refused at line 1 with the version named",
        arguments: ["0", "4", "-1", "1.5", "1e400", "null"])
    func unknownVersions(version: String) {
        guard let header = Self.lines.first else { return }
        let changed = header.replacingOccurrences(of: #""version":3"#, with: #""version":\#(version)"#)
        #expect(changed != header)
        do {
            _ = try Trace(jsonLines: Data(([changed] + Self.lines.dropFirst()).joined(separator: "\n").utf8))
            Issue.record("version \(version) accepted")
        } catch let error as TraceError {
            #expect(error.line == 1)
            if version == "null" {
                #expect(error.problem == .missingField("version"))
            } else {
                guard case .unsupportedVersion(_, supported: 3) = error.problem else {
                    Issue.record("\(error)")
                    return
                }
                #expect(error.description.contains("this VolumeKit reads versions 1 to 3"))
            }
        } catch {
            Issue.record("untyped error \(error)")
        }
    }

    @Test("A missing comma or closing bracket says which it expected, what it found and at which column")
    func separators() throws {
        let cases: [(String, String)] = [
            (#"{"a":1 "b":2}"#, #"expected ',' or '}' but found '"' at column 8"#),
            ("[1 2]", "expected ',' or ']' but found '2' at column 4"),
            (#"{"a":1"#, "expected ',' or '}': the line ends at column 7"),
            ("[1", "expected ',' or ']': the line ends at column 3"),
            (#"{"a":[1}"#, "expected ',' or ']' but found '}' at column 8"),
        ]
        for (line, detail) in cases {
            let error = #expect(throws: TraceJSONSyntaxError.self, "\(line)") { try TraceJSON.parse(Data(line.utf8)) }
            #expect(error?.detail == detail, "\(line)")
        }
        #expect(try TraceJSON.parse(Data(#"{"a":[1, 2],"b":{}}"#.utf8)).text == #"{"a":[1,2],"b":{}}"#)
    }

    @Test("A file over the standard 64 MiB limit is refused by its size, before it is parsed")
    func hugeFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vk-huge-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: url) }
        // Sparse: no disk is spent on the zeros.
        let size = Trace.Limits.standard.maxFileBytes + 4096
        #expect(FileManager.default.createFile(atPath: url.path, contents: Data((Self.lines.first ?? "").utf8)))
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: UInt64(size))
        try handle.close()
        #expect(throws: TraceError(line: nil, .fileTooLarge(bytes: size, limit: Trace.Limits.standard.maxFileBytes))) {
            try Trace(contentsOf: url)
        }
    }

    @Test("A header cut off, or a file of the right name holding something else, is refused at line 1")
    func notATrace() {
        guard let header = Self.lines.first else { return }
        #expect(throws: TraceError(line: 1, .truncated)) { try Trace(jsonLines: Data(header.prefix(80).utf8)) }
        #expect {
            try Trace(jsonLines: Data("volume 0.5\nstart\npress up\n".utf8))
        } throws: { error in
            guard let error = error as? TraceError, case .notJSON = error.problem else { return false }
            return error.line == 1 && error.description.hasPrefix("line 1: the line is not valid JSON")
        }
    }
}

extension MalformedTraceTests {
    @Test("An endless or oversized stream is refused after the limit, without being held whole")
    func endlessStreams() throws {
        let small = Trace.Limits(maxFileBytes: 4096)
        // A pipe with more than the limit in it (standard input, say): refused, not read to its end. Written whole
        // first (less than a pipe's buffer), so no writer is left blocked on the pipe.
        let pipe = Pipe()
        try pipe.fileHandleForWriting.write(contentsOf: Data(repeating: 0x20, count: 8192))
        try pipe.fileHandleForWriting.close()
        #expect(throws: TraceError(line: nil, .streamTooLarge(limit: 4096))) {
            try Trace(reading: pipe.fileHandleForReading.fileDescriptor, limits: small)
        }
        try? pipe.fileHandleForReading.close()
        // A device with no end, named as a file: refused by its type before a byte is read (issue 23, item 6:
        // a FIFO named as a file blocked forever), so only standard input is ever read as a stream.
        if FileManager.default.fileExists(atPath: "/dev/zero") {
            #expect {
                try Trace(contentsOf: URL(fileURLWithPath: "/dev/zero"), limits: small)
            } throws: { error in
                guard let error = error as? TraceError, case .unreadable(let reason) = error.problem else {
                    return false
                }
                return reason.contains("not a regular file")
            }
        }
        #expect(
            TraceError(line: nil, .streamTooLarge(limit: 4096)).description
                == "the input is more than 4096 bytes, the limit for a trace; is it a trace? (split the recording or raise the limit)"
        )
        // A whole trace through a pipe reads as from a file.
        let good = Pipe()
        let text = Data(Self.lines.prefix(30).map { $0 + "\n" }.joined().utf8)
        #expect(text.count < 32_768)
        try good.fileHandleForWriting.write(contentsOf: text)
        try good.fileHandleForWriting.close()
        #expect(try Trace(reading: good.fileHandleForReading.fileDescriptor).records.count == 29)
    }
}
