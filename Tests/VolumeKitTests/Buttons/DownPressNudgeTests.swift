import Foundation
import Testing

@testable import VolumeKitCore

/// What a down press may still refuse (seed 000: a set at or above the value before the press, other than 0), as
/// `DownPressNudge` bounds it: by the start of the press that may still be held — a down step sooner after a press
/// began than any first auto-repeat begins a press of its own — and the nudges it sets off the 1/16 grid.
@Suite("What a held down press may refuse, and the nudges below the anchor")
struct DownPressNudgeTests {
    @Test("A down step sooner after a press began than any first auto-repeat is a new press: its start is the bound")
    func quickTapsBoundByTheLastPress() {
        var nudge = DownPressNudge()
        nudge.step(.down, from: 1.0, at: 10)
        nudge.step(.down, from: 0.9375, at: 10 + DownPressNudge.newPressWithin - 0.01)
        // A landing at 0.9375 shows the second press over; under the first press's bound (1.0) it would not.
        #expect(nudge.isPressOver(landingOn: 0.9375))
        #expect(!nudge.isPressOver(landingOn: 0.875))
    }

    @Test("A step on a hold's rhythm, or one whose time is not known, keeps the highest start as the bound")
    func holdKeepsTheHighestStart() {
        var hold = DownPressNudge()
        hold.step(.down, from: 1.0, at: 10)
        hold.step(.down, from: 0.9375, at: 10 + DownPressNudge.newPressWithin + 0.01)  // a first auto-repeat
        hold.step(.down, from: 0.875, at: 10.4)  // the repeats after it, whatever their pace
        #expect(!hold.isPressOver(landingOn: 0.9375), "the hold from 1.0 may still refuse it")
        #expect(hold.isPressOver(landingOn: 1.0))
        var proven = DownPressNudge()
        proven.step(.down, from: 1.0, at: 10)
        proven.step(.down, from: 0.9375, at: nil)  // a suspect press proven later
        #expect(!proven.isPressOver(landingOn: 0.9375))
    }

    @Test("An up step ends the bound: any landing of ours shows no down press held")
    func upStepEndsTheBound() {
        var nudge = DownPressNudge()
        nudge.step(.down, from: 1.0, at: 10)
        nudge.step(.up, from: 0.9375, at: 10.1)
        #expect(nudge.isPressOver(landingOn: 0.5))
    }

    @Test("A user's change among presses: may refuse a value at or above where the held press started, not below it")
    func mayRefuseOnlyFromThePressStart() {
        var nudge = DownPressNudge()
        _ = nudge.target(after: 0.6875, from: 0.75, holding: 0.75, nothingInFlight: true)
        nudge.nudgedBelow()
        nudge.step(.down, from: 0.75, at: 10)
        #expect(nudge.mayRefuse(0.75))
        #expect(nudge.mayRefuse(0.875))
        #expect(!nudge.mayRefuse(0.6875))
        nudge.anchorSet()
        nudge.anchorSeen()
        #expect(!nudge.mayRefuse(0.75), "the anchor seen since: the press was over")
    }
}
