import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A queue of actions in virtual time, run in order of time and then of scheduling.
struct Timeline {
    private struct Entry {
        let time: Instant
        let id: Int
        let action: () -> Void
    }

    private var entries: [Entry] = []
    private var nextID = 0

    /// Schedules `action` at `time`; returns an id for `cancel`.
    mutating func schedule(at time: Instant, _ action: @escaping () -> Void) -> Int {
        nextID += 1
        let entry = Entry(time: time, id: nextID, action: action)
        // Keep entries sorted by (time, order); new entries go after equal times.
        let index = entries.firstIndex { $0.time > time } ?? entries.endIndex
        entries.insert(entry, at: index)
        return entry.id
    }

    /// Drops a scheduled action.
    mutating func cancel(_ id: Int) {
        if let index = entries.firstIndex(where: { $0.id == id }) { entries.remove(at: index) }
    }

    /// Removes and returns the earliest action due at or before `time`.
    mutating func popDue(notAfter time: Instant) -> (Instant, () -> Void)? {
        guard let first = entries.first, first.time <= time else { return nil }
        entries.removeFirst()
        return (first.time, first.action)
    }

    /// The time of the earliest scheduled action.
    var nextTime: Instant? { entries.first?.time }
}
