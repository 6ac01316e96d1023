import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Sessions of the held-out range 80,000–84,999, analysed after the range 70,000 was fixed against: each a defect
/// fixed, replayed with the verdict it has now.
@Suite("The held-out range 80,000: its sessions' events")
struct HeldOutRange80000Tests {
    @Test("A change no press can make, landing on a set's value before an earlier set, is no suspect press")
    func noSuspectWherePressesCannotLand() {
        // Sample 83344 (a grid-snapping phone): an up press snaps the Bluetooth route to 0.125 and is reported; its
        // resets 0.10024 and 0.1 are on their way when the headset's stored 0.1 synchronises. Taking the 0.1 set's
        // echo before the earlier set landed, the observation was a suspect down press — proven by that landing,
        // and reported with no press near it: 0.125 → 0.1 is neither a step nor onto the grid.
        let session = RandomSession(seed: 660_001_136, behaviour: .sample(83344), strategy: .systemNotification)
        session.run(length: 14)
        let verdict = session.eventVerdict()
        #expect(verdict.violations.isEmpty, "\(verdict.violations)")
    }
}
