import Foundation
import VolumeKitCore
import VolumeKitTesting

/// A simulated device with the behaviour `rules` ("name=value"), the speaker at `volume` and the headphones at
/// `headphones`.
func simulatedDevice(_ rules: [String], volume: Float, headphones: Float = 0.5) throws -> SimulatedDevice {
    let behaviour = try DeviceBehaviour(rules: rules)
    return SimulatedDevice(.init(volume: volume, headphonesVolume: headphones, behaviour: behaviour))
}

/// A buttons engine on `device`'s clients, not started, whose events nobody reads. The rigs hold the anchor at the
/// configured two steps (``VolumeButtonsConfiguration/fixedHeadroom``) that their tests' arithmetic was written
/// for; the headroom a first start takes before the phone is measured has its own suite (HeadroomGrowthTests).
func quietEngine(on device: SimulatedDevice, _ configuration: VolumeButtonsConfiguration = .fixedHeadroom)
    -> VolumeButtonsEngine
{
    VolumeButtonsEngine(configuration: configuration, clients: device.clients, onEvent: { _ in })
}

/// Starts capture on `device` (a ``quietEngine(on:_:)``) and lets `settle` seconds of virtual time pass — long
/// enough, for the caller's device, for the view to be ready and the anchor to land.
func startCapture(
    on device: SimulatedDevice, _ configuration: VolumeButtonsConfiguration = .fixedHeadroom, settle: TimeInterval
) throws -> VolumeButtonsEngine {
    let engine = quietEngine(on: device, configuration)
    try engine.start()
    device.advance(by: settle)
    return engine
}

/// What a launch recovery told the app: how it ended (`nil` while it still runs) and the diagnostics it raised.
struct RecoveryReport: Sendable {
    var outcome: VolumeRecovery.Outcome?
    var diagnostics: [VolumeButtonsDiagnostic]
}

/// Runs launch recovery on `device` as an app's launch code does (`VolumeKit.recoverVolumeIfNeeded()`) — first
/// launching the app again when `launching` — lets `settle` seconds of virtual time pass, and returns what the
/// recovery reported by then. Each test passes the settle time it was written with: some read the outcome
/// before the recovery's sets have all landed.
@discardableResult
func recover(_ device: SimulatedDevice, launching: Bool = false, settle: TimeInterval) -> RecoveryReport {
    if launching { device.launch() }
    let outcome = Locked<VolumeRecovery.Outcome?>(nil)
    let diagnostics = Locked([VolumeButtonsDiagnostic]())
    VolumeRecovery.recoverIfNeeded(
        device.clients, onDiagnostic: { diagnostic in diagnostics.withLock { $0.append(diagnostic) } },
        completion: { result in outcome.withLock { $0 = result } })
    device.advance(by: settle)
    return RecoveryReport(outcome: outcome.current, diagnostics: diagnostics.current)
}

/// Runs `script` on a device with `rules` ("name=value") and returns the presses, whether any press
/// repeated, and the runner (for the device's volumes).
func runScript(
    _ script: String, _ rules: [String], strategy: SimulatedStrategy = .outputVolume
) throws -> (presses: [VolumeButton], repeated: Bool, runner: ScenarioRunner) {
    let behaviour = try DeviceBehaviour(rules: rules)
    let runner = ScenarioRunner(scenario: try Scenario(parsing: script), strategy: strategy, behaviour: behaviour)
    let events = runner.run().compactMap { record -> (VolumeButton, ButtonPhase)? in
        if case .button(let button, let phase) = record.kind { return (button, phase) }
        return nil
    }
    return (events.filter { $0.1 == .pressed }.map(\.0), events.contains { $0.1 == .repeated }, runner)
}

extension VolumeButtonsConfiguration {
    /// The system notification strategy, private API opted in.
    static let notification = VolumeButtonsConfiguration(strategy: .systemNotification, allowsPrivateAPI: true)
}

extension VolumeButtonsConfiguration {
    /// The default configuration with the headroom fixed at its two steps (the anchor 0.125 from 0, 0.875 from 1)
    /// whatever the round trip, measured or not: for a rule or race pinned at that anchor — the rule, not the
    /// headroom (``HeadroomPolicy``), is what such a test pins.
    static var fixedHeadroom: VolumeButtonsConfiguration {
        var configuration = VolumeButtonsConfiguration()
        configuration.headroomPolicy.maximumSteps = configuration.headroomSteps
        return configuration
    }
}
