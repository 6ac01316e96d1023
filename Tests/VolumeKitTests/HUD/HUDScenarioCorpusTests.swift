import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Every level the user chose in a run of `volumekit simulate`'s runner: the volumes before launch, Control
/// Center values, and presses the system handled itself (its HUD showed them) or that VolumeKit let through
/// (passive mode).
private func userChosenLevels(_ device: SimulatedDevice, strategy: SimulatedStrategy) -> Set<Float> {
    var levels: Set<Float> = [device.configuration.volume, device.configuration.headphonesVolume]
    let systemHUD = Set(
        device.log.compactMap { entry -> Float? in
            if case .systemHUD(_, let value) = entry { return value } else { return nil }
        })
    for entry in device.log {
        guard case .volume(_, _, let value, let cause) = entry else { continue }
        switch cause {
        case .controlCenter, .otherSource: levels.insert(value)
        case .button: if strategy == .passive || systemHUD.contains(value) { levels.insert(value) }
        case .app: break
        }
    }
    return levels
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

    @Test(
        "with buttons and the HUD started together, the HUD never shows a level the user did not choose",
        arguments: scenarioFiles, strategies)
    func onlyUserLevels(file: URL, strategy: SimulatedStrategy) throws {
        let scenario = try Scenario(parsing: String(contentsOf: file, encoding: .utf8))
        // The runner `volumekit simulate` uses: buttons and the HUD engine started together on one app.
        let runner = ScenarioRunner(scenario: scenario, strategy: strategy)
        let records = runner.run()
        let chosen = userChosenLevels(runner.device, strategy: strategy)
        let shown = records.compactMap { record -> Float? in
            if case .hud(let level, true, _) = record.kind { return level } else { return nil }
        }
        // A press the system handled while VolumeKit's nudge was left in the volume (the app went away mid-hold)
        // comes back as the user's whole steps, the nudge taken out: that level is the user's too.
        let start = runner.device.configuration.volume
        let foreign = shown.filter { level in
            guard !chosen.contains(level) else { return false }
            let onSteps = abs((level - start) * 16 - ((level - start) * 16).rounded()) < 1e-3
            let nearChosen = chosen.contains { abs($0 - level) < VolumeStepMachine.residueTolerance }
            return !(onSteps && nearChosen)
        }
        #expect(foreign.isEmpty, "\(file.lastPathComponent): shown \(shown), user chose \(chosen.sorted())")
        // Captured presses are the app's input: the HUD never bumps for them.
        if strategy != .passive {
            let bumps = records.filter { if case .hud(_, _, .some) = $0.kind { true } else { false } }
            #expect(bumps.isEmpty, "\(file.lastPathComponent)")
        }
    }
}
