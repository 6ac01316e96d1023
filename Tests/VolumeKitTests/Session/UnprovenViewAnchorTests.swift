import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// A record written before this run's volume view proved it takes sets keeps where the volume was left — and, once
/// this run sets an anchor of its own through that view, the anchor too: the set may land or be lost, and either
/// value is VolumeKit's after a crash (`RestoreBook.sync`).
@Suite("A new anchor set through a volume view not proven yet is in the crash record")
struct UnprovenViewAnchorTests {
    @Test("A call ends on a route with an older record, the anchor is set anew, and the app crashes at once")
    func anchorSetThroughUnprovenViewThenCrash() {
        // Held-out session outputVolume 94018: the speaker's record from earlier in the session (held 0.25, the
        // user's 0) waits while a call moves the audio there. The call ends, VolumeKit gives back 0 and sets its
        // anchor 0.1875 through a view that has not shown a set landing yet — and the app crashes at that instant.
        // The sets land; the record still named only 0.25, so the recovery read 0.1875 as a press down from it and
        // kept it as the user's.
        let session = RandomSession.replayed(.outputVolume, sample: 94018, seed: 744_528_543)
        #expect(session.violations() == [])
    }

    @Test("Back on a route with an older record, the anchor set and the route left again before it is seen")
    func anchorSetThroughUnprovenViewThenRouteLeft() {
        // Held-out session outputVolume 91955: after a crash and a launch, the audio comes back to the speaker, whose
        // record (held and left 0.25, the user's 0.01) is older than the new run's view; VolumeKit sets its anchor
        // 0.125 there, and 0.3 s later the headphones take the audio, the set landing on the speaker unseen. The
        // record still named only 0.25: the speaker's 0.125 read as the user's for good.
        let session = RandomSession.replayed(.outputVolume, sample: 91955, seed: 728_191_646)
        #expect(session.violations() == [])
    }
}
