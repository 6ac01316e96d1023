import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// A crash in the middle of a burst of down presses, on a device whose presses snap to the 1/16 grid (issue 11).
@Suite("Crash mid-burst, then a press snapped onto the held value")
struct NudgedCrashGridPressTests {
    /// Sample 373's device, VolumeKit holding the user's 1.0 at 0.875, crashed 0.1 s after three down presses
    /// 0.25 s apart (a nudge below the anchor left on the device).
    private static func crashedMidBurst() throws -> SimulatedDevice {
        let device = SimulatedDevice(.init(volume: 1.0, behaviour: .sample(373)))
        let engine = VolumeButtonsEngine(
            configuration: VolumeButtonsConfiguration(strategy: .outputVolume), clients: device.clients,
            onEvent: { _ in })
        try engine.start()
        device.advance(by: 1.5)
        for _ in 0..<3 {
            device.press(.down)
            device.advance(by: 0.25)
        }
        device.advance(by: 0.1)
        device.crash()
        device.advance(by: 0.3)
        return device
    }

    @Test("A crash with a nudge below the anchor left, then a press up snapped onto the anchor: the press wins")
    func pressSnappedOntoAnchorAfterCrash() throws {
        // sessions outputVolume-373-2953788, -813-6438147, -2203-17445558: VolumeKit held 0.875 (the user's 1.0)
        // and had set a nudge below it after each down press (0.8728); after the crash the user's press up (the
        // recovery's session active, its view not ready yet) snapped onto 0.875 — exactly the held value — and
        // the recovery took it for VolumeKit's and set 1.0
        let device = try Self.crashedMidBurst()
        let left = device.volume
        device.launch()
        VolumeRecovery.recoverIfNeeded(device.clients) { _ in }
        device.advance(by: 0.3)
        device.press(.up)
        device.advance(by: 1.5)
        #expect(left > 0.87 && left < 0.875)
        #expect(device.volume == 0.875)
    }

    @Test("A crash with the nudge below the anchor left and no press since: the user's volume comes back")
    func crashMidBurstRestores() throws {
        let device = try Self.crashedMidBurst()
        device.launch()
        VolumeRecovery.recoverIfNeeded(device.clients) { _ in }
        device.advance(by: 1.5)
        #expect(device.volume == 1.0)
    }

    @Test("A down press seen before the anchor's set lands is reset just below the anchor, not to the press's value")
    func pressBeforeAnchorLandsResetsBelowAnchor() {
        // session outputVolume-2441-19330280: the user's 1.0, VolumeKit's anchor set 0.875 on its way; a press down
        // (0.9375) was seen before it landed, and VolumeKit's reset went to the press's own value (max(value,
        // nudge)), a whole step above the anchor until the buttons were quiet; a crash then left 0.9375, which
        // RecoveryRule takes for a press of the user's: their 1.0 was lost
        var machine = VolumeStepMachine()
        #expect(Array(machine.start(volume: 1.0, at: 0)).contains(.setVolume(0.875)))
        let actions = Array(machine.observe(0.9375, at: 0.2))
        #expect(actions.first == .steps(.down, count: 1))
        let sets = actions.compactMap { if case .setVolume(let value) = $0 { value } else { nil } }
        #expect(!sets.isEmpty && sets.allSatisfy { $0 < 0.875 && $0 > 0.875 - RecoveryRule.tolerance })
    }
}
