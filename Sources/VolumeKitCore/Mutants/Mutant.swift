#if VOLUMEKIT_MUTANTS
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Defects planted on purpose, to prove the tests catch them (`scripts/mutants.sh`). Compiled only with
/// `-DVOLUMEKIT_MUTANTS` (that script's own build): no release or test build of VolumeKit contains them. The
/// one named by the environment variable `VOLUMEKIT_MUTANT` is on; all others are off.
public enum Mutant: String, CaseIterable, Sendable {
    /// A change off the 1/16 grid while capturing is taken for a press.
    case offGridPress
    /// No headroom: the anchor may sit at 0 or 1, where KVO is silent.
    case headroomZero
    /// After a down press, the reset goes straight to the anchor (refused while the press is held, seed 000).
    case resetStraightToAnchor
    /// One press more is reported after each route change.
    case pressAfterRouteChange
    /// The session is not re-activated when an interruption ends.
    case noReactivationAfterInterruption
    /// The crash record saves the anchor as the user's volume.
    case recordSavesAnchor
    /// Changes made while capture is suspended (background, an interruption) are not the user's.
    case ignoreChangesWhileSuspended
    /// An echo of VolumeKit's own set is remembered for 20 ms only.
    case echoLifetime20ms
    /// A press landing on a set of ours in flight is never proven by an earlier set's later landing.
    case noLandingOrderProof
    /// Every step is a new press: no auto-repeat is recognised.
    case noRepeats
    /// A press's release is reported at once, before its repeats.
    case earlyRelease
    /// A down burst's resets near a rail are not aimed below the press held when they land (seed 000 refuses them).
    case noBurstAim

    /// The mutant switched on for this process, if any.
    public static let active: Mutant? = ProcessInfo.processInfo.environment["VOLUMEKIT_MUTANT"].flatMap {
        Mutant(rawValue: $0)
    }

    /// Whether `mutant` is on.
    public static func isOn(_ mutant: Mutant) -> Bool { active == mutant }
}
#endif
