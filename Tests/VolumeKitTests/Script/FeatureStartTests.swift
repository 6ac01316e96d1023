import Testing
import VolumeKitCore
import VolumeKitTesting

/// `start buttons|hud|mute`: one feature alone, so a HUD-only app is tested as users write it (issue 26).
@Suite("Starting one feature in a script")
struct FeatureStartTests {
    private func run(_ script: String) throws -> (runner: ScenarioRunner, records: [ScenarioRecord]) {
        let runner = ScenarioRunner(scenario: try Scenario(parsing: script))
        let records = runner.run()
        return (runner, records)
    }

    @Test("'start hud', presses, no capture, no audio: VolumeKit's HUD shows each press and the system HUD never")
    func hudAlone() throws {
        let (runner, records) = try run(
            """
            volume 0.5
            start hud
            press up x3 every 0.3
            press down
            stop
            """)
        let shown = records.compactMap { record -> Float? in
            if case .hud(let level, true, _) = record.kind { return level }
            return nil
        }
        #expect(shown == [0.5625, 0.625, 0.6875, 0.625])
        #expect(!records.contains { $0.kind == .systemHUD })
        #expect(!records.contains { if case .button = $0.kind { true } else { false } })
        #expect(runner.verdict?.ok == true)
        // The app played no audio: it is left as it was, its session given back.
        #expect(runner.device.sessionConfiguration == .systemDefault)
        #expect(!runner.device.isSessionActive)
    }

    @Test("'start buttons' captures without the HUD; 'start mute' runs the monitor alone")
    func othersAlone() throws {
        let buttons = try run("volume 0.5\nstart buttons\npress up x2\nstop")
        #expect(buttons.records.filter { if case .button(_, .pressed) = $0.kind { true } else { false } }.count == 2)
        #expect(!buttons.records.contains { if case .hud = $0.kind { true } else { false } })
        #expect(buttons.runner.device.volume == 0.5)
        let mute = try run("start mute\nmute on\nwait 3\npress up\nstop")
        #expect(mute.records.contains { if case .mute(.silent) = $0.kind { true } else { false } })
        #expect(!mute.records.contains { if case .button = $0.kind { true } else { false } })
        // Nothing hides the system HUD: the press shows it.
        #expect(mute.records.contains { $0.kind == .systemHUD })
    }

    @Test("plain 'start' still starts all three; a feature iOS has no name for is refused with the choices")
    func parsing() throws {
        let scenario = try Scenario(parsing: "start\nstart hud\nstart buttons\nstart mute")
        #expect(
            scenario.lines.map(\.command) == [
                .start, .startFeature(.hud), .startFeature(.buttons), .startFeature(.mute),
            ])
        #expect {
            try Scenario(parsing: "start camera")
        } throws: { error in
            String(describing: error).contains("'camera' is not a feature (buttons, hud or mute)")
        }
        #expect {
            try Scenario(parsing: "start hud now")
        } throws: { error in
            String(describing: error).contains("usage: start [buttons|hud|mute]")
        }
    }
}
