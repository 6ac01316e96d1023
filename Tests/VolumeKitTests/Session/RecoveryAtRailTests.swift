import Foundation
import Testing
import VolumeKitCore

/// Recovery after a crash near a rail (issue 11, found by the envelope sweep, sample 17: the user's volume
/// 0.01, a crash, then presses down to 0 before the app comes back).
@Suite("Recovery near a rail")
struct RecoveryAtRailTests {
    @Test("Presses that reach 0 or 1 after a crash are the user's choice, though they moved less than a step")
    func pressToRailAfterCrash() {
        let record = PendingRestore(userVolume: 0.01, heldVolume: 0.01, savedAtUptime: 10)
        #expect(RecoveryRule.decide(record, currentVolume: 0, uptime: 11) == .discard(.userChangedVolume))
        let top = PendingRestore(userVolume: 0.99, heldVolume: 0.99, savedAtUptime: 10)
        #expect(RecoveryRule.decide(top, currentVolume: 1, uptime: 11) == .discard(.userChangedVolume))
        // VolumeKit's own nudge near a rail is still given back.
        #expect(RecoveryRule.decide(record, currentVolume: 0.0098, uptime: 11) == .restore(0.01))
        // A rail VolumeKit left the route at (a press at the rail while a reset flew) is its own.
        let left = PendingRestore(userVolume: 0.5, heldVolume: 0.125, savedAtUptime: 10, leftVolume: 0)
        #expect(RecoveryRule.decide(left, currentVolume: 0, uptime: 11) == .restore(0.5))
    }
}
