import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Trace format 3 (issue 26, item 3): each interruption's reason and options, the late "began" for the time
/// the app was suspended — delivered or withheld by the client — and the secondary-audio hint are in the trace.
@Suite("Interruption details in traces")
struct InterruptionTraceTests {
    /// A device whose app observes its lifecycle through recording clients (subscription 1); the app's
    /// session is live, so a suspension loses it.
    struct Observed {
        let device: SimulatedDevice
        let recorder: TraceRecorder
        /// The events the app received.
        let seen = Locked([AppLifecycleEvent]())
        let handle: CancellationHandle

        init(_ os: OSVersion, late: DeviceBehaviour.LateInterruptionBegan = .none) throws {
            var behaviour = DeviceBehaviour()
            behaviour.lateInterruptionBegan = late
            device = SimulatedDevice(.init(osVersion: os, behaviour: behaviour))
            try device.configureAppSession(.playbackMixing, activates: true)
            recorder = TraceRecorder(header: .simulator(device), clock: device.clock)
            let seen = self.seen
            handle = device.clients.recording(to: recorder, feature: "buttons").lifecycle.observe { event in
                seen.withLock { $0.append(event) }
            }
        }
    }

    static func events(_ recorder: TraceRecorder) -> [TraceEvent] { recorder.records.map(\.event) }

    static func details(_ recorder: TraceRecorder) -> [InterruptionDetails] {
        events(recorder).compactMap { if case .interruptionDetails(let details, _) = $0 { details } else { nil } }
    }

    /// A trip to the background long enough to be suspended, and back.
    static func backgroundAndBack(_ device: SimulatedDevice) {
        device.background()
        device.advance(by: 2)
        device.foreground()
        device.advance(by: 0.5)
    }

    @Test("Each interruption's record is followed by its details: the reason from iOS 14.5, the options of an end")
    func detailsFollowEachInterruption() throws {
        for (os, reason) in [(OSVersion(17, 4), "default" as String?), (OSVersion(14, 4), nil)] {
            let app = try Observed(os)
            app.device.interruption(began: true)
            app.device.interruption(began: false, shouldResume: false)
            app.device.interruption(began: true)
            app.device.interruption(began: false, shouldResume: true)
            app.handle.cancel()
            let observer = 1
            let began = InterruptionDetails(kind: .began, reason: reason)
            let expected: [TraceEvent] = [
                .lifecycle(.interruptionBegan, observer: observer), .interruptionDetails(began, observer: observer),
                .lifecycle(.interruptionEnded(shouldResume: false), observer: observer),
                .interruptionDetails(InterruptionDetails(kind: .ended), observer: observer),
                .lifecycle(.interruptionBegan, observer: observer), .interruptionDetails(began, observer: observer),
                .lifecycle(.interruptionEnded(shouldResume: true), observer: observer),
                .interruptionDetails(InterruptionDetails(kind: .ended, options: ["shouldResume"]), observer: observer),
            ]
            let recorded = Self.events(app.recorder).filter {
                switch $0 {
                case .lifecycle, .interruptionDetails: true
                default: false
                }
            }
            #expect(recorded == expected, "iOS \(os)")
            // The app's own events are unchanged.
            #expect(app.seen.current.count == 4)
        }
    }

    @Test("iOS 15's late began (reason appWasSuspended) is withheld from the app, and its details still recorded")
    func withheldLateBegan() throws {
        let app = try Observed(OSVersion(15, 0), late: .onResume)
        Self.backgroundAndBack(app.device)
        #expect(!app.seen.current.contains(.interruptionBegan))
        #expect(
            Self.details(app.recorder) == [
                InterruptionDetails(kind: .began, reason: "appWasSuspended", wasSuspended: true, delivered: false)
            ])
        // Recorded for the app's lifecycle subscription, between its return and its activation (onResume).
        let events = Self.events(app.recorder)
        let details = try #require(
            events.firstIndex { if case .interruptionDetails(_, 1) = $0 { true } else { false } })
        let resumed = try #require(events.firstIndex(of: .lifecycle(.willEnterForeground, observer: 1)))
        let active = try #require(events.firstIndex(of: .lifecycle(.didBecomeActive, observer: 1)))
        #expect(resumed < details && details < active)
        // Once the subscription ends, so do the withheld details.
        app.handle.cancel()
        try app.device.configureAppSession(.playbackMixing, activates: true)
        Self.backgroundAndBack(app.device)
        #expect(Self.details(app.recorder).count == 1)
    }

    @Test("Before iOS 14.5 the late began reaches the app, its details saying it stands for the time suspended")
    func deliveredLateBegan() throws {
        let app = try Observed(OSVersion(14, 4), late: .afterActive)
        Self.backgroundAndBack(app.device)
        app.handle.cancel()
        #expect(app.seen.current.suffix(2) == [.didBecomeActive, .interruptionBegan])
        #expect(Self.details(app.recorder) == [InterruptionDetails(kind: .began, wasSuspended: true)])
        let events = Self.events(app.recorder)
        let began = try #require(events.firstIndex(of: .lifecycle(.interruptionBegan, observer: 1)))
        #expect(
            events[began + 1]
                == .interruptionDetails(InterruptionDetails(kind: .began, wasSuspended: true), observer: 1))
    }

    @Test("From iOS 16 no late began comes, and none is recorded")
    func noLateBeganFromSixteen() throws {
        let app = try Observed(OSVersion(16, 4), late: .onResume)
        Self.backgroundAndBack(app.device)
        app.handle.cancel()
        #expect(Self.details(app.recorder).isEmpty)
    }
}

extension InterruptionTraceTests {
    static let header = TraceHeader.simulator(SimulatedDevice())

    static func text(version: Int, _ records: [String]) -> Data {
        let header = Trace(header: Self.header).jsonLines.replacingOccurrences(
            of: #""version":3"#, with: #""version":\#(version)"#)
        return Data((header + records.joined(separator: "\n") + "\n").utf8)
    }

    static let withheld =
        #"{"t":1,"type":"interruptionDetails","kind":"began","reason":"appWasSuspended","options":[],"wasSuspended":true,"delivered":false,"observer":1}"#
    static let hint = #"{"t":1,"type":"read","what":"secondaryAudioShouldBeSilencedHint","value":true}"#

    @Test("A trace of format 1 or 2 cannot hold format 3's records; one without them still reads")
    func olderFormats() throws {
        for version in [1, 2] {
            #expect(
                throws: TraceError(
                    line: 2,
                    .invalidValue(
                        field: "type", value: "\"interruptionDetails\"",
                        expected:
                            "a record type of trace format \(version) (interruptionDetails records came with format 3)")
                )
            ) { try Trace(jsonLines: Self.text(version: version, [Self.withheld])) }
            #expect(
                throws: TraceError(
                    line: 2,
                    .invalidValue(
                        field: "what", value: "\"secondaryAudioShouldBeSilencedHint\"",
                        expected:
                            "a read of trace format \(version) (secondaryAudioShouldBeSilencedHint reads came with format 3)"
                    ))
            ) { try Trace(jsonLines: Self.text(version: version, [Self.hint])) }
            let old = try Trace(
                jsonLines: Self.text(
                    version: version, [#"{"t":1,"type":"lifecycle","event":"interruptionBegan","observer":1}"#]))
            #expect(old.formatVersion == version)
            #expect(old.records.map(\.event) == [.lifecycle(.interruptionBegan, observer: 1)])
        }
        let current = try Trace(jsonLines: Self.text(version: 3, [Self.withheld, Self.hint]))
        #expect(
            current.records.map(\.event) == [
                .interruptionDetails(
                    InterruptionDetails(kind: .began, reason: "appWasSuspended", wasSuspended: true, delivered: false),
                    observer: 1),
                .read(.secondaryAudioShouldBeSilencedHint(true)),
            ])
    }

    @Test("A malformed interruptionDetails record is refused at its line, the field named")
    func malformedDetails() {
        func refused(_ from: String, _ to: String, _ problem: TraceError.Problem) {
            let line = Self.withheld.replacingOccurrences(of: from, with: to)
            #expect(line != Self.withheld)
            #expect(throws: TraceError(line: 2, problem)) { try Trace(jsonLines: Self.text(version: 3, [line])) }
        }
        refused(
            #""options":[]"#, #""options":[1]"#,
            .wrongType(field: "options[0]", expected: "a string", found: "a number (1.0)"))
        refused(
            #""options":[]"#, #""options":"shouldResume""#,
            .wrongType(field: "options", expected: "an array", found: "a string (\"shouldResume\")"))
        refused(
            #""kind":"began""#, #""kind":"paused""#,
            .invalidValue(field: "kind", value: "\"paused\"", expected: "one of \"began\", \"ended\""))
        refused(#""wasSuspended":true,"#, "", .missingField("wasSuspended"))
        refused(
            #""delivered":false"#, #""delivered":0"#,
            .wrongType(field: "delivered", expected: "true or false", found: "a number (0.0)"))
        refused(
            #""reason":"appWasSuspended""#, #""reason":7"#,
            .wrongType(field: "reason", expected: "a string", found: "a number (7.0)"))
    }
}

extension InterruptionTraceTests {
    @Test("The secondary-audio hint is a read in the trace, and a replay answers it as recorded")
    func secondaryAudioHint() throws {
        // The app's own non-mixing session: returning to the foreground while another app's non-mixable audio
        // plays (the hint), VolumeKit leaves it inactive rather than stop that audio.
        let buttons = VolumeButtonsConfiguration(session: AudioSessionConfiguration(category: .playback))
        let device = SimulatedDevice()
        let hint = Locked(false)
        var clients = device.clients
        clients.audioSession.secondaryAudioShouldBeSilencedHint = { hint.current }
        let recorder = TraceRecorder(header: .simulator(device, buttons: buttons, note: "hint"), clock: device.clock)
        let engine = VolumeButtonsEngine(
            configuration: buttons, clients: clients.recording(to: recorder, feature: "buttons"),
            onEvent: { recorder.buttonEvent($0) })
        recorder.appCalled("start", on: "buttons")
        try engine.start()
        device.advance(by: 1.5)
        device.background()
        device.advance(by: 2)
        hint.withLock { $0 = true }
        device.foreground()
        device.advance(by: 1)
        #expect(!device.isSessionActive, "VolumeKit activated its session over another app's audio")
        device.press(.up)
        device.advance(by: 1)
        recorder.appCalled("stop", on: "buttons")
        engine.stop()
        device.advance(by: 1)

        let trace = try Trace(jsonLines: Data(recorder.trace.jsonLines.utf8))
        #expect(trace.records.contains { $0.event == .read(.secondaryAudioShouldBeSilencedHint(true)) })
        let report = try TraceReplay.run(trace)
        let held = SessionReactivationHold.otherAudioPlaying(.playback).description
        #expect(report.recordedDiagnostics?.map(\.value) == [.sessionActivationFailed(held)])
        // The same diagnostic for the same reason: the replay held the session because of the recorded hint.
        #expect(report.diagnosticsNow.map(\.value) == [.sessionActivationFailed(held)])
        #expect(report.diagnosticDifferences == [], "\(report.textLines.joined(separator: "\n"))")
        #expect(report.setDifferences == [])
        #expect(report.eventsMatchRecording != false)
    }
}
