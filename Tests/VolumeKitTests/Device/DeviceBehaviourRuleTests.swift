import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// One test per uncertain rule: what an app or the user sees under each of its values.
@Suite("Simulated device: the uncertain rules")
struct DeviceBehaviourRuleTests {
    private func device(
        _ volume: Float = 0.5, _ os: OSVersion = OSVersion(17, 4), kind: DeviceKind = .iphone,
        _ change: (inout DeviceBehaviour) -> Void = { _ in }
    ) -> SimulatedDevice {
        var behaviour = DeviceBehaviour()
        change(&behaviour)
        return SimulatedDevice(
            .init(osVersion: os, kind: kind, volume: volume, headphonesVolume: 0.25, behaviour: behaviour))
    }

    private func buttonTimes(_ device: SimulatedDevice) -> [Double] {
        device.log.compactMap { if case .volume(let time, _, _, .button) = $0 { return time } else { return nil } }
    }

    /// A volume view that is ready, so the app's sets take effect.
    private func readyView(_ device: SimulatedDevice) -> CancellationHandle {
        let view = device.clients.systemVolume.installVolumeView {}
        device.advance(by: 1.1)
        return view
    }

    @Test("The hold rhythm: first repeat and later interval come from the behaviour")
    func holdRhythm() {
        let device = device {
            $0.firstRepeatDelay = 0.3; $0.repeatInterval = 0.06
        }
        device.hold(.up, for: 0.5)
        device.advance(by: 1)
        let times = buttonTimes(device)
        #expect(times.count == 5, "0, 0.3, 0.36, 0.42, 0.48")
        #expect(abs(times[1] - 0.3) < 1e-9 && abs(times[2] - 0.36) < 1e-9)
    }

    @Test("Tap length: a set during a longer down press is refused (seed shape)")
    func tapLength() {
        for (length, refused) in [(0.04, false), (0.15, true)] {
            let device = device { $0.tapLength = length }
            let view = readyView(device)
            device.press(.down)
            device.advance(by: 0.09)
            device.clients.systemVolume.setVolume(0.5)
            device.advance(by: 0.05)
            #expect(device.volume == (refused ? 0.4375 : 0.5), "tap \(length) s")
            view.cancel()
        }
    }

    @Test("Step quantization: exact from the value, snapped to the grid, or reads rounded")
    func stepQuantization() throws {
        let exact = device(0.1)
        exact.press(.up)
        exact.advance(by: 0.2)
        #expect(abs(exact.volume - 0.1625) < 1e-6)
        let grid = device(0.1) { $0.stepQuantization = .grid }
        grid.press(.up)
        grid.advance(by: 0.2)
        #expect(grid.volume == 0.125)
        grid.press(.down)
        grid.press(.down)
        grid.advance(by: 0.2)
        #expect(grid.volume == 0)
        let rounded = device(0.1) { $0.stepQuantization = .rounded }
        let probe = try AppProbe.listening(on: rounded)
        rounded.press(.up)
        rounded.advance(by: 0.2)
        #expect(abs(rounded.volume - 0.1625) < 1e-6, "the hardware moves by 1/16")
        #expect(probe.kvo.current == [0.1625], "the app reads 4 decimals")
        #expect(rounded.clients.systemVolume.outputVolume() == 0.1625)
        let offGrid = device(1.0 / 3) { $0.stepQuantization = .rounded }
        _ = try AppProbe.listening(on: offGrid)
        #expect(offGrid.clients.systemVolume.outputVolume() == 0.3333)
    }

    @Test("Down-press refusal: seed shape, cached-equal-set drop, or none")
    func downPressRefusal() {
        // Seed shape: during a held down press, a set back to the pre-press value is refused.
        for (rule, held) in [
            (DeviceBehaviour.DownPressRefusal.seedShape, Float(0.4375)), (.none, 0.5), (.cachedEqualSetDrop, 0.5),
        ] {
            let device = device {
                $0.downPressRefusal = rule; $0.volumeCacheDelay = 0.005
            }
            let view = readyView(device)
            device.hold(.down, for: 0.5)
            device.advance(by: 0.02)
            device.clients.systemVolume.setVolume(0.5)
            device.advance(by: 0.05)
            #expect(device.volume == held, "\(rule)")
            view.cancel()
        }
        // Cached-equal-set drop: a set equal to the slider's stale cache is dropped, up presses included.
        let device = device {
            $0.downPressRefusal = .cachedEqualSetDrop; $0.volumeCacheDelay = 0.05
        }
        let view = readyView(device)
        device.press(.up)
        device.advance(by: 0.01)
        device.clients.systemVolume.setVolume(0.5)
        device.advance(by: 0.1)
        #expect(device.volume == 0.5625, "the cache still read 0.5: the set was dropped")
        device.clients.systemVolume.setVolume(0.5)
        device.advance(by: 0.05)
        #expect(device.volume == 0.5, "once the cache caught up, the same set is applied")
        view.cancel()
    }

    @Test("KVO latency and slider latency delay what the app sees and what its sets do")
    func latencies() throws {
        let device = device {
            $0.kvoLatency = 0.03; $0.sliderLatency = 0.15
        }
        let probe = try AppProbe.listening(on: device)
        let view = readyView(device)
        device.press(.up)
        device.advance(by: 0.029)
        #expect(probe.kvo.current.isEmpty)
        device.advance(by: 0.002)
        #expect(probe.kvo.current == [0.5625])
        device.advance(by: 0.2)
        device.clients.systemVolume.setVolume(0.25)
        device.advance(by: 0.149)
        #expect(device.volume == 0.5625)
        device.advance(by: 0.002)
        #expect(device.volume == 0.25)
        view.cancel()
    }

    @Test("Idle buttons: with no active session and nothing playing, the ringer moves instead of the media volume")
    func idleButtonsMoveTheRinger() throws {
        let ringer = device { $0.idleButtons = .ringer }
        ringer.press(.up)
        ringer.advance(by: 0.2)
        #expect(ringer.volume == 0.5 && ringer.ringerVolume == 0.5625)
        #expect(ringer.systemHUDTimes.count == 1, "the ringer HUD shows")
        try ringer.clients.audioSession.setActive(true, false)
        ringer.press(.up)
        ringer.advance(by: 0.2)
        #expect(ringer.volume == 0.5625, "an active session gets the buttons")
        let media = device()
        media.press(.up)
        media.advance(by: 0.2)
        #expect(media.volume == 0.5625)
    }

    @Test("Control Center drag: one jump, or a series of values ending at the target")
    func controlCenterDrag() throws {
        for (rule, count) in [(DeviceBehaviour.ControlCenterDrag.oneJump, 1), (.series, 5)] {
            let device = device { $0.controlCenterDrag = rule }
            let probe = try AppProbe.listening(on: device)
            device.controlCenterSlider(0.9)
            device.advance(by: 0.7)
            #expect(probe.kvo.current.count == count, "\(rule)")
            #expect(abs((probe.kvo.current.last ?? 0) - 0.9) < 1e-6)
        }
    }

    @Test("Volume-view ready delay: the HUD shows and sets are lost until the view is ready")
    func volumeViewReadyDelay() throws {
        let device = device { $0.volumeViewReadyDelay = 1 }
        try device.clients.audioSession.setActive(true, false)
        let view = device.clients.systemVolume.installVolumeView {}
        device.advance(by: 0.5)
        device.press(.up)
        device.clients.systemVolume.setVolume(0.1)
        device.advance(by: 0.2)
        #expect(device.systemHUDTimes.count == 1)
        #expect(device.volume == 0.5625)
        device.advance(by: 0.4)
        device.press(.up)
        device.advance(by: 0.2)
        #expect(device.systemHUDTimes.count == 1, "ready after 1 s: hidden")
        view.cancel()
    }

    @Test("Own sets show the HUD without a visible ready view under shownWithoutVisibleView")
    func ownSetHUD() {
        for (rule, huds) in [(DeviceBehaviour.OwnSetHUD.hidden, 0), (.shownWithoutVisibleView, 1)] {
            let device = device { $0.ownSetHUD = rule }
            let view = readyView(device)
            device.clients.systemVolume.setVolume(0.3)
            device.advance(by: 0.1)
            #expect(device.systemHUDTimes.count == 0, "a visible ready view: hidden (\(rule))")
            device.controlCenterSlider(0.6)
            device.advance(by: 0.1)
            device.clients.systemVolume.setVolume(0.2)
            device.advance(by: 0.1)
            #expect(device.systemHUDTimes.count == huds, "the app inactive (\(rule))")
            view.cancel()
        }
    }

    @Test("Route notification: before the KVO, after it, or missing")
    func routeNotificationOrder() throws {
        for rule in DeviceBehaviour.RouteNotification.allCases {
            let device = device {
                $0.routeNotification = rule; $0.routeNotificationGap = 0.01
            }
            let order = Locked([String]())
            let clients = device.clients
            try clients.audioSession.setActive(true, false)
            clients.audioSession.primeOutput()
            let kvo = clients.systemVolume.observeOutputVolume { value in order.withLock { $0.append("kvo \(value)") } }
            let note = clients.lifecycle.observe { event in
                if case .routeChanged(let route) = event { order.withLock { $0.append("route \(route)") } }
            }
            device.connect(.headphones)
            #expect(clients.audioSession.currentRoute() == .headphones, "the route reads new at once")
            device.advance(by: 0.1)
            switch rule {
            case .beforeKVO: #expect(order.current == ["route headphones", "kvo 0.25"])
            case .afterKVO: #expect(order.current == ["kvo 0.25", "route headphones"])
            case .missing: #expect(order.current == ["kvo 0.25"])
            }
            kvo.cancel()
            note.cancel()
        }
    }

    @Test("External routes: without a slider the app's sets are lost there")
    func externalVolume() {
        for (rule, landed) in [(DeviceBehaviour.ExternalVolume.noSlider, false), (.slider, true)] {
            let device = device { $0.externalVolume = rule }
            let view = readyView(device)
            device.connect(.external)
            device.clients.systemVolume.setVolume(0.8)
            device.advance(by: 0.1)
            #expect((device.volume == 0.8) == landed, "\(rule)")
            view.cancel()
        }
    }

    @Test("Siri: the app goes inactive and back; the session is interrupted with or without an end, or not at all")
    func siriShape() throws {
        for rule in DeviceBehaviour.SiriShape.allCases {
            let device = device { $0.siriShape = rule }
            let probe = try AppProbe.listening(on: device)
            device.siri(for: 1)
            #expect(device.appState == .inactive)
            device.advance(by: 1.1)
            #expect(device.appState == .active)
            let events = probe.lifecycle.current
            #expect(events.contains(.interruptionBegan) == (rule != .inactiveOnly), "\(rule)")
            #expect(events.contains(.interruptionEnded(shouldResume: true)) == (rule == .interruptsWithEnd), "\(rule)")
            #expect(device.isSessionActive == (rule == .inactiveOnly))
        }
    }

    @Test("An alarm holds the audio while it rings: activation fails; it ends with or without an end")
    func alarm() throws {
        for sendsEnd in [true, false] {
            let device = device()
            let probe = try AppProbe.listening(on: device)
            device.alarm(for: 2, sendsEnd: sendsEnd)
            #expect(throws: SimulatedDeviceError.insufficientPriority) {
                try device.clients.audioSession.setActive(true, false)
            }
            device.advance(by: 2.1)
            try device.clients.audioSession.setActive(true, false)
            #expect(device.isSessionActive)
            #expect(probe.lifecycle.current.contains(.interruptionEnded(shouldResume: true)) == sendsEnd)
            #expect(device.appState == .active, "the app stayed in front")
        }
    }

    @Test("Session takeover: the category changes; KVO stops and the HUD comes back until the app activates again")
    func sessionTakeover() throws {
        for rule in DeviceBehaviour.SessionTakeover.allCases {
            let device = device { $0.sessionTakeover = rule }
            let probe = try AppProbe.listening(on: device)
            device.addVolumeView()
            device.advance(by: 0.2)
            device.takeOverSession(by: .player)
            #expect(device.sessionConfiguration?.category == .playback)
            #expect(probe.lifecycle.current.contains(.routeChanged(.speaker)), "a route change, reason categoryChange")
            device.press(.up)
            device.advance(by: 0.2)
            let stops = rule == .deactivates
            #expect(probe.kvo.current.isEmpty == stops, "\(rule)")
            #expect((device.systemHUDTimes.count == 1) == stops, "\(rule)")
            try device.clients.audioSession.setActive(true, false)
            device.press(.up)
            device.advance(by: 0.2)
            #expect(probe.kvo.current.last == 0.625, "re-taken")
        }
    }

    @Test("Suspension delay: the app's timers and KVO run for a while in the background")
    func suspensionDelay() throws {
        let device = device { $0.suspensionDelay = 5 }
        let probe = try AppProbe.listening(on: device)
        let fired = Locked(false)
        _ = device.clients.clock.schedule(1) { fired.withLock { $0 = true } }
        device.background()
        device.press(.up)
        device.advance(by: 2)
        #expect(fired.current, "still running 1 s after going to the background")
        #expect(probe.kvo.current == [0.5625])
        device.advance(by: 4)
        #expect(!device.isSessionActive, "suspended after 5 s")
        device.press(.up)
        device.advance(by: 0.2)
        #expect(probe.kvo.current == [0.5625])
    }

    @Test("Capture events reach only an app whose camera runs, unless anyApp")
    func captureEventsGate() {
        for rule in DeviceBehaviour.CaptureEventsGate.allCases {
            let device = device { $0.captureEventsGate = rule }
            let events = Locked([CaptureEvent]())
            let handle = device.clients.captureEvents.observe { event in events.withLock { $0.append(event) } }
            device.press(.down)
            device.advance(by: 0.2)
            #expect(events.current.isEmpty == (rule == .cameraRunning), "\(rule)")
            device.startCamera(configuresSession: false)
            device.press(.down)
            device.advance(by: 0.2)
            #expect(events.current.last == CaptureEvent(source: .primary, phase: .ended))
            handle.cancel()
        }
    }

    @Test(
        "iPad Silent mode silences system sounds under controlCenterToggle; the iPhone switch does nothing on an iPad")
    func iPadSilent() throws {
        for (rule, silenced) in [(DeviceBehaviour.IPadSilent.controlCenterToggle, true), (.none, false)] {
            let device = device(kind: .ipad) { $0.iPadSilent = rule }
            let sounds = device.clients.systemSounds
            let id = try sounds.create(URL(fileURLWithPath: "/probe.caf"))
            device.setMuteSwitch(on: true)
            sounds.play(id, false) {}
            device.setSilentMode(on: true)
            sounds.play(id, false) {}
            #expect(device.systemSoundPlays.map(\.played) == [true, !silenced], "\(rule)")
        }
    }
}
