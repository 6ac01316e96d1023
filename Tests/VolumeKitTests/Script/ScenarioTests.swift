import Testing
import VolumeKitCore
import VolumeKitTesting

@Suite("Scenario scripts")
struct ScenarioTests {
    @Test("A script with every command parses into the commands it names")
    func parsesEveryCommand() throws {
        let scenario = try Scenario(
            parsing: """
                # setup first
                ios 15.4
                device ipad
                volume 0.25   # before launch

                start
                press up
                press down x16 every 0.05
                hold up 1.5
                wait 2
                slider 0.3
                background
                foreground
                interrupt begin
                interrupt end
                call begin
                call end
                route headphones
                crash
                launch
                mute on
                hold down 2 &
                drag 0.7
                siri
                siri 2.5
                alarm 3
                alarm 3 noend
                takeover camera
                takeover player
                takeover webview
                camera start
                camera stop
                route airplay
                route receiver
                silent on
                headset up
                headset down x3 every 0.2
                bluetooth connect 0.4
                bluetooth sync 0.6
                safety lower
                stop
                """)
        #expect(
            scenario.lines.map(\.command) == [
                .ios(OSVersion(15, 4)), .device(.ipad), .volume(0.25), .start,
                .press(.up, count: 1, every: 0.15), .press(.down, count: 16, every: 0.05), .hold(.up, seconds: 1.5),
                .wait(2), .slider(0.3), .background, .foreground, .interrupt(began: true), .interrupt(began: false),
                .call(began: true), .call(began: false), .route(.headphones), .crash, .launch, .mute(on: true),
                .hold(.down, seconds: 2, waits: false), .drag(0.7), .siri(seconds: 1), .siri(seconds: 2.5),
                .alarm(seconds: 3, sendsEnd: true), .alarm(seconds: 3, sendsEnd: false), .takeover(.camera),
                .takeover(.player),
                .takeover(.webView), .camera(running: true), .camera(running: false), .route(.external),
                .route(.receiver),
                .silent(on: true), .headset(.up, count: 1, every: 0.15), .headset(.down, count: 3, every: 0.2),
                .bluetoothConnect(syncingTo: 0.4), .bluetoothSync(0.6), .safetyLowering, .stop,
            ])
        #expect(scenario.lines.first?.number == 2)
    }

    @Test(
        "Bad lines fail with their line number",
        arguments: [
            ("start\njump", 2, "unknown command 'jump'"),
            ("press sideways", 1, "'sideways' is not a button (up or down)"),
            ("volume 1.5", 1, "'1.5' is not a volume between 0 and 1"),
            ("wait -1", 1, "'-1' is not a time in seconds (a number from 0 to 86,400)"),
            ("start\nios 15", 2, "'ios' must come before the other commands"),
            ("press up x0", 1, "press count must be 1…10000"),
            ("press up every 0", 1, "'every' must be more than 0 seconds"),
            ("interrupt maybe", 1, "'maybe' must be begin or end"),
            ("route moon", 1, "'moon' is not a route (speaker, headphones, bluetooth, airplay, receiver, external)"),
            ("hold up", 1, "usage: hold up|down S [&]"),
            ("hold up 1 later", 1, "usage: hold up|down S [&]"),
            ("start\nalarm 5 never", 2, "usage: alarm S [noend]"),
            ("takeover radio", 1, "'radio' is not a component (camera, player or webview)"),
            ("camera on", 1, "'on' must be start or stop"),
            ("silent maybe", 1, "'maybe' must be on or off"),
            ("drag 2", 1, "'2' is not a volume between 0 and 1"),
            ("ios seventeen", 1, "'seventeen' is not an iOS version"),
            ("headset left", 1, "'left' is not a button (up or down)"),
            ("headset up twice", 1, "usage: headset up|down [xN] [every S]"),
            ("bluetooth sync", 1, "usage: bluetooth connect|sync V"),
            ("bluetooth pair 0.5", 1, "'pair' must be connect or sync"),
            ("bluetooth sync loud", 1, "'loud' is not a volume between 0 and 1"),
            ("safety first", 1, "'first' is not a safety command (lower)"),
            ("crash now", 1, "usage: crash"),
            ("start\nstop buttons", 2, "usage: stop"),
            ("background 1", 1, "usage: background"),
            ("mute", 1, "usage: mute on|off"),
            ("mute loud", 1, "'loud' must be on or off"),
            ("call begin now", 1, "usage: call begin|end"),
            ("camera", 1, "usage: camera start|stop"),
            ("slider", 1, "usage: slider V"),
            ("headphones 0.5 0.6", 1, "usage: headphones V"),
        ])
    func badLines(script: String, line: Int, message: String) {
        #expect(throws: ScenarioError(line: line, message: message)) { try Scenario(parsing: script) }
    }

    @Test("Running a script moves the device volume and reports the system HUD")
    func runnerMovesTheDevice() throws {
        // No capture running: presses move the volume and the system HUD shows each time.
        let records = ScenarioRunner(scenario: try Scenario(parsing: "volume 0.5\npress up x2\nslider 0.1\npress down"))
            .run()
        #expect(records.filter { $0.kind == .systemHUD }.count == 3)
        #expect(
            records.last
                == ScenarioRecord(time: nil, kind: .end(volume: 0.0375, category: .soloAmbient, sessionActive: false)))
    }

    @Test("A crash keeps the volume the app left behind")
    func crashInScript() throws {
        // The baseline app resets 0 to 0.00001 and never restores: after a crash the device keeps it.
        let runner = ScenarioRunner(
            scenario: try Scenario(parsing: "volume 0.0625\nstart\nwait 0.5\npress down\nwait 0.2\ncrash\nlaunch"),
            strategy: .baseline)
        let records = runner.run()
        #expect(
            records.last
                == ScenarioRecord(time: nil, kind: .end(volume: 0.00001, category: .soloAmbient, sessionActive: false)))
        #expect(runner.device.isAppRunning)
    }

    @Test("JSON lines have the documented shape")
    func jsonShape() {
        #expect(
            ScenarioRecord(time: 0.15, kind: .button(.up, .pressed)).json
                == #"{"t":0.15, "type":"button", "button":"up", "phase":"pressed"}"#)
        #expect(ScenarioRecord(time: 2, kind: .systemHUD).json == #"{"t":2.0, "type":"systemHUD"}"#)
        #expect(
            ScenarioRecord(time: nil, kind: .end(volume: 0.5, category: .playAndRecord, sessionActive: true)).json
                == #"{"type":"end", "volume":0.5, "category":"playAndRecord", "sessionActive":true}"#)
        #expect(
            ScenarioRecord(time: nil, kind: .end(volume: 0, category: nil, sessionActive: false)).json
                == #"{"type":"end", "volume":0.0, "category":null, "sessionActive":false}"#)
    }
}
