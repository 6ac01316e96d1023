import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// A press toward 0 or 1 while the volume is already there changes nothing `outputVolume` reports: when VolumeKit
/// moves the volume off such a rail to the user's value, it says so (randomized sessions outputVolume 3851-30496069,
/// 4687-37116353, 4998-39579162: a restore to 0 lands over the user's press, the user presses down at 0 unseen).
@Suite("Presses at a rail VolumeKit cannot see are reported")
struct RailPressTests {
    /// Stops while holding `anchor` for a user at `user`; the user presses down once before the restore lands;
    /// then every set the stop issued lands. Returns every action after the press.
    private func restoreLandingAfterPress(user: Float, rails: Bool = false) -> [VolumeStepMachine.Action] {
        var machine = VolumeStepMachine(configuration: .init(reportsPressesAtRails: rails))
        _ = machine.start(volume: 0.125, userVolume: user, at: 0)
        let restore = machine.stop(at: 1).setValues
        var actions = machine.observe(0.0625, at: 1.01)
        for (offset, value) in restore.enumerated() {
            actions += machine.observe(value, at: 1.02 + Double(offset) * 0.001)
        }
        return Array(actions)
    }

    @Test("A restore of ours landing at 0 over the user's press: the user's value is put back, and reported")
    func restoreLandsAtRail() {
        let actions = restoreLandingAfterPress(user: 0)
        #expect(actions.contains(.leavesRailUnobserved(0)))
        #expect(actions.contains(.setVolume(0.0625)), "the press's value is put back")
    }

    @Test("Away from a rail, or where presses at the rails are reported, nothing is said")
    func notAtRail() {
        #expect(
            !restoreLandingAfterPress(user: 0.25).contains {
                if case .leavesRailUnobserved = $0 { true } else { false }
            })
        #expect(!restoreLandingAfterPress(user: 0, rails: true).contains(.leavesRailUnobserved(0)))
    }

    @Test("A change to a rail read live on return is no press when its own late notification arrives; a press is")
    func readChangeAtRail() {
        func afterReturn(observedAt delay: TimeInterval) -> [VolumeStepMachine.Action] {
            var machine = VolumeStepMachine(configuration: .init(reportsPressesAtRails: true))
            _ = machine.start(volume: 0.5, at: 0)
            _ = machine.suspend(at: 1)
            // A Bluetooth headset's volume synchronised to 1 while the app was inactive, read on its return.
            let resumed = machine.resume(volume: 1, at: 2)
            #expect(resumed.contains(.userVolumeChanged(1)))
            return Array(machine.observe(1, at: 2 + delay))
        }
        #expect(!afterReturn(observedAt: 0.01).contains(.steps(.up, count: 1)), "the read's own change, observed late")
        #expect(afterReturn(observedAt: 0.5).contains(.steps(.up, count: 1)), "later: a press at the top rail")
    }

    @Test(
        "A recovery that gives the volume back from the 0 a crashed run's refused resets left says so (4789-37924092)")
    func recoveryFromWalkedRail() throws {
        let behaviour = try DeviceBehaviour(rules: [
            "tapLength=0.15", "volumeCacheDelay=0.06", "sliderLatency=0.1", "downPressRefusal=seedShape",
        ])
        let device = SimulatedDevice(.init(volume: 0.0625, headphonesVolume: 0.5, behaviour: behaviour))
        let engine = VolumeButtonsEngine(configuration: .init(), clients: device.clients, onEvent: { _ in })
        try engine.start()
        device.advance(by: 1.2)
        for _ in 0..<4 {
            device.press(.down)
            device.advance(by: 0.08)
        }
        #expect(device.volume <= 0, "the refused resets let the presses walk the volume to 0")
        device.crash()
        device.advance(by: 0.3)
        let reported = Locked([VolumeButtonsDiagnostic]())
        device.launch()
        VolumeRecovery.recoverIfNeeded(
            device.clients, onDiagnostic: { diagnostic in reported.withLock { $0.append(diagnostic) } },
            completion: { _ in })
        device.advance(by: 2)
        #expect(abs(device.volume - 0.0625) < 1e-4, "the user's volume is back")
        #expect(reported.current.contains(.railPressesUnseen(0)))
    }
}
