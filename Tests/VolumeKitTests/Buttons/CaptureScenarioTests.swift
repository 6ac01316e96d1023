import Testing
import VolumeKitCore
import VolumeKitTesting

/// A strategy on an iOS version where it exists.
struct CaptureSetup: Sendable, CustomTestStringConvertible {
    var strategy: SimulatedStrategy
    var version: OSVersion
    var testDescription: String { "\(strategy.rawValue) on iOS \(version)" }

    static let all: [CaptureSetup] =
        [OSVersion(15, 0), OSVersion(16, 4), OSVersion(17, 4)].flatMap { version in
            [
                CaptureSetup(strategy: .outputVolume, version: version),
                CaptureSetup(strategy: .systemNotification, version: version),
            ]
        } + [CaptureSetup(strategy: .captureEvents, version: OSVersion(17, 4))]
}

/// A scenario with the presses the app must receive and the volume the user must get back.
struct CaptureCase: Sendable, CustomTestStringConvertible {
    var name: String
    var volume: Float
    var body: String
    var presses: [VolumeButton]
    /// The user's volume after `stop` (their volume before `start`, or what they set with the slider).
    var userVolume: Float
    var testDescription: String { name }

    static func repeated(_ button: VolumeButton, _ count: Int) -> [VolumeButton] {
        Array(repeating: button, count: count)
    }

    static let all: [CaptureCase] = [
        CaptureCase(
            name: "single presses", volume: 0.5, body: "press up\nwait 0.5\npress down\nwait 0.5\npress up",
            presses: [.up, .down, .up], userVolume: 0.5),
        CaptureCase(
            name: "20 up presses 50 ms apart", volume: 0.5, body: "press up x20 every 0.05",
            presses: repeated(.up, 20), userVolume: 0.5),
        CaptureCase(
            name: "20 down presses 50 ms apart", volume: 0.5, body: "press down x20 every 0.05",
            presses: repeated(.down, 20), userVolume: 0.5),
        CaptureCase(
            name: "presses at volume 0", volume: 0, body: "press down x3\npress up x2\npress down",
            presses: repeated(.down, 3) + repeated(.up, 2) + [.down], userVolume: 0),
        CaptureCase(
            name: "presses at volume 1", volume: 1, body: "press up x3\npress down\npress up",
            presses: repeated(.up, 3) + [.down, .up], userVolume: 1),
        CaptureCase(
            name: "16 down presses 50 ms apart at 0", volume: 0, body: "press down x16 every 0.05",
            presses: repeated(.down, 16), userVolume: 0),
        CaptureCase(
            name: "16 up presses 50 ms apart at 1", volume: 1, body: "press up x16 every 0.05",
            presses: repeated(.up, 16), userVolume: 1),
        CaptureCase(
            name: "start off the grid at 0.1", volume: 0.1, body: "press down x2\npress up",
            presses: [.down, .down, .up], userVolume: 0.1),
        CaptureCase(
            name: "a slider change between presses", volume: 0.5, body: "press up\nslider 0.3\npress down",
            presses: [.up, .down], userVolume: 0.3),
        CaptureCase(
            name: "background and foreground", volume: 0.5,
            body: "press up\nbackground\nwait 1\nforeground\npress down",
            presses: [.up, .down], userVolume: 0.5),
        CaptureCase(
            name: "an interruption with an end", volume: 0.5,
            body: "press up\ninterrupt begin\nwait 1\ninterrupt end\npress down",
            presses: [.up, .down], userVolume: 0.5),
        CaptureCase(
            name: "an interruption without an end", volume: 0.5,
            body: "press up\ninterrupt begin\nwait 1\nbackground\nwait 1\nforeground\npress down",
            presses: [.up, .down], userVolume: 0.5),
        CaptureCase(
            name: "a phone call", volume: 0.5, body: "press up\ncall begin\npress up x2\ncall end\npress down",
            presses: [.up, .down], userVolume: 0.5),
        CaptureCase(
            name: "headphones connected mid-session", volume: 0.5,
            body: "press up\nroute headphones\nwait 0.1\npress down\npress up",
            presses: [.up, .down, .up], userVolume: 0.5),
    ]
}

@Suite("Volume-button capture on the simulated device")
struct CaptureScenarioTests {
    static func run(_ setup: CaptureSetup, volume: Float, body: String) throws -> (
        records: [ScenarioRecord], runner: ScenarioRunner
    ) {
        let script = "ios \(setup.version)\nvolume \(volume)\nstart\n\(body)\nwait 1\nstop\n"
        let runner = ScenarioRunner(scenario: try Scenario(parsing: script), strategy: setup.strategy)
        return (runner.run(), runner)
    }

    static func buttonEvents(_ records: [ScenarioRecord]) -> [(VolumeButton, ButtonPhase)] {
        records.compactMap { if case .button(let b, let p) = $0.kind { return (b, p) } else { return nil } }
    }

    @Test(
        "Every press is reported once, none invented, the HUD stays hidden and the user's volume comes back",
        arguments: CaptureSetup.all, CaptureCase.all)
    func scenario(setup: CaptureSetup, testCase: CaptureCase) throws {
        let (records, runner) = try Self.run(setup, volume: testCase.volume, body: testCase.body)
        let events = Self.buttonEvents(records)
        #expect(events.filter { $0.1 == .pressed }.map(\.0) == testCase.presses)
        #expect(events.filter { $0.1 == .repeated }.isEmpty, "single presses never look like a hold")
        // Every pressed is followed by exactly one released of the same button before the next press.
        var held: VolumeButton?
        for (button, phase) in events {
            switch phase {
            case .pressed: #expect(held == nil); held = button
            case .released: #expect(held == button); held = nil
            case .repeated: #expect(held == button)
            }
        }
        #expect(held == nil)
        #expect(records.filter { $0.kind == .systemHUD }.isEmpty, "the system HUD never shows while started")
        let device = try #require(runner.device)
        #expect(abs(device.volume(on: .speaker) - testCase.userVolume) < 1e-6)
        #expect(abs(device.volume(on: .headphones) - testCase.volume) < 1e-6)
        if setup.strategy == .captureEvents {
            // A camera app: its camera configured the session to record; capture events take no session at all.
            #expect(device.sessionConfiguration == SessionComponent.camera.configuration)
            #expect(
                !device.log.contains { if case .sessionActivated = $0 { true } else { false } },
                "VolumeKit never activated the camera's session")
        } else {
            #expect(!device.isSessionActive, "the session VolumeKit activated is deactivated on stop")
        }
        #expect(device.volumeViewCount == 0, "the volume view is removed on stop")
    }

    @Test(
        "A hold gives one pressed, repeated events and one released", arguments: CaptureSetup.all, [Float(0.5), 0, 1])
    func hold(setup: CaptureSetup, volume: Float) throws {
        let button: VolumeButton = volume == 0 ? .down : .up
        let (records, runner) = try Self.run(setup, volume: volume, body: "hold \(button.rawValue) 1.5")
        let events = Self.buttonEvents(records)
        #expect(events.first.map { $0.0 == button && $0.1 == .pressed } == true)
        #expect(events.last.map { $0.0 == button && $0.1 == .released } == true)
        let repeats = events.dropFirst().dropLast()
        #expect(repeats.count == 5, "0.65 s, then every 0.2 s up to 1.5 s: 0.65, 0.85, 1.05, 1.25, 1.45")
        #expect(repeats.allSatisfy { $0.0 == button && $0.1 == .repeated })
        #expect(abs(try #require(runner.device).volume - volume) < 1e-6)
    }

    @Test("Nothing is reported at start, even when the volume must leave a rail")
    func noEventAtStart() throws {
        for setup in CaptureSetup.all {
            for volume: Float in [0, 1, 0.1] {
                let (records, _) = try Self.run(setup, volume: volume, body: "wait 2")
                #expect(Self.buttonEvents(records).isEmpty, "\(setup.testDescription) at \(volume)")
            }
        }
    }

    @Test("The private strategy refuses to start without the explicit opt-in")
    func privateNeedsOptIn() {
        let device = SimulatedDevice()
        let engine = VolumeButtonsEngine(configuration: .init(strategy: .systemNotification), clients: device.clients) {
            _ in
        }
        #expect(throws: VolumeButtonsError.privateAPINotAllowed) { try engine.start() }
        #expect(!device.isSessionActive)
    }

    @Test("Capture events need iOS 17.2")
    func captureEventsNeedRecentOS() {
        let device = SimulatedDevice(.init(osVersion: OSVersion(17, 1)))
        let engine = VolumeButtonsEngine(configuration: .init(strategy: .captureEvents), clients: device.clients) { _ in
        }
        #expect(throws: VolumeButtonsError.strategyUnavailable(.captureEvents)) { try engine.start() }
    }

    @Test("Passive mode reports presses and lets the volume change")
    func passiveMode() throws {
        let (records, runner) = try Self.run(
            CaptureSetup(strategy: .passive, version: OSVersion(17, 4)), volume: 0.5, body: "press up x2\npress down")
        #expect(Self.buttonEvents(records).filter { $0.1 == .pressed }.map(\.0) == [.up, .up, .down])
        #expect(try #require(runner.device).volume == 0.5625)
        // The volume moves as usual; the app's custom HUD (started with the buttons) shows it instead of iOS's.
        #expect(records.filter { $0.kind == .systemHUD }.isEmpty)
        let shown = records.compactMap { record -> Float? in
            if case .hud(let level, true, _) = record.kind { return level } else { return nil }
        }
        #expect(shown == [0.5625, 0.625, 0.5625])
    }

    @Test("The baseline loses presses that VolumeKit reports (the comparison README shows)")
    func baselineLosesPresses() throws {
        let (records, _) = try Self.run(
            CaptureSetup(strategy: .baseline, version: OSVersion(17, 4)), volume: 0.0625, body: "press down x4")
        #expect(Self.buttonEvents(records).filter { $0.1 == .pressed }.count < 4)
    }
}
