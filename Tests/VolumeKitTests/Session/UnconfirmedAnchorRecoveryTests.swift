import Foundation
import Testing
import VolumeKitTesting

@testable import VolumeKitCore

/// A crash while the anchor set after a down press is refused (issue 11, ov-6070): iOS 11+ refuses sets during a
/// held down press (seed 000), so the volume stays at VolumeKit's nudge below the anchor; on a device whose presses
/// snap to the 1/16 grid, the user's press up from there after the crash ends exactly on the anchor — the value the
/// recovery takes for VolumeKit's. Both worlds (that press, or none with the set landed) read the same: a limit,
/// reported by the recovery.
@Suite("A crash with the anchor set refused after a down press")
struct UnconfirmedAnchorRecoveryTests {
    /// The user's 0.0625 held at the anchor 0.125 on a grid device; a down press held 0.41 s (the anchor set after
    /// it comes while it is still held, and is refused), then a crash 0.09 s after the release.
    private static func crashed() throws -> CaptureRun {
        let run = try CaptureRun(
            ["stepQuantization=grid", "downPressRefusal=seedShape"], volume: 0.0625)
        #expect(run.device.volume == 0.125)
        run.device.hold(.down, for: 0.41)
        run.device.advance(by: 0.5)
        #expect(run.device.log.contains { if case .setRefused(_, 0.125) = $0 { true } else { false } })
        run.device.crash()
        return run
    }

    @Test("The record says the anchor set was not seen to land")
    func recordSaysUnconfirmed() throws {
        let run = try Self.crashed()
        let record = try #require(PendingRestores.load(from: run.device.clients.keyValueStore).byRoute[.speaker])
        #expect(record.heldVolume == 0.125)
        #expect(record.heldSetUnconfirmed == true)
        #expect(record.nudgedBelowHeld == nil)
    }

    @Test("A grid press from the nudge onto the anchor after the crash: undone, and reported")
    func pressOntoAnchorReported() throws {
        let run = try Self.crashed()
        run.device.advance(by: 0.1)
        run.device.press(.up)
        run.device.advance(by: 0.3)
        #expect(run.device.volume == 0.125, "the press from the nudge snapped onto the anchor")
        let diagnostics = recover(run.device, launching: true, settle: 1.5).diagnostics
        #expect(run.device.volume == 0.0625, "the limit: taken for VolumeKit's value")
        #expect(diagnostics.contains(.recoveredAtUnconfirmedSet))
    }

    @Test("Without a press the volume is at the nudge: given back, nothing ambiguous to report")
    func noPressRestored() throws {
        let run = try Self.crashed()
        let diagnostics = recover(run.device, launching: true, settle: 1.5).diagnostics
        #expect(run.device.volume == 0.0625)
        #expect(!diagnostics.contains(.recoveredAtUnconfirmedSet))
    }

    @Test("The twin world: the anchor set landed, the crash came before its KVO — the same read, rightly given back")
    func landedUnseenTwin() throws {
        let run = try CaptureRun(
            ["stepQuantization=grid", "downPressRefusal=none", "kvoLatency=0.03"], volume: 0.0625)
        run.device.hold(.down, for: 0.41)
        run.device.advance(by: 0.405)
        #expect(run.device.volume == 0.125, "the anchor set landed; its KVO is still on its way")
        run.device.crash()
        let record = try #require(PendingRestores.load(from: run.device.clients.keyValueStore).byRoute[.speaker])
        #expect(record.heldSetUnconfirmed == true)
        let diagnostics = recover(run.device, launching: true, settle: 1.5).diagnostics
        #expect(run.device.volume == 0.0625, "here the held value was VolumeKit's: the user's volume is back")
        #expect(diagnostics.contains(.recoveredAtUnconfirmedSet))
    }

    @Test("A crash once the anchor has landed: nothing to report")
    func landedAnchorNotReported() throws {
        let run = try CaptureRun(
            ["stepQuantization=grid", "downPressRefusal=seedShape"], volume: 0.0625)
        run.device.press(.down)
        run.device.advance(by: 1)
        run.device.crash()
        let record = try #require(PendingRestores.load(from: run.device.clients.keyValueStore).byRoute[.speaker])
        #expect(record.heldSetUnconfirmed == nil)
        let diagnostics = recover(run.device, launching: true, settle: 1.5).diagnostics
        #expect(run.device.volume == 0.0625)
        #expect(!diagnostics.contains(.recoveredAtUnconfirmedSet))
    }
}

/// A crash just as VolumeKit moved its anchor (held-out session 21804): the record says the volume was last seen at
/// the old anchor (``PendingRestore/leftVolume``) and the new one is being set. Two presses from the new anchor, had
/// its set landed, end exactly on the old one, where a set that never landed leaves the volume too.
@Suite("A crash while moving the anchor")
struct MovedAnchorRecoveryTests {
    private static let record = PendingRestore(
        userVolume: 0.9375, heldVolume: 0.875, savedAtUptime: 10, bootTime: nil, leftVolume: 0.75)

    private static func recover(at volume: Float) -> RestoreBook.Recovery {
        var book = RestoreBook()
        book.records.byRoute[.speaker] = record
        return book.recover(AudioOutput(route: .speaker), volume: volume, at: 11, bootTime: nil, watchesRails: true)
    }

    @Test("From exactly the value it was moving away from: given back, and reported")
    func fromTheLeftValue() {
        let recovery = Self.recover(at: 0.75)
        #expect(recovery.userVolume == 0.9375)
        #expect(recovery.diagnostics == [.recoveredAtUnconfirmedSet])
    }

    @Test("From the value it was setting: given back, nothing ambiguous to report")
    func fromTheHeldValue() {
        let recovery = Self.recover(at: 0.875)
        #expect(recovery.userVolume == 0.9375)
        #expect(recovery.diagnostics.isEmpty)
    }
}

/// A crash while the set that takes the volume to the anchor at a start is still unconfirmed (sweep session
/// outputVolume 1337): the volume view is not ready, both sets of the anchor 0.1875 are dropped, the app crashes
/// 50 ms after the second, and three presses made before the next launch take the volume from 0 exactly onto the
/// anchor. Had the view been ready a moment sooner, the second set would have landed after the crash and the user's
/// volume stayed 0: the recovery reads 0.1875 either way, gives back 0, and says so.
@Suite("A crash while the start's anchor set is unconfirmed")
struct StartAnchorUnconfirmedTests {
    @Test("The record marks the anchor set unconfirmed; the recovery from it is reported, and the limit proved")
    func startAnchorDropped() {
        let session = RandomSession.replayed(.outputVolume, sample: 1337, seed: 10_587_704)
        #expect(session.diagnostics.current.contains(.recoveredAtUnconfirmedSet))
        #expect(session.violations() == ["external: volume 0.0, user's 0.1875"])
        #expect(session.finalVolumeLimit == "press after a crash onto a value of an unconfirmed set")
    }
}

/// Presses VolumeKit could not see because its session was not live — an interruption that never ended, then a
/// crash — ending on the held value of an earlier run whose anchor sets a volume view not ready dropped (held-out
/// session outputVolume 91817): the speaker's record says 0.75, never seen to land, for the user's 0.9375; during
/// the interruption the audio comes back to the speaker and eight presses down, after the crash five up, take it
/// from 0.9375 to 0.75 exactly. The recovery reads 0.75 as the set having landed (the commoner case), gives back
/// 0.9375 and says so — the world where VolumeKit's set landed and nobody pressed reads the same.
@Suite("Presses unseen during an interruption onto an unconfirmed set")
struct InterruptedPressesOntoUnconfirmedSetTests {
    @Test("The recovery is reported, and the limit proved only for presses VolumeKit could not see")
    func interruptedPressesOntoDroppedAnchor() {
        let session = RandomSession.replayed(.outputVolume, sample: 91817, seed: 727_098_824)
        #expect(session.diagnostics.current.contains(.recoveredAtUnconfirmedSet))
        #expect(session.violations() == ["speaker: volume 0.9375, user's 0.75"])
        #expect(session.finalVolumeLimit == "press after a crash onto a value of an unconfirmed set")
    }
}

/// A press captured through a volume view not ready yet, then a crash: its reset lands after the crash, and the
/// user's own press, app down, takes the volume back exactly onto the captured value (held-out session 90791): the
/// user's 0.22, the captured press to 0.2825, the reset 0.22 landing 40 ms after the crash, the user's press up to
/// 0.2825 again. The recovery reads 0.2825, where the crashed run last saw the volume with its reset unconfirmed,
/// and gives back 0.22, saying so — the world where the reset was lost and nobody pressed reads the same.
/// (Through outputVolume the session no longer comes there: an earlier run of it showed the phone refusing sets
/// during a down press, and the next start holds a step more headroom — the user's volume comes back exactly.)
@Suite("A press after a crash onto a captured press's value")
struct PressOntoCapturedValueTests {
    @Test("The recovery is reported, and the limit proved for a press back onto the value a captured press left")
    func pressOntoCapturedValue() {
        let session = RandomSession.replayed(.systemNotification, sample: 90791, seed: 718_973_930)
        #expect(session.diagnostics.current.contains(.recoveredAtUnconfirmedSet))
        #expect(session.violations() == ["speaker: volume 0.22, user's 0.2825"])
        #expect(session.finalVolumeLimit == "press after a crash onto a value of an unconfirmed set")
    }

    @Test("Through outputVolume, on a phone whose refusal an earlier run learned, the user's volume comes back")
    func outputVolumeAfterRefusalLearned() {
        let session = RandomSession.replayed(.outputVolume, sample: 90791, seed: 718_973_930)
        #expect(session.violations() == [])
        #expect(session.finalVolumeLimit == nil)
    }
}
