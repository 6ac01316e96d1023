import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// One test per rule of the wider world (issue 22, item 4): what an app or the user sees under each value.
@Suite("Simulated device: the wider world's rules")
struct DeviceWorldRuleTests {
    private func device(
        _ volume: Float = 0.5, _ os: OSVersion = OSVersion(17, 4), headphones: Float = 0.25,
        _ change: (inout DeviceBehaviour) -> Void = { _ in }
    ) -> SimulatedDevice {
        var behaviour = DeviceBehaviour()
        change(&behaviour)
        return SimulatedDevice(
            .init(osVersion: os, volume: volume, headphonesVolume: headphones, behaviour: behaviour))
    }

    private func controlCenterTimes(_ device: SimulatedDevice) -> [Double] {
        device.log.compactMap {
            if case .volume(let time, _, _, .controlCenter) = $0 { return time } else { return nil }
        }
    }

    @Test("Control Center drag length: a series spans the rule's length, values 0.06 s apart; the default is today's")
    func controlCenterDragLength() throws {
        let today = device { $0.controlCenterDrag = .series }
        today.controlCenterSlider(0.9)
        today.advance(by: today.controlCenterTime())
        let times = controlCenterTimes(today)
        #expect(times.count == 5 && zip(times, [0.1, 0.16, 0.22, 0.28, 0.34]).allSatisfy { abs($0 - $1) < 1e-9 })
        #expect(today.controlCenterTime() == 0.6 && today.appState == .active)
        let long = device {
            $0.controlCenterDrag = .series; $0.controlCenterDragLength = 1.2
        }
        let probe = try AppProbe.listening(on: long)
        long.controlCenterSlider(0.9)
        long.advance(by: 1)
        #expect(long.appState == .inactive, "Control Center is still open mid-drag")
        long.advance(by: long.controlCenterTime() - 1)
        let longTimes = controlCenterTimes(long)
        #expect(longTimes.count == 21 && abs(longTimes.last! - 1.3) < 1e-9)
        #expect(abs((probe.kvo.current.last ?? 0) - 0.9) < 1e-6 && long.appState == .active)
        let oneJump = device { $0.controlCenterDragLength = 1.5 }
        oneJump.controlCenterSlider(0.2)
        oneJump.advance(by: 0.6)
        #expect(controlCenterTimes(oneJump) == [0.3], "the length applies to a series only")
    }

    @Test("Background audio: a never-suspended app keeps its session and hears the volume in the background")
    func backgroundAudio() throws {
        for (rule, hears) in [(DeviceBehaviour.BackgroundAudio.suspends, false), (.neverSuspended, true)] {
            let device = device {
                $0.backgroundAudio = rule; $0.suspensionDelay = 2
            }
            let probe = try AppProbe.listening(on: device)
            device.background()
            device.advance(by: 30)
            device.press(.up)
            device.advance(by: 0.2)
            #expect(device.isSessionActive == hears, "\(rule)")
            #expect(probe.kvo.current == (hears ? [0.5625] : []), "\(rule)")
            #expect(probe.lifecycle.current.contains(.didEnterBackground))
        }
    }

    @Test(
        "Late interruption began: on return after a suspension, before or after active, on iOS 10.3 to 14.4 only",
        arguments: [
            (DeviceBehaviour.LateInterruptionBegan.none, OSVersion(14, 4), false),
            (.onResume, OSVersion(14, 4), true), (.afterActive, OSVersion(14, 4), true),
            (.onResume, OSVersion(15, 0), false), (.afterActive, OSVersion(16, 4), false),
        ])
    func lateInterruptionBegan(rule: DeviceBehaviour.LateInterruptionBegan, os: OSVersion, arrives: Bool) throws {
        let device = device(0.5, os) { $0.lateInterruptionBegan = rule }
        let probe = try AppProbe.listening(on: device)
        device.background()
        device.advance(by: 1)
        device.foreground()
        device.advance(by: 0.1)
        let events = probe.lifecycle.current
        #expect(events.contains(.interruptionBegan) == arrives, "\(rule) on iOS \(os)")
        if arrives, let began = events.firstIndex(of: .interruptionBegan),
            let active = events.firstIndex(of: .didBecomeActive)
        {
            #expect((began < active) == (rule == .onResume))
        }
        let sent = device.log.contains { if case .lateInterruptionBegan = $0 { true } else { false } }
        #expect(sent == (rule != .none && os < OSVersion(16)), "logged when iOS sends it")
        // Not suspended (back before the suspension delay), nothing was lost: no late began.
        let quick = self.device(0.5, os) {
            $0.lateInterruptionBegan = rule; $0.suspensionDelay = 5
        }
        let quickProbe = try AppProbe.listening(on: quick)
        quick.background()
        quick.advance(by: 1)
        quick.foreground()
        quick.advance(by: 0.1)
        #expect(!quickProbe.lifecycle.current.contains(.interruptionBegan))
    }

    private func buttonVolumes(_ device: SimulatedDevice) -> [Float] {
        device.log.compactMap { if case .volume(_, _, let value, .button) = $0 { return value } else { return nil } }
    }

    private func headsetPresses(_ device: SimulatedDevice) -> [PressContext] {
        device.truth.compactMap {
            if case .press(_, _, let context) = $0.action, context.source == .headset { context } else { nil }
        }
    }

    @Test("Headset buttons: a step as a side button, or the headset's own absolute level on Bluetooth")
    func headsetButtons() throws {
        for (rule, landing) in [
            (DeviceBehaviour.HeadsetButtons.sideButton, Float(0.5625)), (.absoluteVolume, 72 / 127),
        ] {
            let device = device(0.5, headphones: 0.5) { $0.headsetButtons = rule }
            let probe = try AppProbe.listening(on: device)
            device.headsetPress(.up)
            device.advance(by: 0.2)
            #expect(device.truth.isEmpty, "no headset on the speaker: nothing happens")
            device.connect(.bluetooth)
            device.headsetPress(.up)
            device.advance(by: 0.2)
            #expect(device.volume == landing, "\(rule)")
            #expect(probe.kvo.current.last == landing)
            #expect(buttonVolumes(device) == [landing], "a press's change (ExplicitVolumeChange)")
            let context = try #require(headsetPresses(device).first)
            #expect(context.visibility == .inFront && context.landedOn == landing)
            #expect(device.truth.last?.json.contains("\"source\":\"headset\"") == true)
            // A wired remote always steps as a side button does.
            device.connect(.headphones)
            device.headsetPress(.down)
            device.advance(by: 0.2)
            #expect(device.volume == 0.4375, "\(rule): wired, one step down")
        }
        // No auto-repeat, no capture event, and during a call the call volume.
        let call = device(0.5)
        call.connect(.headphones)
        call.phoneCall(began: true)
        call.headsetPress(.up)
        call.advance(by: 0.2)
        #expect(call.volume == 0.25 && abs(call.callVolume - 0.6625) < 1e-6)
    }

    @Test("The EU warning takes the first up press past the limit on a headset route; the next one goes through")
    func headphoneLimit() throws {
        let device = device(0.5, headphones: 0.6875) {
            $0.headphoneLimit = .euWarning; $0.headphoneLimitLevel = 0.75
        }
        let probe = try AppProbe.listening(on: device)
        device.press(.up)
        device.advance(by: 0.2)
        #expect(device.volume == 0.5625, "the speaker has no limit")
        device.connect(.headphones)
        device.press(.up)
        device.advance(by: 0.2)
        #expect(device.volume == 0.75, "up to the limit")
        device.press(.up)
        device.advance(by: 0.2)
        #expect(device.volume == 0.75, "the warning: nothing moved")
        #expect(device.log.contains { if case .volumeLimitWarning(_, .headphones) = $0 { true } else { false } })
        guard case .press(.up, _, let warned) = device.truth.last?.action else { throw CancellationError() }
        #expect(warned.volumeLimitWarning && device.truth.last?.json.contains("\"warning\":true") == true)
        device.headsetPress(.up)
        device.advance(by: 0.2)
        #expect(device.volume == 0.8125, "passed once, the next press goes through (a headset's too)")
        device.press(.down)
        device.advance(by: 0.2)
        device.press(.up)
        device.advance(by: 0.2)
        #expect(device.volume == 0.8125, "once per route")
        #expect(probe.kvo.current == [0.5625, 0.6875, 0.75, 0.8125, 0.75, 0.8125])
        let none = self.device(0.5, headphones: 0.75) { $0.headphoneLimitLevel = 0.75 }
        none.connect(.headphones)
        none.press(.up)
        none.advance(by: 0.2)
        #expect(none.volume == 0.8125, "the default: no limit")
    }

    @Test("Headphone Safety turns a loud headset volume down to the level; the user's volume from then on")
    func headphoneSafetyLowering() throws {
        let device = device(0.9, headphones: 0.9) { $0.headphoneLimitLevel = 0.625 }
        let probe = try AppProbe.listening(on: device)
        device.headphoneSafetyLowering()
        #expect(device.volume == 0.9, "not on the speaker")
        device.connect(.bluetooth)
        device.advance(by: 0.1)
        device.headphoneSafetyLowering()
        device.advance(by: 0.1)
        #expect(device.volume == 0.625 && probe.kvo.current.last == 0.625)
        #expect(device.truth.last?.action == .volume(0.625, by: "headphoneSafety"))
        #expect(device.log.contains { $0 == .volume(0.1, .bluetooth, 0.625, .otherSource("headphoneSafety")) })
        device.headphoneSafetyLowering()
        #expect(device.truth.count == 2, "at or below the level: nothing")
    }

    @Test("Bluetooth sync: a headset's stored volume is taken the rule's delay after it connects")
    func bluetoothSync() throws {
        for delay in [0.05, 2.0] {
            let device = device(0.5, headphones: 0.25) { $0.bluetoothSyncDelay = delay }
            let probe = try AppProbe.listening(on: device)
            device.connectBluetooth(syncingTo: 0.4)
            device.advance(by: delay - 0.01)
            #expect(device.volume == 0.25, "iOS's own memory of the headset first")
            device.advance(by: 0.02)
            #expect(device.volume == 0.4 && probe.kvo.current == [0.25, 0.4])
            #expect(device.truth.map(\.action) == [.route(.bluetooth), .volume(0.4, by: "bluetoothSync")])
            device.bluetoothSync(0.7)
            #expect(device.volume == 0.7, "a sync now")
        }
        let left = device(0.5) { $0.bluetoothSyncDelay = 1 }
        left.connectBluetooth(syncingTo: 0.9)
        left.advance(by: 0.5)
        left.connect(.speaker)
        left.advance(by: 1)
        #expect(left.volume(on: .bluetooth) == 0.25, "the headset left before its sync: nothing")
    }

    @Test("The oracle: a headset's press and a press the EU warning took need not be reported; a report matches them")
    func oracleOnOtherPresses() {
        var headset = PressContext(visibility: .inFront, sinceDisturbance: 5)
        headset.source = .headset
        var warned = PressContext(visibility: .inFront, sinceDisturbance: 5)
        warned.volumeLimitWarning = true
        let truth = [
            TruthRecord(time: 1, action: .press(.up, duration: 0.08, context: headset)),
            TruthRecord(time: 2, action: .press(.up, duration: 0.08, context: warned)),
        ]
        let run = PressOracle.Run(strategy: .outputVolume, behaviour: .default, captureWindows: [0..<10])
        #expect(PressOracle().judge(truth: truth, events: [], diagnostics: [], run: run).ok)
        let reported = [
            VolumeButtonEvent(button: .up, phase: .pressed, time: 1.01),
            VolumeButtonEvent(button: .up, phase: .released, time: 1.5),
        ]
        let verdict = PressOracle().judge(truth: truth, events: reported, diagnostics: [], run: run)
        #expect(verdict.ok, "\(verdict.violations.map(\.summary))")
    }

    @Test("A set handed over on the speaker that reaches the system after a move to AirPlay without a slider is lost")
    func setLandingOnAirPlay() {
        let device = device(0.5, headphones: 0.3) { $0.sliderLatency = 0.1 }
        let view = device.clients.systemVolume.installVolumeView {}
        device.advance(by: 1.1)
        device.clients.systemVolume.setVolume(0.8)
        device.advance(by: 0.05)
        device.connect(.external)
        device.advance(by: 0.1)
        #expect(device.volume(on: .external) == 0.3 && device.volume(on: .speaker) == 0.5)
        #expect(device.log.contains { if case .setIgnored(_, 0.8, _) = $0 { true } else { false } })
        view.cancel()
    }
}
