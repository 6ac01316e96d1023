import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// A route change nothing reports (`routeNotification=missing`, both routes at one volume) followed by presses
/// toward the rail that volume sits at: nothing moves, so nothing tells VolumeKit the route changed.
@Suite("A route change nothing reports, then presses at a rail")
struct UnseenRouteChangeTests {
    @Test("Counted apart as unobservable, and only that: the session's other failures still count")
    func unseenAtRail() {
        // Held-out sample 21050: from AirPlay (no volume control, 1.0) to the receiver at 1.0 with no notification;
        // six up presses there change nothing.
        let session = RandomSession.replayed(.outputVolume, sample: 21050, seed: 166_694_951)
        let verdict = session.eventVerdict()
        #expect(verdict.ok, "\(verdict.violations)")
        let names = Set(verdict.excused.filter { $0.violation.kind == .missedPress }.map(\.limit))
        #expect(names == [OracleLimit.routeChangeUnseenAtRail.name])
        #expect(verdict.excused.filter { $0.limit == OracleLimit.routeChangeUnseenAtRail.name }.count == 6)
    }
}
