import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Every trace in `Fixtures/Traces/` — contributed from iPhones by the field check (`docs/field-check.md`),
/// or made by the simulator and labelled so — replays on today's engines exactly as it was recorded.
/// A contributed trace needs no code: adding the file adds its test case.
@Suite("Contributed traces")
struct ContributedTraceTests {
    /// The folder the package copies into the test bundle (`resources: [.copy("Fixtures")]`).
    static var folder: URL? { Bundle.module.url(forResource: "Fixtures/Traces", withExtension: nil) }

    /// Every file in the folder, by name.
    static let names: [String] = {
        guard let folder, let files = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else {
            return []
        }
        return files.filter { !$0.hasPrefix(".") }.sorted()
    }()

    static func trace(_ name: String) throws -> Trace {
        try Trace(contentsOf: try #require(folder).appendingPathComponent(name))
    }

    @Test("The folder holds traces only, a simulated field check among them")
    func folderContents() {
        #expect(!Self.names.isEmpty, "no fixtures found in the test bundle's Fixtures/Traces")
        for name in Self.names { #expect(name.hasSuffix(".jsonl"), "\(name) is not a .jsonl trace") }
        #expect(Self.names.contains("simulator-ios17.4-2026-12-01.jsonl"))
    }

    /// Whether the replay must reproduce the trace's sets exactly: a simulator fixture is regenerated when
    /// VolumeKit deliberately changes its sets (below), and a device trace recorded by this very version
    /// must match too. A device trace from an earlier version cannot be re-recorded, so its sets may differ
    /// (the replay prints where); its button events must still be the ones the person's phone produced.
    static func setsMustMatch(_ header: TraceHeader) -> Bool {
        header.source == .simulator || header.volumeKitVersion == VolumeKitVersion.current
    }

    @Test(
        "Each trace parses and replays with the recorded button events (and, where it must, the recorded sets)",
        arguments: names)
    func replaysAsRecorded(name: String) throws {
        let trace = try Self.trace(name)
        let report = try TraceReplay.run(trace)
        if Self.setsMustMatch(trace.header) {
            #expect(report.setDifferences.isEmpty, "\(name): \(report.textLines.joined(separator: "\n"))")
            #expect(report.sets.count == report.recordedSets.count)
        }
        #expect(report.eventsMatchRecording != false, "\(name): the button events differ from the recorded ones")
        #expect(report.undeliveredInputs == 0, "\(name): recorded inputs no subscription asked for")
        #expect(!report.diagnostics.contains { $0.hasPrefix("start failed") }, "\(name): \(report.diagnostics)")
    }

    @Test(
        "Only a device-recorded header may say device; everything the simulator made says simulator", arguments: names)
    func labelledBySource(name: String) throws {
        let trace = try Self.trace(name)
        #expect(Self.provenanceProblems(name: name, header: trace.header) == [])
    }

    @Test("The provenance check catches a simulator trace relabelled as a device, and a device trace named wrong")
    func provenanceCheckHasTeeth() throws {
        var header = try Self.trace("simulator-ios17.4-2026-12-01.jsonl").header
        header.source = .device
        #expect(!Self.provenanceProblems(name: "simulator-ios17.4-2026-12-01.jsonl", header: header).isEmpty)
        // Even with a plausible model, the file still bears the simulator's marks (version, clock, name).
        header.deviceModel = "iPhone15,2"
        #expect(!Self.provenanceProblems(name: "iPhone15-2-ios17.4-2026-12-01.jsonl", header: header).isEmpty)
        let device = TraceHeader(
            source: .device, deviceModel: "iPhone15,2", deviceKind: .iphone, osVersion: OSVersion(17, 4),
            volumeKitVersion: "0.2.0", clockOrigin: 48213.52, note: "field check 1")
        #expect(Self.provenanceProblems(name: "iPhone15-2-ios17.4-2026-12-01.jsonl", header: device) == [])
        #expect(Self.provenanceProblems(name: "iPhone15-2-ios17.4-2026-12-01-2.jsonl", header: device) == [])
        #expect(!Self.provenanceProblems(name: "iPhone14-2-ios17.4-2026-12-01.jsonl", header: device).isEmpty)
        #expect(!Self.provenanceProblems(name: "iPhone15-2-ios18.0-2026-12-01.jsonl", header: device).isEmpty)
        #expect(!Self.provenanceProblems(name: "my-trace.jsonl", header: device).isEmpty)
    }

    @Test(
        "A device trace from an earlier VolumeKit keeps its test when VolumeKit changes its sets; one from now does not"
    )
    func setPolicyByVersion() {
        var device = TraceHeader(
            source: .device, deviceModel: "iPhone15,2", deviceKind: .iphone, osVersion: OSVersion(17, 4),
            volumeKitVersion: "0.1.0", clockOrigin: 48213.52, note: nil)
        #expect(!Self.setsMustMatch(device))
        device.volumeKitVersion = VolumeKitVersion.current
        #expect(Self.setsMustMatch(device))
        device.source = .simulator
        device.volumeKitVersion = "0.1.0"
        #expect(Self.setsMustMatch(device))
    }

    @Test(
        "The simulated field check covers the protocol: a mark per step, an answer per question, holds and the switch")
    func simulatedFieldCheck() throws {
        let trace = try Self.trace("simulator-ios17.4-2026-12-01.jsonl")
        #expect(trace.header.note?.contains("SimulatedFieldCheck") == true)
        let marks = trace.records.compactMap {
            if case .mark(let text, let answer) = $0.event { (text, answer) } else { nil }
        }
        let steps = marks.filter { $0.0.hasPrefix("step ") }.map { $0.0 }
        for step in [
            "tap-up", "hold-up", "at-zero", "at-one", "headphones-in", "siri", "call", "silent-switch", "background",
        ] {
            #expect(steps.contains { $0.hasPrefix("step \(step):") }, "no mark for step \(step)")
        }
        #expect(marks.filter { $0.1 != nil }.count >= steps.count)
        let report = try TraceReplay.run(trace)
        #expect(report.muteChanges.map(\.value).contains(.silent))
        let fit = TraceFit.fit(trace)
        for rule in ["firstRepeatDelay", "repeatInterval"] {
            #expect(fit[rule]?.value != nil, "\(rule) not observed")
        }
        // The volume view's readiness shows only where a set made through it was lost first: every set here came
        // back (the host's `viewReady` record is its own timer, not the view's readiness).
        #expect(fit["volumeViewReadyDelay"]?.value == nil)
    }

    /// The note of `standard-session.simulator.jsonl`.
    static let standardSessionNote =
        "TraceRecording.standardSession on SimulatedDevice(kvoLatency: 0.012, sliderLatency: 0.04, "
        + "volumeViewReadyDelay: 0.3), iOS 17.4 iPhone, 2026-12-01"

    /// A simulator fixture records the engine of its day: when VolumeKit deliberately changes its sets, the
    /// replay above flags the fixture, and this regenerates it (`VOLUMEKIT_WRITE_TRACE_FIXTURES=1 swift test
    /// --filter ContributedTraceTests`). The field check's fixture is regenerated from its own package
    /// (`docs/field-check.md`).
    @Test("The standard-session fixture is what the simulator records today")
    func standardSessionIsCurrent() throws {
        let configuration = SimulatedDevice.Configuration(
            kvoLatency: 0.012, sliderLatency: 0.04, volumeViewReadyDelay: 0.3)
        var trace = try TraceRecording.standardSession(configuration).recorder.trace
        trace.header.note = Self.standardSessionNote
        let name = "standard-session.simulator.jsonl"
        if ProcessInfo.processInfo.environment["VOLUMEKIT_WRITE_TRACE_FIXTURES"] == "1" {
            let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fixtures/Traces/\(name)")
            try Data(trace.jsonLines.utf8).write(to: source)
            return
        }
        #expect(
            try Self.trace(name) == trace,
            "\(name) records another engine: regenerate it (VOLUMEKIT_WRITE_TRACE_FIXTURES=1)")
    }

    // MARK: - Provenance

    /// Why `header` may not be what file `name` claims: a simulator trace must say `simulator`; a device
    /// trace needs a hardware model, none of the simulator's marks, and the name `device-os-date.jsonl`
    /// (`docs/field-check.md`).
    static func provenanceProblems(name: String, header: TraceHeader) -> [String] {
        var problems: [String] = []
        // What the simulator leaves in every trace it makes (TraceHeader.simulator, the virtual clock).
        var synthetic: [String] = []
        if header.deviceModel == "simulator" { synthetic.append("model \"simulator\"") }
        if header.volumeKitVersion == TraceHeader.simulatorVolumeKitVersion { synthetic.append("VolumeKit \"source\"") }
        if header.clockOrigin == 0 { synthetic.append("a clock starting at 0") }
        if name.contains("simulator") { synthetic.append("a name saying simulator") }
        switch header.source {
        case .simulator:
            break
        case .device:
            if !synthetic.isEmpty {
                problems.append("says device but bears the simulator's marks: \(synthetic.joined(separator: ", "))")
            }
            let model = header.deviceModel
            let isHardware = model.range(of: #"^(iPhone|iPad)[0-9]+,[0-9]+$"#, options: .regularExpression) != nil
            if !isHardware { problems.append("says device but the model \"\(model)\" is not a hardware identifier") }
            if isHardware && model.hasPrefix("iPad") != (header.deviceKind == .ipad) {
                problems.append("model \(model) and kind \(header.deviceKind.rawValue) disagree")
            }
            let device = model.replacingOccurrences(of: ",", with: "-")
            let os = "\(header.osVersion)".replacingOccurrences(of: ".", with: "\\.")
            let pattern = "^\(device)-ios\(os)-[0-9]{4}-[0-9]{2}-[0-9]{2}(-[0-9]+)?\\.jsonl$"
            if name.range(of: pattern, options: .regularExpression) == nil {
                problems.append(
                    "a device trace is named \(device)-ios\(header.osVersion)-YYYY-MM-DD.jsonl, not \(name)")
            }
        }
        return problems
    }
}
