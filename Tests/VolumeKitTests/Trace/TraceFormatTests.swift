import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

@Suite("Trace format")
struct TraceFormatTests {
    static let header = TraceHeader(
        source: .device, deviceModel: "iPhone15,2", deviceKind: .iphone, osVersion: OSVersion(17, 4),
        volumeKitVersion: "1.0.0",
        session: AudioSessionConfiguration(category: .playAndRecord, options: [.mixWithOthers, .allowBluetoothA2DP]),
        sessionMode: "videoRecording", strategy: "outputVolume", buttonMode: .passive, headroomSteps: 3,
        clockOrigin: 1234.5, note: "field check"
    )

    /// One record of every kind, values chosen to catch lost precision.
    static let everyEvent: [TraceEvent] = [
        .outputVolume(Float(0.1), observer: 2),
        .outputVolume(0.4998779296875, observer: 2),
        .systemNotification(
            SystemVolumeNotification(
                name: "SystemVolumeDidChange",
                userInfo: [
                    "Reason": .string("ExplicitVolumeChange"), "Volume": .number(0.5625),
                    "SequenceNumber": .number(1001), "Odd": .other("<NSData 4 bytes>"),
                ]), observer: 3),
        .lifecycle(.didBecomeActive, observer: 1), .lifecycle(.willResignActive, observer: 1),
        .lifecycle(.didEnterBackground, observer: 1), .lifecycle(.willEnterForeground, observer: 1),
        .lifecycle(.interruptionBegan, observer: 1), .lifecycle(.interruptionEnded(shouldResume: false), observer: 1),
        .lifecycle(.routeChanged(.headphones), observer: 1),
        .captureEvent(CaptureEvent(source: .primary, phase: .cancelled), observer: 4),
        .volumeViewReady(view: 1), .soundCompleted(play: 7),
        .subscribed(.systemNotifications, observer: 3), .unsubscribed(.captureEvents, observer: 4),
        .setVolume(0.30000001192092896, view: 1), .setVolume(0.5, view: nil),
        .volumeViewInstalled(view: 1), .volumeViewRemoved(view: 1),
        .setCategory(.playbackMixing, error: nil), .setActive(true, notifyOthers: false, error: "insufficientPriority"),
        .primeOutput,
        .soundCreated(file: "mute-probe.caf", sound: 4097, status: nil),
        .soundCreated(file: "bad.caf", sound: nil, status: -50),
        .soundStarted(sound: 4097, alert: false, play: 7), .soundMarkedUISound(sound: 4097, isUISound: true),
        .soundDisposed(sound: 4097),
        .storeWrite(key: "VolumeKit.pendingRestores.v1", data: Data([0, 1, 2, 255])), .storeWrite(key: "k", data: nil),
        .read(.outputVolume(Float.leastNonzeroMagnitude)), .read(.route(.bluetooth)), .read(.appState(.inactive)),
        .read(.configuration(.systemDefault)), .read(.otherAudioPlaying(true)), .read(.captureAvailable(false)),
        .read(.stored(key: "k", data: nil)),
        .mark("Did the system volume HUD appear?", answer: false),
        .mark("the user pressed up \"twice\"\n", answer: nil),
        .mark("音量 🔊 \u{01}\t\\ /", answer: true),
        .gesture(.press(.down)), .gesture(.hold(.up, seconds: 3)), .gesture(.other("headphones in")),
        .app(feature: "buttons", call: "start"), .buttonEvent(.up, .repeated),
        .routeDetails(reason: "newDeviceAvailable", ports: [TracePort(type: "Headphones", uid: "Wired Headphones")]),
        .diagnostic(.headroomExhausted),
        .read(.secondaryAudioShouldBeSilencedHint(true)),
        .interruptionDetails(InterruptionDetails(kind: .began, reason: "default"), observer: 1),
        .interruptionDetails(InterruptionDetails(kind: .ended, options: ["shouldResume", "unknown(4)"]), observer: 1),
        .interruptionDetails(
            InterruptionDetails(kind: .began, reason: "appWasSuspended", wasSuspended: true, delivered: false),
            observer: 5),
    ]

    /// Every diagnostic case, each payload kind (format 2's `diagnostic` record).
    static let everyDiagnostic: [VolumeButtonsDiagnostic] = [
        .unreadableNotification(.unknownName("SomethingElse")),
        .unreadableNotification(.missingValue(key: "Volume")),
        .unreadableNotification(.wrongType(key: "Volume", found: .string("loud"))),
        .unreadableNotification(.wrongType(key: "Reason", found: .other("<NSData 4 bytes>"))),
        .unreadableNotification(.volumeOutOfRange(1.5)), .unreadableNotification(.volumeOutOfRange(.infinity)),
        .volumeSetFailed(0.30000001192092896), .sessionActivationFailed("insufficientPriority \"call\""),
        .sessionTakenOver(.playAndRecord), .captureEventsNotDelivered, .headroomExhausted, .routeChangeNotNotified,
        .routeVolumeUncertain, .railPressesUnseen(0), .railPressesUnseen(1), .recoveredAtUnconfirmedSet,
        .ambiguousStep, .volumeControlUnavailable, .outsideEnvelope(.roundTrip, 0.30500000000000005),
    ]

    @Test("Every record survives writing and strict reading, floats bit for bit")
    func roundTrip() throws {
        let records = (Self.everyEvent + Self.everyDiagnostic.map(TraceEvent.diagnostic)).enumerated().map {
            TraceRecord(
                time: Double($0.offset) * 0.0137, event: $0.element, feature: $0.offset % 2 == 0 ? "buttons" : nil)
        }
        let trace = Trace(header: Self.header, records: records)
        let read = try Trace(jsonLines: Data(trace.jsonLines.utf8))
        #expect(read == trace)
        #expect(Set(Self.everyEvent.map(\.typeName)) == Set(TraceEvent.typeNames))
        let lines = trace.jsonLines.split(separator: "\n")
        #expect(lines.count == records.count + 1)
        #expect(lines[1].hasPrefix("{\"t\":0,\"type\":\"kvo\",\"value\":0.10000000149011612,"))
    }

    @Test("A trace made by the simulator says so in its header; a device trace must say device")
    func syntheticTracesAreLabelled() throws {
        let run = try TraceRecording.standardSession()
        let text = run.recorder.trace.jsonLines
        #expect(text.split(separator: "\n")[0].contains("\"source\":\"simulator\""))
        #expect(try Trace(jsonLines: Data(text.utf8)).header.source == .simulator)
        #expect(try TraceReplay.run(run.recorder.trace).textLines.contains { $0.contains("synthetic") })
        let unlabelled = text.replacingOccurrences(of: "\"source\":\"simulator\",", with: "")
        #expect(throws: TraceError(line: 1, .missingField("source"))) { try Trace(jsonLines: Data(unlabelled.utf8)) }
    }

    @Test("The recorder streams the same lines it keeps, and its times never go backwards")
    func recorderStreams() throws {
        let device = SimulatedDevice()
        let lines = Locked([String]())
        let recorder = TraceRecorder(header: .simulator(device), clock: device.clock) { line in
            lines.withLock { $0.append(line) }
        }
        let clients = device.clients.recording(to: recorder)
        _ = clients.systemVolume.outputVolume()
        device.advance(by: 0.25)
        recorder.mark("later")
        #expect(lines.current.joined(separator: "\n") + "\n" == recorder.trace.jsonLines)
        #expect(recorder.records.map(\.time) == [0, 0.25])
    }

    @Test("Recording from many threads at once keeps every record, in non-decreasing time")
    func recorderIsThreadSafe() throws {
        let clock = ClockClient(now: { ProcessInfo.processInfo.systemUptime }, schedule: { _, _ in .none })
        let recorder = TraceRecorder(header: Self.header, clock: clock)
        let device = SimulatedDevice()
        let clients = device.clients.recording(to: recorder)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<100 {
                recorder.mark("thread \(thread) record \(index)")
                _ = clients.lifecycle.observe { _ in }
            }
        }
        let records = recorder.records
        #expect(records.count == 8 * 100 * 2)
        #expect(zip(records, records.dropFirst()).allSatisfy { $0.time <= $1.time })
        let observers = records.compactMap { record -> Int? in
            if case .subscribed(_, let observer) = record.event { return observer }
            return nil
        }
        #expect(Set(observers).count == 8 * 100)
        #expect(try Trace(jsonLines: Data(recorder.trace.jsonLines.utf8)) == recorder.trace)
    }

    // MARK: - Malformed traces

    static let headerLine = Trace(header: header).jsonLines.trimmingCharacters(in: .newlines)

    static func read(_ lines: [String], limits: Trace.Limits = .standard) throws -> Trace {
        try Trace(jsonLines: Data(lines.joined(separator: "\n").utf8), limits: limits)
    }

    static func expectError(
        _ lines: [String], line: Int?, _ problem: TraceError.Problem, limits: Trace.Limits = .standard,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            _ = try read(lines, limits: limits)
            Issue.record("expected \(problem) at line \(line.map(String.init) ?? "-")", sourceLocation: sourceLocation)
        } catch let error as TraceError {
            #expect(error == TraceError(line: line, problem), sourceLocation: sourceLocation)
            if let line { #expect(error.description.hasPrefix("line \(line): "), sourceLocation: sourceLocation) }
            #expect(
                !error.description.contains("Problem."), "a sentence, not enum text: \(error)",
                sourceLocation: sourceLocation)
        } catch {
            Issue.record("untyped error \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("A truncated last line is reported as cut off, with its line number")
    func truncated() {
        Self.expectError(
            [Self.headerLine, #"{"t":0,"type":"prime"}"#, #"{"t":0.1,"type":"kvo","val"#], line: 3, .truncated)
        // A complete last line without a newline is fine.
        #expect(throws: Never.self) { try Self.read([Self.headerLine, #"{"t":0,"type":"prime"}"#]) }
    }

    @Test("Broken JSON in the middle of a file names its line")
    func notJSON() throws {
        do {
            _ = try Self.read([Self.headerLine, #"{"t":0,"type":"prime"}"#, "{not json}", #"{"t":0,"type":"prime"}"#])
            Issue.record("expected an error")
        } catch let error as TraceError {
            #expect(error.line == 3)
            guard case .notJSON = error.problem else { Issue.record("\(error)"); return }
        }
        Self.expectError([Self.headerLine, "[1,2]"], line: 2, .notAnObject(found: "an array"))
        for garbage in [
            #"{"t":0,"type":"prime"} x"#, #"{"t":01,"type":"prime"}"#, #"{"t":0,"type":"prime",}"#, #"{'t':0}"#,
            #"{"t":0,"type":"mark","text":"\q"}"#, #"{"t":0,"type":"mark","text":"\ud800"}"#,
            "{\"t\":0,\"type\":\"mark\",\"text\":\"a\u{01}\"}",
            #"{"t":-,"type":"prime"}"#, #"{"t":1.,"type":"prime"}"#, #"{"t":tru,"type":"prime"}"#,
        ] {
            do {
                _ = try Self.read([Self.headerLine, garbage, #"{"t":0,"type":"prime"}"#])
                Issue.record("accepted \(garbage)")
            } catch let error as TraceError {
                #expect(error.line == 2, "\(garbage): \(error)")
                guard case .notJSON(let detail) = error.problem else { Issue.record("\(garbage): \(error)"); continue }
                #expect(detail.contains("column"), "\(detail)")
            }
        }
        // Escapes and surrogate pairs read as they should.
        let escaped = try Self.read([Self.headerLine, #"{"t":0,"type":"mark","text":"\u00e9\ud83d\udd0a\/\b\f"}"#])
        #expect(escaped.records.first?.event == .mark("é🔊/\u{08}\u{0C}", answer: nil))
    }

    @Test("An unknown version or another format is refused at line 1")
    func versions() {
        let v4 = Self.headerLine.replacingOccurrences(of: "\"version\":3", with: "\"version\":4")
        Self.expectError([v4], line: 1, .unsupportedVersion("4", supported: 3))
        let textVersion = Self.headerLine.replacingOccurrences(of: "\"version\":3", with: "\"version\":\"1\"")
        Self.expectError(
            [textVersion], line: 1, .wrongType(field: "version", expected: "a whole number", found: "a string (\"1\")"))
        Self.expectError([#"{"format":"other-trace","version":1}"#], line: 1, .notATrace(format: "other-trace"))
        Self.expectError([#"{"t":0,"type":"prime"}"#], line: 1, .notATrace(format: nil))
        Self.expectError([], line: nil, .empty)
        Self.expectError(["", "  "], line: nil, .empty)
    }

    @Test("Wrong types, missing fields and bad values name the field and the line")
    func wrongTypes() {
        let h = Self.headerLine
        Self.expectError(
            [h, #"{"t":"0.5","type":"prime"}"#], line: 2,
            .wrongType(field: "t", expected: "a number", found: "a string (\"0.5\")"))
        Self.expectError(
            [h, #"{"t":0.5,"type":"kvo","value":true,"observer":1}"#], line: 2,
            .wrongType(field: "value", expected: "a number", found: "a boolean (true)"))
        Self.expectError([h, #"{"t":0.5,"type":"kvo","observer":1}"#], line: 2, .missingField("value"))
        Self.expectError(
            [h, #"{"t":0.5,"type":"kvo","value":0.5,"observer":1.5}"#], line: 2,
            .invalidValue(field: "observer", value: "1.5", expected: "a whole number"))
        Self.expectError(
            [h, #"{"t":0.5,"type":"kvo","value":1e300,"observer":1}"#], line: 2,
            .invalidValue(field: "value", value: "1e+300", expected: "a finite number"))
        Self.expectError(
            [h, #"{"t":0.5,"type":"lifecycle","event":"didExplode","observer":1}"#], line: 2,
            .invalidValue(
                field: "event", value: "\"didExplode\"",
                expected: "one of "
                    + [
                        "didBecomeActive", "willResignActive", "didEnterBackground", "willEnterForeground",
                        "interruptionBegan", "interruptionEnded", "routeChanged", "mediaServicesWereReset",
                    ].map { "\"\($0)\"" }.joined(separator: ", ")))
        Self.expectError(
            [h, #"{"t":0.5,"type":"notification","name":"X","userInfo":{"Volume":[1]},"observer":1}"#], line: 2,
            .wrongType(field: "userInfo.Volume", expected: "a string, a number or {\"other\": …}", found: "an array"))
        Self.expectError([h, #"{"t":0.5,"type":"teleport"}"#], line: 2, .unknownRecordType("teleport"))
        Self.expectError(
            [h, #"{"t":0.5,"type":"prime"}"#, #"{"t":0.25,"type":"prime"}"#], line: 3,
            .timeWentBackwards(time: 0.25, previous: 0.5))
        Self.expectError(
            [h, #"{"t":-1,"type":"prime"}"#], line: 2,
            .invalidValue(field: "t", value: "-1.0", expected: "a number of seconds ≥ 0"))
        let badOS = h.replacingOccurrences(of: "\"os\":\"17.4\"", with: "\"os\":\"seventeen\"")
        Self.expectError(
            [badOS], line: 1,
            .invalidValue(field: "device.os", value: "\"seventeen\"", expected: "an iOS version such as \"17.4\""))
    }

    @Test("Huge files, huge lines, too many records, deep nesting and non-UTF-8 are refused, never a crash")
    func sizeCaps() throws {
        let h = Self.headerLine
        let small = Trace.Limits(maxFileBytes: 4096, maxLineBytes: 600, maxRecords: 3)
        let longMark = #"{"t":0,"type":"mark","text":""# + String(repeating: "x", count: 700) + #""}"#
        Self.expectError([h, longMark], line: 2, .lineTooLong(bytes: longMark.utf8.count, limit: 600), limits: small)
        let prime = #"{"t":0,"type":"prime"}"#
        Self.expectError([h, prime, prime, prime, prime], line: 5, .tooManyRecords(limit: 3), limits: small)
        let big = [h] + Array(repeating: prime, count: 400)
        let bytes = big.joined(separator: "\n").utf8.count
        Self.expectError(big, line: nil, .fileTooLarge(bytes: bytes, limit: 4096), limits: small)
        // From a file: refused before it is loaded whole.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "volumekit-huge-\(UUID().uuidString).jsonl")
        try Data(big.joined(separator: "\n").utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(throws: TraceError(line: nil, .fileTooLarge(bytes: bytes, limit: 4096))) {
            try Trace(contentsOf: url, limits: small)
        }
        #expect(throws: Never.self) { try Trace(contentsOf: url) }
        let missing = url.appendingPathExtension("absent")
        #expect { try Trace(contentsOf: missing) } throws: {
            ($0 as? TraceError)?.line == nil && "\($0)".contains("cannot be read")
        }
        // Nesting deep enough to exhaust a decoder's stack.
        let deep =
            #"{"t":0,"type":"mark","text":"x","extra":"# + String(repeating: "[", count: 100_000)
            + String(repeating: "]", count: 100_000) + "}"
        do {
            _ = try Self.read([h, deep])
            Issue.record("expected an error")
        } catch let error as TraceError {
            #expect(error.line == 2)
            #expect(error.description.contains("nested"))
        }
        var invalid = Data((h + "\n").utf8)
        invalid.append(contentsOf: [0x7B, 0xFF, 0xFE, 0x7D])
        #expect(throws: TraceError(line: 2, .notUTF8)) { try Trace(jsonLines: invalid) }
    }
}

@Suite("Trace files")
struct TraceFileTests {
    @Test("A trace streamed to a file as it is recorded reads back whole, and a cut-off copy says so")
    func streamedFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "volumekit-trace-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: url) }
        let device = SimulatedDevice()
        let writer = try TraceFileWriter(url: url)
        let recorder = TraceRecorder(
            header: .simulator(device, strategy: .passive), clock: device.clock, onLine: writer.write)
        let engine = VolumeButtonsEngine(
            configuration: SimulatedStrategy.passive.configuration!,
            clients: device.clients.recording(to: recorder, feature: "buttons"), onEvent: { _ in })
        try engine.start()
        device.advance(by: 1)
        device.press(.up)
        device.advance(by: 1)
        engine.stop()
        writer.close()
        writer.write("ignored after close")
        let read = try Trace(contentsOf: url)
        #expect(read == recorder.trace)
        #expect(read.header.buttonMode == .passive && read.header.strategy == "outputVolume")
        // The same file cut in the middle of its last line.
        let data = try Data(contentsOf: url)
        #expect(throws: TraceError(line: recorder.records.count + 1, .truncated)) {
            try Trace(jsonLines: data.dropLast(5))
        }
    }

    @Test("The baseline strategy is written as such, and replay refuses it with a sentence")
    func baselineHeader() {
        let header = TraceHeader.simulator(SimulatedDevice(), strategy: .baseline)
        #expect(header.strategy == "baseline" && header.source == .simulator)
        #expect(throws: TraceReplayError.unsupportedStrategy("baseline")) { try TraceReplay.run(Trace(header: header)) }
    }
}
