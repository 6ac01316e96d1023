import Testing
import VolumeKitTesting

@Suite("Mute records in simulated scenarios")
struct MuteScenarioTests {
    func muteRecords(_ script: String) throws -> [ScenarioRecord] {
        try ScenarioRunner(scenario: Scenario(parsing: script)).run().filter {
            if case .mute = $0.kind { true } else { false }
        }
    }

    @Test("The app reports the first state and then each change, as JSON lines")
    func changes() throws {
        let records = try muteRecords("start\nwait 1\nmute on\nwait 1.5\nmute off\nwait 1.5\nstop\n")
        #expect(records.map(\.kind) == [.mute(.ringing), .mute(.silent), .mute(.ringing)])
        #expect(records.first?.json.hasSuffix("\"type\":\"mute\", \"state\":\"ringing\"}") == true)
    }

    @Test("An iPad follows Control Center's Silent mode; the iPhone switch command changes nothing there")
    func ipad() throws {
        let records = try muteRecords("device ipad\nstart\nmute on\nwait 3\nsilent on\nwait 3\nsilent off\nwait 3\n")
        #expect(records.map(\.kind) == [.mute(.ringing), .mute(.silent), .mute(.ringing)])
    }

    @Test("Nothing is probed or reported after stop")
    func stopped() throws {
        let records = try muteRecords("start\nwait 1\nstop\nmute on\nwait 3\n")
        #expect(records.map(\.kind) == [.mute(.ringing)])
    }
}
