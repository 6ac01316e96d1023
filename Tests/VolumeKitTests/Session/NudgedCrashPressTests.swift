import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// A crash in the middle of a burst of presses leaves VolumeKit's own nudges (1/4096 each) in the volume; the
/// user's presses made from there afterwards are whole steps from their own volume (issue 11).
@Suite("Crash mid-burst, then the user's presses from VolumeKit's nudges")
struct NudgedCrashPressTests {
    @Test("Presses after a crash that left nudges below the user's volume: whole steps from their exact volume")
    func pressesFromNudgeAfterCrash() throws {
        // sessions systemNotification-5239-41487641, -7909-62631372, -8149-64531931, -8676-68705244 and
        // outputVolume-8149, -8676: VolumeKit held the user's 0.5 and had set nudges below it after each down
        // press; after the crash the user pressed up twice from 0.499 (0.624). Their choice is two steps up from
        // their 0.5 — VolumeKit's nudges are no part of it — as VolumeKit counts a press while not capturing.
        let (left, volume) = try Self.upTwiceAfterCrash(downPresses: 4)
        #expect(left < 0.5 - 1e-4 && left > 0.5 - VolumeStepMachine.residueTolerance, "nudges left: \(left)")
        #expect(volume == 0.625, "two steps up from the user's 0.5, not from VolumeKit's nudge \(left)")
    }

    @Test("The rule: whole steps from VolumeKit's nudges are presses from the user's volume; anything else is as it is")
    func pressFromNudgeRule() {
        let record = PendingRestore(userVolume: 0.0625, heldVolume: 0.0625, savedAtUptime: 10)
        // Four nudges below, then a press up (sn-5239).
        #expect(RecoveryRule.decide(record, currentVolume: 0.0625 - 4.0 / 4096 + 0.0625, uptime: 11) == .restore(0.125))
        // A nudge above (after an up press), then a press down, read rounded to 1e-4.
        #expect(RecoveryRule.decide(record, currentVolume: 0.0002, uptime: 11) == .restore(0))
        // Eight nudges below 0.47, two presses up, the read rounded (0.5930469 reads 0.593: ov-1221).
        let held = PendingRestore(userVolume: 0.47, heldVolume: 0.47, savedAtUptime: 10)
        #expect(RecoveryRule.decide(held, currentVolume: 0.593, uptime: 11) == .restore(0.595))
        // Further from whole steps than VolumeKit's nudges, or exactly on them: the user's value as it is.
        let farther = RecoveryRule.decide(held, currentVolume: 0.47 - 12.0 / 4096 + 0.125, uptime: 11)
        #expect(farther == .discard(.userChangedVolume))
        #expect(RecoveryRule.decide(held, currentVolume: 0.6, uptime: 11) == .discard(.userChangedVolume))
        #expect(RecoveryRule.decide(held, currentVolume: 0.595, uptime: 11) == .discard(.userChangedVolume))
        // Nudges below an anchor that is not the user's volume (headroom): not a press from theirs.
        let anchor = PendingRestore(userVolume: 1.0, heldVolume: 0.9375, savedAtUptime: 10)
        let belowAnchor = RecoveryRule.decide(anchor, currentVolume: 0.9375 - 1.0 / 4096 - 0.0625, uptime: 11)
        #expect(belowAnchor == .discard(.userChangedVolume))
    }
}

extension NudgedCrashPressTests {
    /// VolumeKit holds the user's 0.5 through `downPresses` quick down presses (a nudge below it after each), the
    /// app crashes, the user presses up twice, and the app's launch recovery runs: the volume VolumeKit's nudges
    /// left at the crash, and the volume at the end.
    static func upTwiceAfterCrash(downPresses: Int) throws -> (left: Float, volume: Float) {
        let device = SimulatedDevice(.init(volume: 0.5))
        let engine = VolumeButtonsEngine(
            configuration: VolumeButtonsConfiguration(strategy: .outputVolume), clients: device.clients,
            onEvent: { _ in })
        try engine.start()
        device.advance(by: 1.5)
        for _ in 0..<downPresses {
            device.press(.down)
            device.advance(by: 0.08)
        }
        device.crash()
        device.advance(by: 0.3)
        let left = device.volume
        device.press(.up)
        device.advance(by: 0.3)
        device.press(.up)
        device.advance(by: 0.3)
        device.launch()
        VolumeRecovery.recoverIfNeeded(device.clients) { _ in }
        device.advance(by: 1.5)
        return (left, device.volume)
    }
}
