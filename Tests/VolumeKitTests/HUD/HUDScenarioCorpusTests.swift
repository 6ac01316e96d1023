import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Plays a scenario the way `volumekit simulate` does, with the app running button capture and the HUD
/// engine together (wired as ScenarioRunner will be: `VolumeHUDEngine` plus `VolumeHoldReporter`), and
/// records every HUD display.
private final class HUDScenarioDriver {
    let device: SimulatedDevice
    let strategy: SimulatedStrategy
    let recorder = HUDRecorder()
    private var hud: VolumeHUDEngine?
    private var capture: CaptureApp?

    init(_ scenario: Scenario, strategy: SimulatedStrategy) {
        var configuration = SimulatedDevice.Configuration()
        for line in scenario.lines {
            switch line.command {
            case .ios(let version): configuration.osVersion = version
            case .device(let kind): configuration.kind = kind
            case .volume(let volume): configuration.volume = volume; configuration.headphonesVolume = volume
            default: break
            }
        }
        device = SimulatedDevice(configuration)
        self.strategy = strategy
        for line in scenario.lines { perform(line.command) }
        device.advance(by: 2)
    }

    private func perform(_ command: Scenario.Command) {
        switch command {
        case .ios, .device, .volume: break
        case .start:
            stop()
            let clients = device.clients
            let hud = recorder.engine(VolumeHUDOptions(language: .english), clients: clients)
            hud.start()
            self.hud = hud
            guard let configuration = strategy.configuration else { return }
            let capture = CaptureApp(configuration, clients: clients, hud: hud)
            self.capture = capture
            try? capture.start()
            let deadline = device.now + 1
            while !capture.engine.isCapturing, device.now < deadline { device.advance(by: 0.01) }
        case .stop: stop()
        case .press(let button, let count, let every):
            for _ in 0..<count {
                device.press(button)
                device.advance(by: every)
            }
        case .hold(let button, let seconds):
            device.hold(button, for: seconds)
            device.advance(by: seconds)
        case .wait(let seconds): device.advance(by: seconds)
        case .slider(let value):
            device.controlCenterSlider(value)
            device.advance(by: 0.6)
        case .background: device.background()
        case .foreground: device.foreground()
        case .interrupt(let began): device.interruption(began: began)
        case .call(let began): device.phoneCall(began: began)
        case .route(let route): device.connect(route)
        case .crash:
            device.crash()
            hud = nil
            capture = nil
        case .launch:
            device.launch()
            let done = Locked(false)
            VolumeRecovery.recoverIfNeeded(device.clients) { _ in done.withLock { $0 = true } }
            let deadline = device.now + 2
            while !done.current, device.now < deadline { device.advance(by: 0.01) }
            hud = nil
            capture = nil
        case .mute(let on): device.setMuteSwitch(on: on)
        }
    }

    private func stop() {
        capture?.stop()
        hud?.stop()
        capture = nil
        hud = nil
    }

    /// Every level the user chose: the volumes before launch, Control Center values, and presses the system
    /// handled itself (its HUD showed them) or that VolumeKit let through (passive mode).
    var userChosenLevels: Set<Float> {
        var levels: Set<Float> = [device.configuration.volume, device.configuration.headphonesVolume]
        let systemHUD = Set(device.log.compactMap { entry -> Float? in
            if case .systemHUD(_, let value) = entry { return value } else { return nil }
        })
        for entry in device.log {
            guard case .volume(_, _, let value, let cause) = entry else { continue }
            switch cause {
            case .controlCenter: levels.insert(value)
            case .button: if strategy == .passive || systemHUD.contains(value) { levels.insert(value) }
            case .app: break
            }
        }
        return levels
    }
}

@Suite("The HUD across the scenario corpus")
struct HUDScenarioCorpusTests {
    static let scenarioFiles: [URL] = {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scenarios")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".txt") }.sorted().map { folder.appendingPathComponent($0) }
    }()

    static let strategies: [SimulatedStrategy] = [.outputVolume, .systemNotification, .captureEvents, .passive]

    @Test("the corpus is there")
    func corpusFound() {
        #expect(Self.scenarioFiles.count >= 10)
    }

    @Test("with buttons and the HUD started together, the HUD never shows a level the user did not choose",
          arguments: scenarioFiles, strategies)
    func onlyUserLevels(file: URL, strategy: SimulatedStrategy) throws {
        let scenario = try Scenario(parsing: String(contentsOf: file, encoding: .utf8))
        let driver = HUDScenarioDriver(scenario, strategy: strategy)
        let chosen = driver.userChosenLevels
        let foreign = driver.recorder.shownLevels.filter { !chosen.contains($0) }
        #expect(foreign.isEmpty, "\(file.lastPathComponent): shown \(driver.recorder.shownLevels), user chose \(chosen.sorted())")
        // Captured presses are the app's input: the HUD never bumps for them.
        if strategy != .passive {
            #expect(!driver.recorder.displays.current.contains { $0.display.bump != nil }, "\(file.lastPathComponent)")
        }
    }
}
