import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Traces carry no port UID (review item 2): a Bluetooth headset's UID is its address. The recorder writes
/// each UID as a stable alias, `port-1`, `port-2`…, in route details and inside the stored pending-restore
/// JSON, and a replay still matches the recording.
@Suite("Port UIDs in traces")
struct PortPrivacyTests {
    static let headsets = ["AA:BB:CC:DD:EE:01-tacl", "AA:BB:CC:DD:EE:02-tacl"]

    /// Every port name a trace carries: the route details' UIDs, and in stored pending restores the
    /// `bluetooth:<UID>` keys and the `portUID` values.
    static func portNames(_ trace: Trace) throws -> [String] {
        var names: [String] = []
        for record in trace.records {
            let data: Data?
            switch record.event {
            case .routeDetails(_, let ports):
                names += ports.map(\.uid)
                continue
            // The pending restores name ports; the calibration (its own key) names none.
            case .storeWrite(PendingRestores.key, let written): data = written
            case .read(.stored(PendingRestores.key, let read)): data = read
            default: continue
            }
            guard let data else { continue }
            let stored = try JSONDecoder().decode([String: PendingRestore].self, from: data)
            for (key, value) in stored {
                if key.hasPrefix("bluetooth:") { names.append(String(key.dropFirst("bluetooth:".count))) }
                if let port = value.portUID { names.append(port) }
            }
        }
        return names
    }

    /// The trace's text, with every stored value's bytes decoded (base64 in the file).
    static func fullText(_ trace: Trace) -> String {
        let stored = trace.records.compactMap { record -> Data? in
            switch record.event {
            case .storeWrite(_, let data), .read(.stored(_, let data)): data
            default: nil
            }
        }
        return trace.jsonLines + stored.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n")
    }

    static func isAlias(_ name: String) -> Bool {
        name.hasPrefix("port-") && !name.dropFirst(5).isEmpty && name.dropFirst(5).allSatisfy(\.isNumber)
    }

    /// Capture held on one headset while the output moves to another and back, then to the speaker.
    static func twoHeadsets(portNaming: TracePortNaming) throws -> (Trace, [VolumeButtonEvent]) {
        let device = SimulatedDevice(.init(volume: 0.5, headphonesVolume: 0.25))
        device.connect(.bluetooth, headset: headsets[0])
        let recorder = TraceRecorder(
            header: .simulator(device, note: "two headsets"), clock: device.clock, keepsRecords: true,
            portNaming: portNaming)
        let events = Locked([VolumeButtonEvent]())
        let engine = VolumeButtonsEngine(
            clients: device.clients.recording(to: recorder, feature: "buttons"),
            onEvent: { event in
                events.withLock { $0.append(event) }
                recorder.buttonEvent(event)
            })
        recorder.appCalled("start", on: "buttons")
        try engine.start()
        device.advance(by: 1.5)
        for headset in [headsets[1], headsets[0], headsets[1]] {
            recorder.gesture(.press(.up))
            device.press(.up)
            device.advance(by: 1)
            recorder.gesture(.other("another headset"))
            device.connect(.bluetooth, headset: headset)
            device.advance(by: 1)
        }
        device.connect(.speaker)
        device.advance(by: 1)
        recorder.gesture(.press(.down))
        device.press(.down)
        device.advance(by: 1)
        recorder.appCalled("stop", on: "buttons")
        engine.stop()
        device.advance(by: 1)
        return (try Trace(jsonLines: Data(recorder.trace.jsonLines.utf8)), events.current)
    }

    @Test("Two Bluetooth headsets: the trace names ports port-N only, everywhere, and still replays")
    func twoHeadsetsAliased() throws {
        let (trace, events) = try Self.twoHeadsets(portNaming: .aliases)
        let names = try Self.portNames(trace)
        #expect(!names.isEmpty)
        #expect(names.allSatisfy(Self.isAlias), "\(Set(names).sorted())")
        // Both headsets have a record of their own in the store, under different aliases.
        #expect(Set(names).count >= 3, "the speaker and two headsets: \(Set(names).sorted())")
        let text = Self.fullText(trace)
        for uid in Self.headsets + [SimulatedDevice.defaultBluetoothPort, "Wired Headphones"] {
            #expect(!text.contains(uid), "\(uid) in the trace")
        }
        #expect(!text.contains("\"uid\":\"Speaker\""))
        let report = try TraceReplay.run(trace)
        #expect(report.setDifferences.isEmpty)
        #expect(report.eventsMatchRecording == true)
        #expect(!events.isEmpty)
    }

    @Test("The same UID always gets the same alias, in route details and in stored data alike")
    func aliasesAreConsistent() throws {
        let (aliased, _) = try Self.twoHeadsets(portNaming: .aliases)
        let (raw, _) = try Self.twoHeadsets(portNaming: .uids)
        let rawNames = try Self.portNames(raw)
        let aliasedNames = try Self.portNames(aliased)
        // The unaliased trace does carry the headsets' UIDs: what the aliases hide.
        #expect(Set(Self.headsets).isSubset(of: Set(rawNames)))
        #expect(rawNames.count == aliasedNames.count)
        var mapping: [String: String] = [:]
        for (uid, alias) in zip(rawNames, aliasedNames) {
            #expect(mapping[uid, default: alias] == alias, "\(uid) has two aliases")
            mapping[uid] = alias
        }
        #expect(Set(mapping.values).count == mapping.count, "two UIDs share an alias")
        // Nothing else differs: the same records, at the same times.
        #expect(raw.records.count == aliased.records.count)
        #expect(zip(raw.records, aliased.records).allSatisfy { $0.time == $1.time })
    }
}
