import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Each rule of "the user's volume is never lost", on the simulated device.
@Suite("The user's volume: rules")
struct UserVolumeRulesTests {
    private func records(_ device: SimulatedDevice) -> [AudioRoute: PendingRestore] {
        PendingRestores.load(from: device.clients.keyValueStore).byRoute
    }

    @Test("The user's volume is saved before VolumeKit's first change to it")
    func savedBeforeFirstChange() throws {
        let device = SimulatedDevice(.init(volume: 0))
        let engine = VolumeButtonsEngine(configuration: .fixedHeadroom, clients: device.clients, onEvent: { _ in })
        try engine.start()
        // The host tells the view ready (VolumeViewReadiness.hostDelay): the anchor set issued but not landed.
        device.advance(by: VolumeViewReadiness.hostDelay + 0.005)
        #expect(device.volume == 0)
        var saved = PendingRestore(
            userVolume: 0, heldVolume: 0.125, savedAtUptime: records(device)[.speaker]?.savedAtUptime ?? -1,
            bootTime: device.clients.device.bootTime)
        saved.lowestVolume = 0.125  // nothing set below the anchor yet
        saved.heldSetUnconfirmed = true  // the anchor set not yet seen to land: a crash may leave 0 or 0.125
        #expect(records(device)[.speaker] == saved)
        device.advance(by: 0.2)
        #expect(device.volume == 0.125)
        engine.stop()
        device.advance(by: 1)
        #expect(device.volume == 0 && records(device).isEmpty, "restored and cleared on stop")
    }

    @Test("Presses and VolumeKit's own nudges never change the user's volume")
    func nudgesAreNotTheUsers() throws {
        let device = SimulatedDevice(.init(volume: 0.0625))
        let engine = try startCapture(on: device, settle: 0.4)
        for _ in 0..<12 { device.press(.down); device.advance(by: 0.05) }
        device.hold(.up, for: 1.2)
        device.advance(by: 2)
        #expect(abs(engine.userVolume - 0.0625) < 1e-6)
        engine.stop()
        device.advance(by: 1)
        #expect(abs(device.volume - 0.0625) < 1e-6)
    }

    @Test(
        "Resign-active gives the user's volume back; become-active re-applies the headroom; a Control Center change is the user's"
    )
    func resignAndBecomeActive() throws {
        let device = SimulatedDevice(.init(volume: 1))
        let engine = try startCapture(on: device, settle: 0.4)
        #expect(device.volume == 0.875)
        device.controlCenterSlider(0.95)
        device.advance(by: 0.2)
        #expect(device.volume == 1, "while Control Center is open the user sees their own volume")
        device.advance(by: 0.8)
        #expect(abs(engine.userVolume - 0.95) < 1e-6)
        #expect(device.volume == 0.875, "headroom again once active")
        engine.stop()
        device.advance(by: 1)
        #expect(abs(device.volume - 0.95) < 1e-6)
    }

    @Test("After a crash, the next launch gives the user's volume back and clears the record")
    func crashThenLaunchRecovers() throws {
        let device = SimulatedDevice(.init(volume: 0))
        _ = try startCapture(on: device, settle: 0.4)
        device.crash()
        #expect(device.volume == 0.125)
        device.launch()
        #expect(recover(device, settle: 0.6).outcome == .handled)
        #expect(device.volume == 0)
        #expect(records(device).isEmpty)
        #expect(recover(device, settle: 0.6).outcome == .nothingPending)
    }

    @Test("start() recovers by itself")
    func startRecovers() throws {
        let device = SimulatedDevice(.init(volume: 1))
        _ = try startCapture(on: device, settle: 0.4)
        device.crash()
        device.launch()
        let engine = try startCapture(on: device, settle: 0.4)
        #expect(engine.userVolume == 1)
        engine.stop()
        device.advance(by: 1)
        #expect(device.volume == 1)
    }

    @Test("A volume the user set since the crash is kept: the record is discarded")
    func userChangeSinceCrashWins() throws {
        let device = SimulatedDevice(.init(volume: 0))
        _ = try startCapture(on: device, settle: 0.4)
        device.crash()
        device.controlCenterSlider(0.6)
        device.advance(by: 1)
        device.launch()
        #expect(recover(device, settle: 0.6).outcome == .handled)
        #expect(abs(device.volume - 0.6) < 1e-6)
        #expect(records(device).isEmpty)
    }

    @Test("A record older than the device's last restart is stale")
    func restartMakesRecordsStale() {
        let record = PendingRestore(userVolume: 0.2, heldVolume: 0.5, savedAtUptime: 5000)
        #expect(RecoveryRule.decide(record, currentVolume: 0.5, uptime: 30) == .discard(.deviceRestarted))
        #expect(RecoveryRule.decide(record, currentVolume: 0.5, uptime: 6000) == .restore(0.2))
        #expect(RecoveryRule.decide(record, currentVolume: 0.4375, uptime: 6000) == .discard(.userChangedVolume))
    }

    @Test("Volumes are per route: a speaker volume is never put on headphones, and waits for the speaker")
    func perRoute() throws {
        let device = SimulatedDevice(.init(volume: 0, headphonesVolume: 0.4))
        _ = try startCapture(on: device, settle: 0.4)
        device.crash()
        device.connect(.headphones)
        device.launch()
        #expect(recover(device, settle: 0.6).outcome == .nothingPending)
        #expect(device.volume(on: .headphones) == 0.4)
        // Back on the speaker (the app alive): its record is judged at once, before the user presses there.
        device.connect(.speaker)
        device.advance(by: 1)
        #expect(device.volume(on: .speaker) == 0)
        #expect(recover(device, settle: 0.6).outcome == .nothingPending)
    }

    @Test("A route change mid-session records the new route's volume as the user's there")
    func routeChangeRecordsNewBaseline() throws {
        let device = SimulatedDevice(.init(volume: 0.5, headphonesVolume: 1))
        let engine = try startCapture(on: device, settle: 0.4)
        device.connect(.headphones)
        device.advance(by: 0.5)
        #expect(engine.userVolume == 1)
        #expect(device.volume(on: .headphones) == 0.875)
        engine.stop()
        device.advance(by: 1)
        #expect(device.volume(on: .headphones) == 1 && device.volume(on: .speaker) == 0.5)
    }

    @Test("No resets while a call holds the session; capture resumes when it ends")
    func noResetsDuringCall() throws {
        let device = SimulatedDevice(.init(volume: 0.5))
        let engine = try startCapture(on: device, settle: 0.4)
        device.phoneCall(began: true)
        let before = device.log.count
        for _ in 0..<3 { device.press(.up); device.advance(by: 0.3) }
        device.advance(by: 2)
        #expect(
            !device.log.dropFirst(before).contains {
                if case .programmaticSet = $0 { return true } else { return false }
            })
        device.phoneCall(began: false)
        device.advance(by: 0.3)
        #expect(engine.isCapturing)
    }

    @Test("An interruption with no end: capture resumes by retrying activation, and on the next foreground")
    func interruptionWithoutEnd() throws {
        let device = SimulatedDevice(.init(volume: 0.5))
        let engine = try startCapture(on: device, settle: 0.4)
        device.interruption(began: true)
        device.advance(by: 0.3)
        #expect(!engine.isCapturing)
        device.advance(by: 0.5)
        #expect(engine.isCapturing, "the first retry, 0.5 s after the interruption began")
        device.interruption(began: true)
        device.advance(by: 0.3)
        #expect(!engine.isCapturing)
        device.background()
        device.advance(by: 1)
        device.foreground()
        device.advance(by: 0.3)
        #expect(engine.isCapturing && device.isSessionActive)
    }

    @Test("Other apps' audio keeps playing; the session VolumeKit activated is deactivated with notifyOthers")
    func otherAudio() throws {
        let device = SimulatedDevice(.init(volume: 0.5))
        device.isOtherAudioPlaying = true
        let engine = try startCapture(on: device, settle: 0.4)
        #expect(device.isOtherAudioPlaying)
        engine.stop()
        device.advance(by: 1)
        let notified = device.log.contains { entry in
            if case .sessionDeactivated(_, bySystem: false, notifiedOthers: true) = entry { return true }
            return false
        }
        #expect(notified)
        #expect(device.isOtherAudioPlaying)
    }

    @Test("volumekit simulate: crash then launch ends at the user's volume")
    func scriptCrashLaunch() throws {
        let records = ScenarioRunner(scenario: try Scenario(parsing: "volume 0\nstart\npress down x3\ncrash\nlaunch"))
            .run()
        #expect(
            records.last
                == ScenarioRecord(time: nil, kind: .end(volume: 0, category: .soloAmbient, sessionActive: false)))
    }
}
