#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// VolumeKit's own sets still on their way to the system, one entry per set issued, in the order issued.
///
/// Each set comes back as an observation (its *echo*) once the slider's value has reached the system and KVO
/// (or the private notification) has reported it — from 5 to 150 ms for the slider plus up to 30 ms for the
/// observation (`shared/facts/envelope.md`: `sliderLatency`, `kvoLatency`). One slider carries every set, so
/// sets land in the order issued; a landing is therefore the *oldest* set of its value still on its way. A set
/// that never lands (refused during a down press, seed 000; dropped by the slider's cache, decompiled iOS 18.2;
/// silent because the volume was already there) expires.
///
/// Two sets of one value in flight are two entries: merging them would lose which of them a landing was, and
/// with it the order of landings that proves a press landing on the value of a later set
/// (``VolumeStepMachine``'s suspect press).
struct EchoLedger: Sendable, Equatable {
    /// One set on its way.
    struct Entry: Sendable, Equatable {
        /// The value set.
        var value: Float
        /// When its echo may come at the soonest: its issue plus the shortest round trip this phone shows
        /// (``VolumeStepMachine/expectEchoes(noSoonerThan:)``); its issue while that is not known.
        var earliest: Instant = -.infinity
        /// When its echo is no longer expected.
        var expires: Instant
        /// When it was issued, in the order of all sets.
        var order: Int
        /// Issued before the route changed: it lands on the old route or the new one, so its observation says
        /// nothing of the volume now (the route's change read it).
        var beforeRouteChange = false
    }

    /// The entries, oldest first.
    private(set) var entries = SmallList<Entry>()

    // The searches below read the entries in place (`SmallList`'s in-place searches), so they are `mutating` though
    // they change nothing, and inlined where they are made: a call would receive a copy of the whole ledger (392
    // bytes) taken from the machine that holds it — the detection machine's budget is 100 ns an observation.

    /// Whether no set is on its way.
    var isEmpty: Bool { entries.isEmpty }

    /// When the first entry expires (counted in place: no array is made on the observation path).
    @inline(__always) var nextExpiry: Instant? {
        var first: Instant?
        entries.forEach { entry in if first.map({ entry.expires < $0 }) ?? true { first = entry.expires } }
        return first
    }

    /// When the last entry matching `filter` expires.
    @inline(__always) mutating func latestExpiry(where filter: (Entry) -> Bool) -> Instant? {
        var last: Instant?
        entries.forEachInPlace { entry in
            if filter(entry) && last.map({ $0 < entry.expires }) ?? true { last = entry.expires }
        }
        return last
    }

    /// Whether a set of a value within `tolerance` of `value` is on its way (and, given, matches `filter`).
    @inline(__always) mutating func contains(
        _ value: Float, within tolerance: Float, where filter: (Entry) -> Bool = { _ in true }
    ) -> Bool {
        entries.containsInPlace { abs($0.value - value) <= tolerance && filter($0) }
    }

    /// Whether an entry matches `predicate`.
    @inline(__always) mutating func contains(where predicate: (Entry) -> Bool) -> Bool {
        entries.containsInPlace(where: predicate)
    }

    /// How many sets of a value within `tolerance` of `value` are on their way.
    @inline(__always) mutating func count(of value: Float, within tolerance: Float) -> Int {
        entries.countInPlace { abs($0.value - value) <= tolerance }
    }

    /// The first entry, oldest first, that matches `predicate`.
    @inline(__always) mutating func first(where predicate: (Entry) -> Bool) -> Entry? {
        entries.firstInPlace(where: predicate)
    }

    /// The oldest set of a value within `tolerance` of `value` (that matches `filter`): the one a landing of that
    /// value is.
    @inline(__always) mutating func oldest(
        _ value: Float, within tolerance: Float, where filter: (Entry) -> Bool = { _ in true }
    ) -> Entry? {
        entries.firstInPlace { abs($0.value - value) <= tolerance && filter($0) }
    }

    /// The newest set of a value within `tolerance` of `value`.
    @inline(__always) mutating func newest(_ value: Float, within tolerance: Float) -> Entry? {
        entries.lastInPlace { abs($0.value - value) <= tolerance }
    }

    /// Records a set issued. `replacing`: it is a retry of a set of the same value that was refused or dropped
    /// (it never lands), whose entry it takes the place of; otherwise it is one more set on its way.
    mutating func issue(_ entry: Entry, replacing: Bool) {
        if replacing {
            entries.removeFirst { abs($0.value - entry.value) < VolumeGrid.readTolerance && !$0.beforeRouteChange }
        }
        insert(entry)
    }

    /// Puts `entry` back in its place by order (a set whose echo was taken by a press, expected again).
    mutating func insert(_ entry: Entry) {
        // Only a few sets are ever on their way at once; past that, the oldest is forgotten.
        if entries.isFull { entries.removeFirst(1) }
        // After the last entry issued no later than it (where sifting it back from the end would stop): the end, but
        // for a set expected again.
        let index = entries.lastIndexInPlace { $0.order <= entry.order }.map { $0 + 1 } ?? 0
        entries.insert(entry, at: index)
    }

    /// Takes the set `entry` as landed (or dropped).
    mutating func remove(_ entry: Entry) {
        entries.removeFirst { $0 == entry }
    }

    /// Forgets every set matching `predicate`.
    mutating func removeAll(where predicate: (Entry) -> Bool) { entries.removeAll(where: predicate) }

    /// Marks every set on its way as issued before a route change.
    mutating func markBeforeRouteChange() {
        for index in entries.indices { entries[index].beforeRouteChange = true }
    }
}
