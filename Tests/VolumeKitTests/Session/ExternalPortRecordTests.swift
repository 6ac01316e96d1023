import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Issue 26, item 4: AirPlay, HDMI, CarPlay and line-out no longer share one saved volume. Each external device
/// keeps its own volume on iOS, so each has its own record, keyed by its port UID as Bluetooth headsets are.
@Suite("Each external device keeps its own record (issue 26 item 4)")
struct ExternalPortRecordTests {
    /// A device whose AirPlay speakers have a volume slider (as AirPlay 2 speakers do; the simulator's default
    /// is the no-slider limit of openradar 42881405, where VolumeKit holds nothing there).
    static func device(volume: Float, others: Float) -> SimulatedDevice {
        var behaviour = DeviceBehaviour.default
        behaviour.externalVolume = .slider
        return SimulatedDevice(.init(volume: volume, headphonesVolume: others, behaviour: behaviour))
    }

    /// A device whose AirPlay speaker "Bedroom" the user keeps at 0.125 — where capture holds a speaker whose
    /// user's volume is 0, so a record of another speaker would look like VolumeKit's there — and whose
    /// "Kitchen" speaker is at 0; the output is on the kitchen's.
    static func twoSpeakers() -> SimulatedDevice {
        let device = Self.device(volume: 0.5, others: 0)
        device.connect(.external, device: "Bedroom")
        device.controlCenterSlider(0.125)
        device.advance(by: 1)
        device.connect(.external, device: "Kitchen")
        device.advance(by: 1)
        return device
    }

    @Test("A volume saved on AirPlay speaker A is not given to speaker B after a crash, and is given back on A")
    func crashThenOtherSpeaker() throws {
        let device = Self.twoSpeakers()
        _ = try startCapture(on: device, settle: 0.5)
        #expect(device.volume == 0.125, "the kitchen's speaker held at the anchor")
        device.crash()
        device.connect(.external, device: "Bedroom")
        device.launch()
        #expect(recover(device, settle: 1).outcome == .nothingPending, "the record is the kitchen's")
        device.advance(by: 1)
        #expect(device.volume == 0.125, "the bedroom's speaker keeps the user's own 0.125")
        // Back on the kitchen's speaker (the app alive): its own volume comes back at once.
        device.connect(.external, device: "Kitchen")
        device.advance(by: 1)
        #expect(device.volume == 0)
        #expect(device.volume(on: .external, device: "Bedroom") == 0.125)
        #expect(PendingRestores.load(from: device.clients.keyValueStore).isEmpty)
    }

    @Test("Capture held on speaker A while the output moves to speaker B: B is a route change, and keeps its own")
    func liveMoveToOtherSpeaker() throws {
        let device = Self.twoSpeakers()
        let engine = try startCapture(on: device, settle: 0.5)
        device.connect(.external, device: "Bedroom")
        device.advance(by: 1)
        let records = PendingRestores.load(from: device.clients.keyValueStore)
        #expect(records[AudioOutput(route: .external, portUID: "Kitchen")]?.userVolume == 0, "A's record waits")
        engine.stop()
        device.advance(by: 1)
        #expect(device.volume == 0.125, "B is at its user's volume, not A's")
        device.connect(.external, device: "Kitchen")
        device.advance(by: 1)
        #expect(device.volume == 0, "A gets its own volume back")
    }

    @Test("`route airplay NAME` names the speaker: a script's two speakers each end at their own user's volume")
    func scriptNamesSpeakers() throws {
        let script = """
            volume 0
            route airplay Kitchen
            slider 0.25
            route airplay Living Room
            start
            press up
            route airplay Kitchen
            press down
            wait 1
            stop
            wait 1
            route airplay Living Room
            wait 1
            """
        let scenario = try Scenario(parsing: script)
        #expect(scenario.lines[1].command == .routeDevice(.external, name: "Kitchen"))
        #expect(scenario.lines[3].command == .routeDevice(.external, name: "Living Room"))
        var behaviour = DeviceBehaviour.default
        behaviour.externalVolume = .slider
        let runner = ScenarioRunner(scenario: scenario, behaviour: behaviour)
        runner.run()
        let device = try #require(runner.device)
        #expect(device.externalDevice == "Living Room")
        // Captured presses leave each speaker's volume the user's; the one left held gets its own back when it
        // is current again (the recovery watch).
        #expect(device.volume(on: .external, device: "Living Room") == 0)
        #expect(device.volume(on: .external, device: "Kitchen") == 0.25, "not the living room's 0")
        #expect(runner.verdict?.violations.isEmpty == true, "\(runner.verdict?.violations.map(\.summary) ?? [])")
    }
}

/// Saved records move to the `v2` key; the one `external` record of version 1 has no port.
@Suite("Saved records of version 1 migrate (issue 26 item 4)")
struct PendingRestoreMigrationTests {
    static let version1 = #"""
        {"external":{"userVolume":0.25,"heldVolume":0.5,"savedAtUptime":0},\#
        "speaker":{"userVolume":0.75,"heldVolume":0.5,"savedAtUptime":0}}
        """#

    @Test("A version 1 external record is read as one whose port is unknown, and the first speaker claims it")
    func externalRecordMigrates() throws {
        let store = KeyValueStoreClient.inMemory()
        store.setData(Data(Self.version1.utf8), PendingRestores.version1Key)
        var records = PendingRestores.load(from: store)
        let migrated = try #require(records.byRoute[.external])
        #expect(migrated.portUID == nil)
        #expect(records.byRoute[.speaker]?.userVolume == 0.75)
        let kitchen = AudioOutput(route: .external, portUID: "Kitchen")
        let bedroom = AudioOutput(route: .external, portUID: "Bedroom")
        #expect(records[kitchen] == migrated, "a record whose port is unknown applies to a speaker read")
        var claimed = migrated
        claimed.userVolume = 0.3
        records[kitchen] = claimed
        #expect(records[bedroom] == nil, "once claimed, it is the kitchen's alone")
        records.save(to: store)
        #expect(store.data(PendingRestores.version1Key) == nil, "the write removes version 1")
        let stored = try #require(store.data(PendingRestores.key))
        let text = String(decoding: stored, as: UTF8.self)
        #expect(text.contains(#""portUID":"Kitchen""#), "\(text)")
        let loaded = PendingRestores.load(from: store)
        #expect(loaded[kitchen]?.userVolume == 0.3)
        #expect(loaded[bedroom] == nil)
        #expect(loaded.byRoute[.speaker]?.userVolume == 0.75)
    }

    @Test("After an update, launch recovery gives a version 1 record back on the speaker it finds, and clears it")
    func recoveryAfterUpdate() {
        let device = ExternalPortRecordTests.device(volume: 0.5, others: 0.5)
        device.connect(.external, device: "Kitchen")
        device.keyValueStore.setData(
            Data(#"{"external":{"userVolume":0.25,"heldVolume":0.5,"savedAtUptime":0}}"#.utf8),
            PendingRestores.version1Key)
        #expect(recover(device, settle: 1).outcome == .handled)
        #expect(device.volume == 0.25)
        #expect(device.keyValueStore.data(PendingRestores.version1Key) == nil)
        #expect(PendingRestores.load(from: device.clients.keyValueStore).isEmpty)
    }

    @Test("Once version 2 is written, version 1 is not read again (its records would come back)")
    func version2Wins() {
        let store = KeyValueStoreClient.inMemory()
        store.setData(Data(Self.version1.utf8), PendingRestores.version1Key)
        var records = PendingRestores()
        records[AudioOutput(route: .headphones)] = PendingRestore(userVolume: 0.1, heldVolume: 0.2, savedAtUptime: 1)
        records.save(to: store)
        let loaded = PendingRestores.load(from: store)
        #expect(loaded.byRoute.keys.sorted { $0.rawValue < $1.rawValue } == [.headphones])
    }
}

/// A port UID is input: the store and a trace keep it bounded and cleaned (`EchoedText`), never as it came.
@Suite("Hostile external port names (issue 26 item 4)")
struct ExternalPortNameTests {
    static let hostile = "\u{1B}]0;pwned\u{07}\u{1B}[2J" + String(repeating: "Speaker", count: 2_000)

    @Test("A hostile port UID is saved cut and cleaned, and still finds its own record")
    func hostileUIDIsBounded() throws {
        let device = ExternalPortRecordTests.device(volume: 0.5, others: 0)
        device.connect(.external, device: Self.hostile)
        let output = device.clients.audioSession.currentOutput()
        let key = try #require(output.portUID)
        #expect(key.unicodeScalars.count == AudioOutput.portUIDLimit + 1, "cut, with its …")
        #expect(AudioOutput.portKey(key) == key, "a key is its own key")
        #expect(!key.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
        #expect(key.hasPrefix(#"\u{1B}]0;pwned\u{7}"#))
        _ = try startCapture(on: device, settle: 0.5)
        device.crash()
        let stored = try #require(device.keyValueStore.data(PendingRestores.key))
        #expect(stored.count < 1_000, "\(stored.count) bytes stored")
        #expect(!stored.contains(0x1B))
        device.launch()
        #expect(recover(device, settle: 1).outcome == .handled)
        #expect(device.volume == 0)
    }

    @Test("Stored records of a port no output can have (too long, control characters) are left out on load")
    func tamperedStoreIsCleaned() throws {
        let record = #"{"userVolume":0.25,"heldVolume":0.5,"savedAtUptime":0}"#
        let long = String(repeating: "A", count: 10_000)
        let json = #"{"external:\#(long)":\#(record),"external:\u001B[2J":\#(record),"external:ok":\#(record)}"#
        let store = KeyValueStoreClient.inMemory()
        store.setData(Data(json.utf8), PendingRestores.key)
        let loaded = PendingRestores.load(from: store)
        #expect(Array(loaded.otherExternalPorts.keys) == ["ok"])
    }

    @Test("A script's device name is cut and cleaned: neither the command nor its line carries a control character")
    func scriptNameIsCleaned() throws {
        let scenario = try Scenario(parsing: "route airplay " + Self.hostile + "\nroute external TV")
        guard case .routeDevice(.external, let name) = scenario.lines[0].command else {
            Issue.record("\(scenario.lines[0].command)")
            return
        }
        #expect(name.hasPrefix(#"\u{1B}]0;pwned\u{7}\u{1B}[2J"#))
        #expect(name == AudioOutput.portKey(Self.hostile))
        #expect(scenario.lines[0].text == "route airplay " + name)
        #expect(scenario.lines[1].command == .routeDevice(.external, name: "TV"))
        #expect(scenario.lines[1].command.traceGesture == .other("route external, another device"))
    }

    @Test("Only routes with devices of their own take a name; the error says which do")
    func nameOnSpeakerIsRefused() {
        #expect(
            throws: ScenarioError(
                line: 1, message: "the speaker route has one device: only bluetooth, airplay and external take a NAME")
        ) { try Scenario(parsing: "route speaker Kitchen") }
    }

    @Test("An aliased trace names external ports by alias only, in route details and in the stored records")
    func traceAliasesExternalPorts() throws {
        let device = ExternalPortRecordTests.twoSpeakers()
        let recorder = TraceRecorder(
            header: .simulator(device, note: "two speakers"), clock: device.clock, keepsRecords: true,
            portNaming: .aliases)
        let engine = VolumeButtonsEngine(
            configuration: .fixedHeadroom, clients: device.clients.recording(to: recorder), onEvent: { _ in })
        try engine.start()
        device.advance(by: 1)
        device.connect(.external, device: "Bedroom")
        device.advance(by: 1)
        engine.stop()
        device.advance(by: 1)
        let stored = recorder.trace.records.compactMap { record -> String? in
            switch record.event {
            case .storeWrite(_, let data?), .read(.stored(_, let data?)): String(decoding: data, as: UTF8.self)
            default: nil
            }
        }
        #expect(stored.contains { $0.contains(#""external:port-"#) }, "the kitchen's record waits under an alias")
        let text = recorder.trace.jsonLines + stored.joined(separator: "\n")
        #expect(!text.contains("Kitchen") && !text.contains("Bedroom"))
    }
}

/// How many other devices' records a route keeps.
@Suite("Records of other devices are bounded (issue 26 item 4)")
struct OtherPortsBoundTests {
    @Test("Beyond the limit, the record saved longest ago goes; the newest stay")
    func oldestGoes() {
        var records = PendingRestores()
        let count = PendingRestores.otherPortsLimit + 5
        for index in 0..<count {
            records[AudioOutput(route: .external, portUID: "speaker-\(index)")] = PendingRestore(
                userVolume: 0.25, heldVolume: 0.5, savedAtUptime: Double(index), bootTime: 1_800_000_000)
        }
        #expect(records.otherExternalPorts.count == PendingRestores.otherPortsLimit)
        #expect(records[AudioOutput(route: .external, portUID: "speaker-\(count - 1)")] != nil, "the newest")
        #expect(records[AudioOutput(route: .external, portUID: "speaker-\(count - 2)")] != nil)
        #expect(records[AudioOutput(route: .external, portUID: "speaker-0")] == nil, "the oldest went")
        #expect(records[AudioOutput(route: .external, portUID: "speaker-5")] != nil)
    }
}
