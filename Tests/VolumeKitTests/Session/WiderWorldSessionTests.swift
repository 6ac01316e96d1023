import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Sessions of the wider world's sweep (issue 22, item 4) that VolumeKit got wrong, replayed as the sweep ran
/// them (strategy, envelope sample, seed): each must now end at the user's volume on every route and pass the
/// event oracle. Each names the defect it found.
@Suite("The wider world's sweep sessions, fixed")
struct WiderWorldSessionTests {
    @Test(
        "Fixed sessions end at the user's volume and every press is right",
        arguments: [
            // A route change before the volume view was ready swallowed the first press.
            (SimulatedStrategy.outputVolume, 4600, 36_427_400), (.outputVolume, 593, 4_695_968),
            // A camera taking the session again before the view was ready left it inactive (system HUD).
            (.systemNotification, 52, 411_789),
            // Back on a route without volume control after a call: volumeControlUnavailable again.
            (.outputVolume, 4122, 32_642_118),
            // A read after a take-over equal to the value last seen became the user's volume.
            (.outputVolume, 1113, 8_813_848), (.outputVolume, 4886, 38_692_234),
            // A recovery took the late KVO of the value it had read for a new change.
            (.outputVolume, 453, 3_587_308), (.systemNotification, 453, 3_587_308),
            // A stopping recovery ignored a take-over and set its restore again blind.
            (.outputVolume, 4457, 35_294_983),
        ] as [(SimulatedStrategy, UInt64, UInt64)])
    func fixed(strategy: SimulatedStrategy, sample: UInt64, seed: UInt64) {
        let session = RandomSession.replayed(strategy, sample: sample, seed: seed)
        #expect(session.violations().isEmpty, "\(session.violations())")
        #expect(session.eventVerdict().violations.isEmpty, "\(session.eventVerdict().violations.map(\.summary))")
    }
}
