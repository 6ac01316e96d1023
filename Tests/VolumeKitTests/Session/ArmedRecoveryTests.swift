import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// A launch recovery that leaves another route's record waiting, with the app alive and no engine (issue 11,
/// ov-2360-18688840, ov-3908-30947452).
@Suite("Another route's record is given back when that route becomes current")
struct ArmedRecoveryTests {
    /// The speaker is left at VolumeKit's anchor 0.125 (the user's 0 needs headroom) with a record, the audio on
    /// the headphones; the app crashes there and its launch recovery runs on the headphones.
    private static func leftSpeaker(_ rules: [String]) throws -> SimulatedDevice {
        // The anchor 0.125 of a fixed headroom: a slow slider would grow it (the record, not the growth, is pinned).
        let run = try CaptureRun(rules, volume: 0, headphones: 0.5, configuration: .fixedHeadroom)
        let device = run.device
        device.connect(.headphones)
        device.advance(by: 0.5)
        Self.crashAndRecover(device)
        #expect(device.volume(on: .speaker) == 0.125, "the earlier run left the speaker at its anchor")
        #expect(PendingRestores.load(from: device.clients.keyValueStore).byRoute[.speaker] != nil)
        return device
    }

    /// The app crashes and is launched again; its launch recovery runs.
    private static func crashAndRecover(_ device: SimulatedDevice) {
        device.crash()
        device.advance(by: 0.3)
        device.launch()
        VolumeRecovery.recoverIfNeeded(device.clients) { _ in }
        device.advance(by: 1.5)
    }

    /// Once the speaker's record was given back, the user presses up twice and down once there: 0.0625, passing
    /// the 0.125 VolumeKit once held. After a crash, the next launch keeps the user's presses.
    private static func pressesThroughHeldValueKept(_ device: SimulatedDevice) {
        #expect(PendingRestores.load(from: device.clients.keyValueStore).byRoute[.speaker] == nil)
        for button: VolumeButton in [.up, .up, .down] {
            device.press(button)
            device.advance(by: 0.4)
        }
        crashAndRecover(device)
        #expect(device.volume(on: .speaker) == 0.0625, "the user's own presses on the speaker are kept")
    }

    @Test(
        "Back on the route, before any press: the user's volume there is given back, and later presses that end on the held value are theirs",
        arguments: ["beforeKVO", "afterKVO"])
    func restoredWhenRouteBecomesCurrent(order: String) throws {
        let device = try Self.leftSpeaker(["routeNotification=\(order)", "downPressRefusal=none"])
        // The app lives on, with no engine; the audio moves to the speaker.
        device.connect(.speaker)
        device.advance(by: 1)
        #expect(device.volume(on: .speaker) == 0, "the user's speaker volume is back as soon as it is current")
        Self.pressesThroughHeldValueKept(device)
    }

    /// ov-12041-95352680: the audio moves to the speaker during a call (the app inactive, so the route change
    /// is not judged then); the call ends and the user presses on the speaker away from, and back onto,
    /// VolumeKit's held 0.125.
    @Test("A route that became current while the app was not active is judged when the app becomes active")
    func restoredWhenAppBecomesActive() throws {
        let device = try Self.leftSpeaker(["routeNotification=beforeKVO", "downPressRefusal=none"])
        device.phoneCall(began: true)
        device.advance(by: 0.5)
        device.connect(.speaker)
        device.advance(by: 0.5)
        device.phoneCall(began: false)
        device.advance(by: 1)
        #expect(device.volume(on: .speaker) == 0, "the user's speaker volume is back once the app is active")
        Self.pressesThroughHeldValueKept(device)
    }

    @Test(
        "An app with a category of its own keeps its session as it was (inactive .playback, active .ambient): the record waits",
        arguments: [false, true])
    func appSessionLeftAsFound(ambient: Bool) throws {
        let device = try Self.leftSpeaker(["routeNotification=beforeKVO"])
        let own = AudioSessionConfiguration(category: ambient ? .ambient : .playback)
        try device.configureAppSession(own, activates: ambient)
        #expect(device.isSessionActive == ambient)
        device.connect(.speaker)
        device.advance(by: 1)
        // Activating a non-mixing .playback session would stop other apps' audio; deactivating the game's
        // .ambient session would stop its sounds.
        #expect(device.isSessionActive == ambient)
        #expect(device.sessionConfiguration == own)
        #expect(device.volume(on: .speaker) == 0.125)
        #expect(PendingRestores.load(from: device.clients.keyValueStore).byRoute[.speaker] != nil)
    }

    @Test("The app's custom HUD shows nothing when the watch gives the route back (no press was made)")
    func hudQuietAtRouteReturn() throws {
        let device = try Self.leftSpeaker(["routeNotification=beforeKVO"])
        let shown = Locked([VolumeHUDDisplay]())
        let hud = VolumeHUDEngine(
            clients: device.clients, onDisplay: { display, _ in shown.withLock { $0.append(display) } })
        hud.start()
        device.advance(by: 1)
        shown.withLock { $0 = [] }
        device.connect(.speaker)
        device.advance(by: 2)
        #expect(device.volume(on: .speaker) == 0)
        #expect(shown.current.isEmpty, "\(shown.current)")
        hud.stop()
    }

    @Test("A running Ring/Silent monitor does not keep the waiting record from its route")
    func muteMonitorDoesNotBlock() throws {
        let device = try Self.leftSpeaker(["routeNotification=afterKVO"])
        let mute = MuteSwitchEngine(soundURL: URL(fileURLWithPath: "/probe.caf"), clients: device.clients)
        mute.start()
        device.advance(by: 0.5)
        device.connect(.speaker)
        device.advance(by: 1)
        #expect(device.volume(on: .speaker) == 0)
        mute.stop()
        device.advance(by: 1)
    }

    @Test(
        "Capture started as the route comes back waits for the recovery: no press nobody made",
        arguments: [0, 0.02, 0.15])
    func captureStartedAtRouteChange(gap: TimeInterval) throws {
        let device = try Self.leftSpeaker(["routeNotification=beforeKVO", "sliderLatency=0.15"])
        device.connect(.speaker)
        device.advance(by: gap)
        let events = Locked([VolumeButtonEvent]())
        let engine = VolumeButtonsEngine(
            clients: device.clients, onEvent: { event in events.withLock { $0.append(event) } })
        try engine.start()
        device.advance(by: 2)
        #expect(events.current.isEmpty, "gap \(gap)")
        #expect(engine.isCapturing)
        engine.stop()
        device.advance(by: 2)
        #expect(device.volume(on: .speaker) == 0, "gap \(gap)")
    }

    @Test("A capture that left a route while holding it arms the watch when it stops")
    func armedByCaptureStop() throws {
        let run = try CaptureRun(["routeNotification=beforeKVO"], volume: 0, headphones: 0.5)
        let device = run.device
        device.connect(.headphones)
        device.advance(by: 1)
        run.stop()
        #expect(device.volume(on: .speaker) == 0.125, "the speaker was left at the anchor, its record waits")
        #expect(PendingRestores.load(from: device.clients.keyValueStore).byRoute[.speaker] != nil)
        device.connect(.speaker)
        device.advance(by: 1)
        #expect(device.volume(on: .speaker) == 0, "given back as soon as the speaker is current")
        #expect(PendingRestores.load(from: device.clients.keyValueStore).byRoute.isEmpty)
        #expect(!device.isSessionActive, "the session is given back too")
    }
}
