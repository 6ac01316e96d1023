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
}
