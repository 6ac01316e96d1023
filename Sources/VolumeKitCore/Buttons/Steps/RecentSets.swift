#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The sets VolumeKit issued lately, in order, each until its echo would expire — whether or not an observation
/// has since been taken for it — and the rule that knows a landing of ours whose echo an earlier observation took.
///
/// The rule (a *late landing*): after a press landed on the value of a set in flight and that set's own landing was
/// read as a later set's, a value no press and no user gives is still ours — one of VolumeKit's nudges (off the 1/16
/// grid, 1/4096 from the anchor) set within an echo's lifetime, or the anchor set after it, seen right after that
/// nudge. A press lands a step from where it starts, on the grid where the phone snaps presses (`stepQuantization`,
/// `shared/facts/envelope.md`); a Control Center value within a read of a nudge is a chance this rule takes.
struct RecentSets: Sendable, Equatable {
    typealias Echo = EchoLedger.Entry

    /// How many sets are remembered.
    static let limit = 6

    /// The last sets issued, oldest first.
    private var sets = SmallList<Echo>()
    /// When the first of `sets` expires (`nil` with none): until then, none is old enough to drop.
    private var firstExpiry: Instant?
    /// The order of the last set issued.
    private var lastOrder = 0
    /// When the last set was issued.
    private(set) var lastSetTime: Instant?

    /// A set of `value` issued at `time`, its echo expected from `soonest` after it for `lifetime`: its entry, next
    /// in order.
    mutating func issue(_ value: Float, at time: Instant, soonest: TimeInterval, lifetime: TimeInterval) -> Echo {
        lastOrder += 1
        let echo = Echo(value: value, earliest: time + soonest, expires: time + lifetime, order: lastOrder)
        dropExpired(at: time)
        if sets.count >= Self.limit {
            sets.removeFirst(1)
            findFirstExpiry()
        }
        sets.append(echo)
        firstExpiry = Self.earlier(firstExpiry, echo.expires)
        lastSetTime = time
        return echo
    }

    /// Whether `value`, observed at `time` with no echo left for it, is a late landing of ours while holding
    /// `anchor`, the machine believing `believed`.
    mutating func isLateLanding(_ value: Float, at time: Instant, anchor: Float, believed: Float) -> Bool {
        dropExpired(at: time)
        guard let set = sets.lastInPlace(where: { abs($0.value - value) < VolumeGrid.readTolerance }) else {
            return false
        }
        let nudge =
            !VolumeGrid.isOnGrid(value) && abs(abs(value - anchor) - VolumeGrid.nudge) < VolumeGrid.readTolerance
        let anchorAfterNudge =
            abs(value - anchor) < VolumeGrid.readTolerance && !VolumeGrid.isOnGrid(believed)
            && sets.containsInPlace { abs($0.value - believed) < VolumeGrid.readTolerance && $0.order < set.order }
        return nudge || anchorAfterNudge
    }

    /// Forgets the sets whose echo has expired by `time`, looking through them only when one has.
    private mutating func dropExpired(at time: Instant) {
        guard let first = firstExpiry, first <= time else { return }
        sets.removeAll { $0.expires <= time }
        findFirstExpiry()
    }

    /// Finds when the first of `sets` expires, `nil` for none. (Mutating, so that the sets are read in place: passed
    /// as a value, the list would be copied whole.)
    private mutating func findFirstExpiry() {
        var first: Instant?
        sets.forEachInPlace { first = Self.earlier(first, $0.expires) }
        firstExpiry = first
    }

    /// The earlier of `first` and `expires`; an expiry that is not a number never comes (no comparison holds).
    private static func earlier(_ first: Instant?, _ expires: Instant) -> Instant? {
        guard !expires.isNaN else { return first }
        return first.map { min($0, expires) } ?? expires
    }
}
