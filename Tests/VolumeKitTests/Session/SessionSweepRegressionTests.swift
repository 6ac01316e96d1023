import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Randomized sessions that lost the user's volume under the system notification strategy (issue 11's sweep),
/// each reduced to a short scripted scenario on the device behaviour that shows it.
@Suite("The user's volume is never lost: sweep sessions, scripted")
struct SessionSweepRegressionTests {
    static let notification = VolumeButtonsConfiguration(strategy: .systemNotification, allowsPrivateAPI: true)

    /// Gives back the current route's record as the app's launch code does, and lets it land.
    private func recover(_ device: SimulatedDevice) {
        VolumeRecovery.recoverIfNeeded(device.clients) { _ in }
        device.advance(by: 1.5)
    }

    @Test(
        "Headphones plugged in while a reset is in flight, the route's notification late or missing: the reset landing there is not taken for their volume",
        arguments: ["routeNotification=afterKVO", "routeNotification=missing"])
    func resetLandingOnNewRoute(order: String) throws {
        // sessions systemNotification-4191-33188529, -4560-36110640, -4373-34629787 (and 16 more)
        let behaviour = try DeviceBehaviour(rules: [
            order, "routeNotificationGap=0.02", "kvoLatency=0.005", "sliderLatency=0.1",
        ])
        let device = SimulatedDevice(.init(volume: 0.5, headphonesVolume: 0.25, behaviour: behaviour))
        let engine = VolumeButtonsEngine(configuration: Self.notification, clients: device.clients, onEvent: { _ in })
        try engine.start()
        device.advance(by: 1.2)
        device.press(.up)
        // The reset (issued 5 ms after the press) lands 100 ms later: plug in 10 ms before it lands.
        device.advance(by: 0.095)
        device.connect(.headphones)
        device.advance(by: 1)
        #expect(engine.userVolume == 0.25, "the headphones' own volume, not the speaker's reset landing there")
        engine.stop()
        device.advance(by: 2)
        #expect(device.volume(on: .headphones) == 0.25)
        device.connect(.speaker)
        recover(device)
        #expect(device.volume(on: .speaker) == 0.5, "the speaker's record gives the user's volume back there")
    }

    @Test(
        "A press that snaps to the grid after a crash, from an off-grid volume, is the user's choice",
        arguments: [(Float(0.33), VolumeButton.down, Float(0.3125)), (0.92, .up, 0.9375), (0.06, .up, 0.0625)])
    func snappedPressAfterCrash(volume: Float, button: VolumeButton, pressed: Float) throws {
        // sessions systemNotification-3889-30796992, -3811-30179310, -4606-36474915 (and 9 more)
        var behaviour = DeviceBehaviour()
        try behaviour.set("stepQuantization=grid")
        try behaviour.set("idleButtons=media")
        let device = SimulatedDevice(.init(volume: volume, behaviour: behaviour))
        let engine = VolumeButtonsEngine(configuration: Self.notification, clients: device.clients, onEvent: { _ in })
        try engine.start()
        device.advance(by: 1.2)
        device.crash()
        device.advance(by: 0.1)
        device.launch()
        // VolumeKit is not running yet: the press is the user's.
        device.press(button)
        device.advance(by: 0.3)
        #expect(device.volume == pressed)
        recover(device)
        #expect(device.volume == pressed, "the user's press stays: \(pressed) is no nudge of VolumeKit's \(volume)")
    }

    @Test("The rule: a grid point VolumeKit did not hold is a press; its own nudges off a held value are not")
    func gridRule() {
        let record = PendingRestore(userVolume: 0.33, heldVolume: 0.33, savedAtUptime: 10)
        #expect(RecoveryRule.decide(record, currentVolume: 0.3125, uptime: 11) == .discard(.userChangedVolume))
        #expect(RecoveryRule.decide(record, currentVolume: 0.3125 + 5e-5, uptime: 11) == .discard(.userChangedVolume))
        #expect(RecoveryRule.decide(record, currentVolume: 0.33 - 3.0 / 4096, uptime: 11) == .restore(0.33))
        // On the grid, VolumeKit's anchor itself and its nudges around it are its own.
        let grid = PendingRestore(userVolume: 0.95, heldVolume: 0.875, savedAtUptime: 10)
        #expect(RecoveryRule.decide(grid, currentVolume: 0.875, uptime: 11) == .restore(0.95))
        #expect(RecoveryRule.decide(grid, currentVolume: 0.875 - 2.0 / 4096, uptime: 11) == .restore(0.95))
    }
    @Test("Headphones plugged in just after a nudge landed on the speaker, unseen yet: the speaker keeps its record")
    func nudgeInFlightAtRouteChange() throws {
        // session systemNotification-4807-38066634: the speaker left 2/4096 below the user's 0.33, its record gone
        let behaviour = try DeviceBehaviour(rules: ["kvoLatency=0.03", "sliderLatency=0.1", "downPressRefusal=none"])
        let device = SimulatedDevice(.init(volume: 0.5, headphonesVolume: 0.25, behaviour: behaviour))
        let engine = VolumeButtonsEngine(configuration: Self.notification, clients: device.clients, onEvent: { _ in })
        try engine.start()
        device.advance(by: 1.2)
        // Press 1's settle set (0.5) lands after press 2 is seen; press 2's nudge lands just before the route
        // change and is seen just after it.
        device.press(.down)
        device.advance(by: 0.40)
        device.press(.down)
        device.advance(by: 0.14)
        device.connect(.headphones)
        device.advance(by: 1)
        engine.stop()
        device.advance(by: 2)
        #expect(device.volume(on: .headphones) == 0.25)
        device.connect(.speaker)
        recover(device)
        #expect(device.volume(on: .speaker) == 0.5, "the speaker's record gives the user's volume back there")
    }

    @Test("Back on a route VolumeKit once left mid-reset, then a crash: a press to where it had left it is the user's")
    func staleLeftVolume() throws {
        // session systemNotification-2468-19544092: the headphones' record kept `leftVolume` 0 after VolumeKit
        // held them again; the user's presses to 0 after a crash were undone
        let behaviour = try DeviceBehaviour(rules: ["kvoLatency=0.005", "sliderLatency=0.1", "idleButtons=media"])
        let device = SimulatedDevice(.init(volume: 0.5, headphonesVolume: 0.0625, behaviour: behaviour))
        let engine = VolumeButtonsEngine(configuration: Self.notification, clients: device.clients, onEvent: { _ in })
        device.connect(.headphones)
        try engine.start()
        device.advance(by: 1.2)
        device.press(.down)
        device.advance(by: 0.05)
        device.connect(.speaker)
        device.advance(by: 1)
        device.connect(.headphones)
        device.advance(by: 1)
        #expect(device.volume(on: .headphones) == 0.0625)
        device.crash()
        device.advance(by: 0.1)
        device.press(.down)
        device.advance(by: 0.3)
        device.launch()
        recover(device)
        #expect(device.volume(on: .headphones) == 0, "the user's press to 0 after the crash stays")
    }
}
