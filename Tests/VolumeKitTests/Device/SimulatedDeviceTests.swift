import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// One test per simulated iOS rule, each asserting what an app or the user would see.
@Suite("Simulated device rules")
struct SimulatedDeviceTests {
    @Test("A press moves the volume by 1/16 from wherever it is, not snapped to a grid")
    func pressMovesOneSixteenthFromAnywhere() {
        let device = SimulatedDevice(.init(volume: 0.1))
        device.press(.up)
        device.advance(by: 0.2)
        #expect(abs(device.volume - 0.1625) < 1e-6)
        device.press(.up)
        device.advance(by: 0.2)
        #expect(abs(device.volume - 0.225) < 1e-6)
    }

    @Test("Presses are clamped to 0…1")
    func pressesClampAtTheRails() {
        let device = SimulatedDevice(.init(volume: 0.97))
        device.press(.up)
        device.advance(by: 0.2)
        #expect(device.volume == 1)
        device.press(.up)
        device.advance(by: 0.2)
        #expect(device.volume == 1)
        let low = SimulatedDevice(.init(volume: 0.03))
        low.press(.down)
        low.advance(by: 0.2)
        #expect(low.volume == 0)
    }

    @Test("Holding a button auto-repeats: first after 0.65 s, then every 0.2 s")
    func holdAutoRepeats() {
        let device = SimulatedDevice(.init(volume: 0.5))
        device.hold(.down, for: 1.3)
        device.advance(by: 2)
        let times = device.log.compactMap { entry -> Double? in
            if case .volume(let time, _, _, .button(.down)) = entry { return time }
            return nil
        }
        #expect(times.count == 5)
        let expected = [0, 0.65, 0.85, 1.05, 1.25]
        for (time, want) in zip(times, expected) { #expect(abs(time - want) < 1e-9) }
        #expect(abs(device.volume - (0.5 - 5.0 / 16)) < 1e-6)
    }

    @Test("KVO on outputVolume fires only when the value changes, never at the rails")
    func kvoSilentAtRails() throws {
        let device = SimulatedDevice(.init(volume: 1.0 / 16))
        let probe = try AppProbe.listening(on: device)
        for _ in 0..<3 {
            device.press(.down)
            device.advance(by: 0.2)
        }
        #expect(probe.kvo.current == [0])
    }

    @Test("iOS 14: the private notification is AVSystemController_… on every press, rails included")
    func legacyNotificationOnEveryPress() throws {
        let device = SimulatedDevice(.init(osVersion: OSVersion(14, 8), volume: 0))
        let probe = try AppProbe.listening(on: device)
        device.press(.down)
        device.advance(by: 0.2)
        device.press(.up)
        device.advance(by: 0.2)
        let notes = probe.notifications.current
        #expect(notes.count == 2)
        #expect(notes.allSatisfy { $0.name == "AVSystemController_SystemVolumeDidChangeNotification" })
        let first = try #require(notes.first).userInfo
        #expect(
            first["AVSystemController_AudioVolumeChangeReasonNotificationParameter"] == .string("ExplicitVolumeChange"))
        #expect(first["AVSystemController_AudioVolumeNotificationParameter"] == .number(0))
        #expect(probe.kvo.current == [0.0625])
    }

    @Test(
        "iOS 15+: SystemVolumeDidChange with Reason/Volume/AudioCategory/SequenceNumber, only while an MPVolumeView exists"
    )
    func modernNotificationNeedsVolumeView() throws {
        let device = SimulatedDevice(.init(osVersion: OSVersion(15, 0), volume: 1))
        let probe = try AppProbe.listening(on: device)
        device.press(.up)
        device.advance(by: 0.2)
        #expect(probe.notifications.current.isEmpty)
        let view = device.addVolumeView()
        device.advance(by: 0.2)
        device.press(.up)
        device.advance(by: 0.2)
        let note = try #require(probe.notifications.current.first)
        #expect(note.name == "SystemVolumeDidChange")
        #expect(note.userInfo["Reason"] == .string("ExplicitVolumeChange"))
        #expect(note.userInfo["Volume"] == .number(1))
        #expect(note.userInfo["AudioCategory"] == .string("Audio/Video"))
        if case .number = note.userInfo["SequenceNumber"] {} else { Issue.record("no sequence number") }
        view.cancel()
        device.press(.up)
        device.advance(by: 0.2)
        #expect(probe.notifications.current.count == 1)
    }

    @Test("Route and category changes post RouteChange and CategoryChange")
    func routeAndCategoryReasons() throws {
        let device = SimulatedDevice(.init(osVersion: OSVersion(17, 4)))
        let probe = try AppProbe.listening(on: device)
        let view = device.addVolumeView()
        device.connect(.headphones)
        try device.clients.audioSession.setConfiguration(.init(category: .playAndRecord))
        device.advance(by: 0.2)
        let reasons = probe.notifications.current.map { $0.userInfo["Reason"] }
        #expect(reasons == [.string("RouteChange"), .string("CategoryChange")])
        view.cancel()
    }

    @Test(
        "The system HUD shows on a press unless a visible, ready MPVolumeView is in the active scene and the session is active"
    )
    func hudSuppressionRule() throws {
        func huds(_ setup: (SimulatedDevice) throws -> Void) rethrows -> Int {
            let device = SimulatedDevice(.init(volume: 0.5))
            try setup(device)
            device.advance(by: 0.5)
            device.press(.up)
            device.advance(by: 0.2)
            return device.systemHUDTimes.count
        }
        #expect(huds { _ in } == 1)
        let active: (SimulatedDevice) throws -> Void = { try $0.clients.audioSession.setActive(true, false) }
        #expect(
            try huds {
                try active($0); $0.addVolumeView(alpha: 0.0001)
            } == 0, "tiny alpha still counts; frame does not matter")
        #expect(
            try huds {
                try active($0); $0.addVolumeView(alpha: 0)
            } == 1, "alpha 0 does not hide the HUD")
        #expect(
            try huds {
                try active($0); $0.addVolumeView(hidden: true)
            } == 1, "a hidden view does not hide the HUD")
        #expect(
            try huds {
                try active($0); $0.addVolumeView(inActiveSceneWindow: false)
            } == 1)
        #expect(huds { $0.addVolumeView() } == 1, "the session must be active")
        // Not ready yet: a press right after creating the view still shows the HUD.
        let device = SimulatedDevice(.init(volume: 0.5))
        try active(device)
        device.addVolumeView()
        device.press(.up)
        device.advance(by: 0.2)
        #expect(device.systemHUDTimes.count == 1)
    }

    @Test("A programmatic set takes effect only once the volume view is ready")
    func setNeedsReadyView() throws {
        let device = SimulatedDevice(.init(volume: 0.5))
        let clients = device.clients
        clients.systemVolume.setVolume(0.2)
        device.advance(by: 0.2)
        #expect(device.volume == 0.5)
        var ready = false
        let view = clients.systemVolume.installVolumeView {}
        clients.systemVolume.setVolume(0.3)
        device.advance(by: 0.05)
        #expect(device.volume == 0.5, "not ready yet: lost")
        device.advance(by: 0.2)
        ready = device.volumeViewCount == 1
        clients.systemVolume.setVolume(0.3)
        device.advance(by: 0.05)
        #expect(ready && device.volume == 0.3)
        view.cancel()
    }

    @Test(
        "From iOS 11, a set ≥ the pre-press value during a down press is refused; below it or 0 is accepted",
        arguments: [OSVersion(10, 3), OSVersion(14, 8), OSVersion(17, 4)])
    func downPressRefusal(version: OSVersion) {
        let device = SimulatedDevice(.init(osVersion: version, volume: 0.5))
        let clients = device.clients
        let view = clients.systemVolume.installVolumeView {}
        device.advance(by: 0.2)
        device.hold(.down, for: 0.5)
        clients.systemVolume.setVolume(0.5)
        device.advance(by: 0.05)
        let refused = version >= OSVersion(11)
        #expect(device.volume == (refused ? 0.4375 : 0.5))
        clients.systemVolume.setVolume(0.49)
        device.advance(by: 0.05)
        #expect(device.volume == 0.49)
        clients.systemVolume.setVolume(0)
        device.advance(by: 0.05)
        #expect(device.volume == 0)
        device.advance(by: 0.5)
        clients.systemVolume.setVolume(0.5)
        device.advance(by: 0.05)
        #expect(device.volume == 0.5, "after the press the set is accepted")
        view.cancel()
    }

    @Test("outputVolume is stale and KVO silent until the session is active and has played audio")
    func staleUntilPrimed() throws {
        let device = SimulatedDevice(.init(volume: 0.5))
        let clients = device.clients
        let probe = AppProbe(device)
        try clients.audioSession.setActive(true, false)
        device.press(.up)
        device.advance(by: 0.2)
        #expect(clients.systemVolume.outputVolume() == 0.5)
        #expect(probe.kvo.current.isEmpty)
        clients.audioSession.primeOutput()
        #expect(clients.systemVolume.outputVolume() == 0.5625)
        device.press(.up)
        device.advance(by: 0.2)
        #expect(probe.kvo.current == [0.625])
    }

    @Test("Background and an interruption without an end stop KVO until the session is re-activated")
    func backgroundAndInterruptionStopKVO() throws {
        let device = SimulatedDevice(.init(volume: 0.5))
        let probe = try AppProbe.listening(on: device)
        device.background()
        device.foreground()
        device.press(.up)
        device.advance(by: 0.2)
        #expect(probe.kvo.current.isEmpty)
        try device.clients.audioSession.setActive(true, false)
        device.press(.up)
        device.advance(by: 0.2)
        #expect(probe.kvo.current == [0.625])
        device.interruption(began: true)
        device.press(.up)
        device.advance(by: 0.2)
        #expect(probe.kvo.current == [0.625])
        #expect(probe.lifecycle.current.contains(.interruptionBegan))
    }

    @Test("During a phone call the buttons change the call volume and the app sees nothing")
    func phoneCallVolume() throws {
        let device = SimulatedDevice(.init(volume: 0.5))
        let probe = try AppProbe.listening(on: device)
        _ = device.addVolumeView()
        device.phoneCall(began: true)
        let callBefore = device.callVolume
        device.press(.up)
        device.advance(by: 0.2)
        #expect(device.volume == 0.5)
        #expect(device.callVolume == callBefore + 0.0625)
        #expect(probe.kvo.current.isEmpty && probe.notifications.current.isEmpty)
        #expect(throws: SimulatedDeviceError.insufficientPriority) {
            try device.clients.audioSession.setActive(true, false)
        }
    }

    @Test("Headphones and speaker keep separate volumes")
    func routesKeepTheirVolumes() throws {
        let device = SimulatedDevice(.init(volume: 0.5, headphonesVolume: 0.25))
        let probe = try AppProbe.listening(on: device)
        device.connect(.headphones)
        device.advance(by: 0.1)
        #expect(device.volume == 0.25)
        device.press(.up)
        device.advance(by: 0.2)
        device.connect(.speaker)
        device.advance(by: 0.1)
        #expect(device.volume == 0.5)
        #expect(device.volume(on: .headphones) == 0.3125)
        #expect(probe.lifecycle.current.contains(.routeChanged(.headphones)))
    }

    @Test("The Control Center slider sets any value while the app is inactive")
    func controlCenterSlider() throws {
        let device = SimulatedDevice(.init(volume: 0.5))
        let probe = try AppProbe.listening(on: device)
        device.controlCenterSlider(0.33)
        device.advance(by: 0.3)
        #expect(device.appState == .inactive)
        device.advance(by: 0.3)
        #expect(abs(device.volume - 0.33) < 1e-6)
        #expect(device.appState == .active)
        #expect(probe.lifecycle.current == [.willResignActive, .didBecomeActive])
        #expect(probe.kvo.current == [0.33])
    }

    @Test("A crash ends the app without cleanup: the device keeps its volume and the old process's clients do nothing")
    func crashKeepsVolume() throws {
        let device = SimulatedDevice(.init(volume: 0.5))
        let old = device.clients
        _ = old.systemVolume.installVolumeView {}
        device.advance(by: 0.2)
        old.systemVolume.setVolume(0.8)
        device.advance(by: 0.1)
        device.crash()
        #expect(device.volume == 0.8)
        #expect(!device.isAppRunning)
        old.systemVolume.setVolume(0.1)
        device.advance(by: 0.2)
        #expect(device.volume == 0.8)
        old.keyValueStore.setData(Data([1]), "k")
        device.launch()
        #expect(device.clients.keyValueStore.data("k") == Data([1]), "the store survives")
        #expect(device.volumeViewCount == 0)
    }
}
