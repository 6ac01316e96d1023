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
}
