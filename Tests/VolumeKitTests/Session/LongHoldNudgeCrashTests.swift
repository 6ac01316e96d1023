import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// A long hold leaves more than eight of VolumeKit's nudges (1/4096 each) in the volume; a crash, then the user's
/// presses from there, are still whole steps from their own volume — down to the lowest value VolumeKit set, as
/// the record says (issue 11, systemNotification-10413-82460547, -14231-112695290).
@Suite("Crash after a long hold, then the user's presses from VolumeKit's nudges")
struct LongHoldNudgeCrashTests {
    @Test("Presses after a crash that left more than eight nudges: whole steps from the user's exact volume")
    func pressesFromManyNudgesAfterCrash() throws {
        // VolumeKit held the user's 0.5 through twelve down presses, a nudge below it after each; after the crash
        // the user pressed up twice from about 0.497. Their choice is two steps up from their 0.5.
        let (left, volume) = try NudgedCrashPressTests.upTwiceAfterCrash(downPresses: 12)
        #expect(left < 0.5 - VolumeStepMachine.residueTolerance - 1e-4 && left > 0.5 - 0.02, "nudges left: \(left)")
        #expect(volume == 0.625, "two steps up from the user's 0.5, not from VolumeKit's nudges \(left)")
    }

    @Test("The rule: below eight nudges only as far as the lowest value VolumeKit set while holding the user's own")
    func manyNudgesRule() {
        // Ten nudges below the user's 1.0, then a press down (sn-10413: 0.9975586 → 0.9350586).
        var record = PendingRestore(userVolume: 1.0, heldVolume: 1.0, savedAtUptime: 10)
        record.lowestVolume = 1.0 - 10.0 / 4096
        let pressed: Float = 1.0 - 10.0 / 4096 - 0.0625
        #expect(RecoveryRule.decide(record, currentVolume: pressed, uptime: 11) == .restore(0.9375))
        // Lower than the lowest value it set: the user's value as it is.
        let lower = RecoveryRule.decide(record, currentVolume: pressed - 4.0 / 4096, uptime: 11)
        #expect(lower == .discard(.userChangedVolume))
        // A record without the lowest value keeps the eight-nudge bound.
        let old = PendingRestore(userVolume: 1.0, heldVolume: 1.0, savedAtUptime: 10)
        #expect(RecoveryRule.decide(old, currentVolume: pressed, uptime: 11) == .discard(.userChangedVolume))
        // Held at a headroom anchor, not the user's volume: the eight-nudge bound too.
        var anchor = PendingRestore(userVolume: 0.9525, heldVolume: 0.9375, savedAtUptime: 10)
        anchor.lowestVolume = 0.9375 - 10.0 / 4096
        let fromAnchor = RecoveryRule.decide(anchor, currentVolume: 0.9375 - 0.0625, uptime: 11)
        #expect(fromAnchor == .discard(.userChangedVolume))
    }
}
