import Testing
import VolumeKitCore
import VolumeKitTesting

/// `volumekit simulate --json`'s last record says what the app's audio session was left as (issue 13, item 1):
/// its category and whether it is active, as the simulated device has them.
@Suite("The end record reports the app's session")
struct ScenarioEndRecordTests {
    static func end(_ script: String, strategy: SimulatedStrategy = .outputVolume) throws -> (
        ScenarioRecord, SimulatedDevice
    ) {
        let runner = ScenarioRunner(scenario: try Scenario(parsing: script), strategy: strategy)
        let records = runner.run()
        return (try #require(records.last), runner.device)
    }

    @Test("While VolumeKit captures, the session is active in VolumeKit's category")
    func capturing() throws {
        let (end, device) = try Self.end("volume 0.5\nstart\npress up\nwait 1")
        let session = try #require(device.sessionConfiguration)
        #expect(device.isSessionActive)
        #expect(end.kind == .end(volume: device.volume, category: session.category, sessionActive: true))
        #expect(
            end.json.contains(#""category":"\#(session.category.rawValue)", "sessionActive":true, "calibration":{"#))
        // What capture learned of the simulated phone: the anchor's set came back once, alone in flight.
        #expect(end.calibration?.estimates[.roundTrip]?.samples == 1)
        #expect(end.json.hasSuffix(#""calibration":{"roundTrip":{"value":0.015, "samples":1, "spread":0.0}}}"#))
    }

    @Test("After stop, the record shows the session VolumeKit left: its category and that it is inactive")
    func stopped() throws {
        let (end, device) = try Self.end("volume 0.5\nstart\npress up\nwait 1\nstop")
        #expect(!device.isSessionActive)
        #expect(
            end.kind
                == .end(volume: device.volume, category: device.sessionConfiguration?.category, sessionActive: false))
        #expect(end.json.contains(#""sessionActive":false"#))
        #expect(end.text.contains("inactive"))
    }

    @Test("A crashed app has no session: the category is null")
    func crashed() throws {
        let (end, device) = try Self.end("volume 0.5\nstart\ncrash")
        #expect(!device.isAppRunning)
        #expect(end.kind == .end(volume: device.volume, category: nil, sessionActive: false))
        #expect(end.json.hasSuffix(#""category":null, "sessionActive":false}"#))
        #expect(end.text.hasSuffix("app not running"))
    }
}
