import Foundation
import Testing
import VolumeKitCore

/// Presses after a crash from where VolumeKit left a route (issue 11, ov-17746): a record holds the anchor 0.125
/// (the user's 0.0625) and a value a route change left elsewhere, 0.06201 — two nudges below the user's volume.
@Suite("Presses from a value VolumeKit left elsewhere")
struct LeftValuePressTests {
    let record: PendingRestore = {
        var record = PendingRestore(
            userVolume: 0.0625, heldVolume: 0.125, savedAtUptime: 1.5, bootTime: nil, leftVolume: 0.06201172)
        record.nudgedBelowHeld = true
        record.lowestVolume = 0.123046875
        return record
    }()

    @Test("One press from the anchor's nudge (0.12427 → 0.18677): the user's value as read")
    func pressFromAnchorNudge() {
        #expect(RecoveryRule.decide(record, currentVolume: 0.18676758, uptime: 10) == .discard(.userChangedVolume))
    }

    @Test("Two presses from the value left elsewhere (0.06201 → 0.18701): whole steps from the user's volume")
    func pressesFromLeftValue() {
        #expect(RecoveryRule.decide(record, currentVolume: 0.18701172, uptime: 10) == .restore(0.1875))
    }

    @Test("A value left elsewhere is one exact value: 0.02 below a left 1 is the user's choice")
    func belowTheLeftValue() {
        // Held-out session outputVolume 71843: the record holds the anchor 0.75 for the user's 1 and says the
        // speaker was left at 1; the user then chose 0.98 in Control Center, unseen (a call).
        let left = PendingRestore(userVolume: 1, heldVolume: 0.75, savedAtUptime: 1, bootTime: nil, leftVolume: 1)
        #expect(RecoveryRule.decide(left, currentVolume: 0.98, uptime: 10) == .discard(.userChangedVolume))
        #expect(RecoveryRule.decide(left, currentVolume: 1, uptime: 10) == .discard(.alreadyRestored))
        #expect(RecoveryRule.decide(left, currentVolume: 0.7499, uptime: 10) == .restore(1), "the held value's band")
    }
}
