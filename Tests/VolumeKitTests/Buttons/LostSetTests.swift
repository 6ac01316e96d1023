import Foundation
import Testing

@testable import VolumeKitCore

/// A set made through a volume view not proven to take sets may be lost, not only late (``VolumeViewReadiness``):
/// when observations stop, the machine takes it as landed but keeps where the volume was before it, until the next
/// read, observation or route change.
@Suite("Sets through a volume view not proven yet may be lost")
struct LostSetTests {
    /// Capture from 1/16 (the anchor 2/16 set through a view not ready: lost), a down press to 0 reported and its
    /// reset lost too; the app leaves (the user's 1/16 set back, through the same view) and is suspended, the sets
    /// taken as landed, `mayBeLost` as given.
    static func pressThenStop(mayBeLost: Bool) -> VolumeStepMachine {
        var machine = VolumeStepMachine()
        _ = machine.start(volume: 0.0625, at: 0)
        let press = machine.observe(0, at: 0.3)
        #expect(press.contains(.steps(.down, count: 1)))
        _ = machine.suspend(at: 0.4)
        _ = machine.assumeSetsLanded(at: 0.5, mayBeLost: mayBeLost)
        return machine
    }

    @Test("Read back long after at the value before the lost reset: the reset did not land, the user's volume stands")
    func readBackOfTheValueBefore() {
        var machine = Self.pressThenStop(mayBeLost: true)
        #expect(machine.mayHaveLeftAwayFromUser == 0, "the record keeps 0 as where VolumeKit may have left the route")
        let actions = machine.refresh(volume: 0, at: 3)
        #expect(!actions.contains { if case .userVolumeChanged = $0 { true } else { false } })
        #expect(machine.userVolume == 0.0625, "the press was captured: the user's 1/16 stands, to be set again")
        #expect(machine.mayHaveLeftAwayFromUser == nil, "a read ends it")

        // A set that can only have been late (a proven view): the same read, past the landing window, is the user's.
        var proven = Self.pressThenStop(mayBeLost: false)
        #expect(proven.mayHaveLeftAwayFromUser == nil)
        _ = proven.refresh(volume: 0, at: 3)
        #expect(proven.userVolume == 0)
    }

    @Test("An observation or a route change ends it: the value before the set no longer says where the volume is")
    func observationAndRouteChangeEndIt() {
        var observed = Self.pressThenStop(mayBeLost: true)
        _ = observed.observe(0.125, at: 1)
        #expect(observed.mayHaveLeftAwayFromUser == nil)
        #expect(!observed.setMayBeLost)

        var moved = Self.pressThenStop(mayBeLost: true)
        _ = moved.routeChanged(volume: 0.5, at: 1)
        #expect(moved.mayHaveLeftAwayFromUser == nil, "the old route's value says nothing of the new route")
        #expect(!moved.setMayBeLost)
    }

    @Test("A later stop with no set to take as landed keeps the set that may be lost")
    func laterStopKeepsIt() {
        // Sessions 72011 and 73236 (held-out range 70,000): the restore at a call's start is lost through a view not
        // ready; the background, or a second interruption, once the view counts as ready by time alone, stopped
        // observations again with no new set — and the record of where VolumeKit may have left the speaker went.
        var machine = Self.pressThenStop(mayBeLost: true)
        _ = machine.assumeSetsLanded(at: 3, mayBeLost: false)
        #expect(machine.mayHaveLeftAwayFromUser == 0, "nothing was read since the set that may be lost")
        _ = machine.refresh(volume: 0, at: 4)
        #expect(machine.mayHaveLeftAwayFromUser == nil, "a read ends it")
    }

    @Test("Only sets made before every phone of the envelope has the view ready may be lost")
    func lostOnlyBeforeTheSlowestReadiness() {
        let view = VolumeViewState.told(CancellationHandle.none, since: 10, setMade: true)
        #expect(view.mayHaveLost(setAt: 10.2))
        #expect(view.mayHaveLost(setAt: 10 + VolumeViewReadiness.slowest - 0.01))
        #expect(!view.mayHaveLost(setAt: 10 + VolumeViewReadiness.slowest + 0.01), "the view was ready by then")
        #expect(!view.mayHaveLost(setAt: nil))
        #expect(!VolumeViewState.ready(CancellationHandle.none).mayHaveLost(setAt: 10.2), "a proven view loses no set")
    }

    @Test("A crashed run's record kept through an unproven view takes the volume this run sees as where it was left")
    func keptRecordTakesTheVolumeSeen() throws {
        // Session outputVolume 3985 31557216: a crashed run left the speaker at 0.5585 (the user's 0.56 with its
        // nudges); presses in the background carried them on to 0.8085. Back in front the recovery reads the user's
        // 0.81 (whole steps from theirs), and its restore through a view not ready yet is lost; the app crashes again.
        var book = RestoreBook()
        let speaker = AudioOutput(route: .speaker)
        book.records[speaker] = PendingRestore(
            userVolume: 0.56, heldVolume: 0.56, savedAtUptime: 1, leftVolume: 0.55853516)
        var steps = VolumeStepMachine()
        _ = steps.startSuspended(volume: 0.80853516, userVolume: 0.81, at: 10)
        _ = book.sync(speaker, with: steps, unprovenSince: 9.9, at: 10, bootTime: nil)
        let record = try #require(book.records[speaker])
        #expect(record.userVolume == 0.81)
        // The next launch finds the volume where this run saw it: VolumeKit's, and the user's 0.81 is given back.
        #expect(RecoveryRule.decide(record, currentVolume: 0.80853516, uptime: 11) == .restore(0.81))
    }
}
