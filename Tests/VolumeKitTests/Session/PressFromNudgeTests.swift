import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// A crash in the middle of a burst of presses, or after a long hold, leaves VolumeKit's own nudges (1/4096 each)
/// in the volume; the user's presses made from there afterwards are whole steps from their own volume (issue 11),
/// also where the presses snap to the 1/16 grid.
@Suite("After a crash, presses from VolumeKit's nudges are whole steps from the user's volume")
struct PressFromNudgeTests {
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

    /// Sample 373's device, VolumeKit holding the user's 1.0 at 0.875, crashed 0.1 s after three down presses
    /// 0.25 s apart (a nudge below the anchor left on the device).
    private static func crashedMidBurst() throws -> SimulatedDevice {
        let device = SimulatedDevice(.init(volume: 1.0, behaviour: .sample(373)))
        let engine = VolumeButtonsEngine(
            configuration: .fixedHeadroom, clients: device.clients,
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

    @Test("Presses after a crash that left more than eight nudges: whole steps from the user's exact volume")
    func pressesFromManyNudgesAfterCrash() throws {
        // VolumeKit held the user's 0.5 through twelve down presses, a nudge below it after each; after the crash
        // the user pressed up twice from about 0.497. Their choice is two steps up from their 0.5.
        let (left, volume) = try Self.upTwiceAfterCrash(downPresses: 12)
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
        let sets = actions.setValues
        #expect(!sets.isEmpty && sets.allSatisfy { $0 < 0.875 && $0 > 0.875 - RecoveryRule.tolerance })
    }
}

extension PressFromNudgeTests {
    /// VolumeKit holds the user's 0.5 through `downPresses` quick down presses (a nudge below it after each), the
    /// app crashes, the user presses up twice, and the app's launch recovery runs: the volume VolumeKit's nudges
    /// left at the crash, and the volume at the end.
    static func upTwiceAfterCrash(downPresses: Int) throws -> (left: Float, volume: Float) {
        let device = SimulatedDevice(.init(volume: 0.5))
        let engine = VolumeButtonsEngine(
            configuration: .fixedHeadroom, clients: device.clients,
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
