#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A value VolumeKit wants the system volume at, until the machine sees it there: a set may be refused (during a
/// held down press, seed 000), dropped (equal to the slider's cached value, decompiled iOS 18.2
/// `MPVolumeControllerSystemDataSource`) or land silently (KVO reports only changes), so it is looked at again at a
/// deadline and set again, up to ``VolumeStepMachine/Configuration/maximumAttempts`` tries.
///
/// The deadline also serves without a wanted value: after a step the machine looks again once the buttons are
/// quiet (``VolumeStepMachine/Configuration/settleDelay``) and only then sets the exact anchor.
struct SetRetrier: Sendable, Equatable {
    /// The value wanted, until the machine believes the volume is there.
    private(set) var wanted: Float?
    /// When to look again at the volume (and set `wanted`, or the value to hold, again).
    private(set) var deadline: Instant?
    /// Tries since `wanted` was last wanted anew.
    private var attempts = 0

    /// Whether a set is waiting to be confirmed.
    var isWaiting: Bool { wanted != nil }

    /// `target` is wanted anew: confirmed by an observation or a read of it, else looked at again at `retryAt`.
    mutating func want(_ target: Float, retryAt: Instant) {
        attempts = 0
        wanted = target
        deadline = retryAt
    }

    /// Nothing is wanted and nothing looked at again, the count of tries restarted.
    mutating func cancel() {
        wanted = nil
        deadline = nil
        attempts = 0
    }

    /// What was wanted no longer is, nor any deadline (the route changed: the target is chosen again there); the
    /// count of tries goes on until something is wanted anew.
    mutating func forget() {
        wanted = nil
        deadline = nil
    }

    /// Look again at `time` (once the buttons are quiet after a step), whatever is wanted.
    mutating func lookAgain(at time: Instant) { deadline = time }

    /// Whether the deadline has come by `time`; it is then spent.
    mutating func isDue(at time: Instant) -> Bool {
        guard let due = deadline, due <= time else { return false }
        deadline = nil
        return true
    }

    /// Whether the volume believed, `believed`, is what was wanted: then nothing is wanted any more.
    mutating func confirms(_ believed: Float) -> Bool {
        guard let target = wanted, VolumeGrid.isSame(believed, target) else { return false }
        cancel()
        return true
    }

    /// `target` is not there at the deadline: it is wanted again, looked at again at `retryAt` — `false` when that
    /// would be more than `maximumAttempts` tries, and the retrier gives up (nothing wanted).
    mutating func retry(_ target: Float, retryAt: Instant, maximumAttempts: Int) -> Bool {
        attempts += 1
        if attempts > maximumAttempts {
            wanted = nil
            attempts = 0
            return false
        }
        wanted = target
        deadline = retryAt
        return true
    }
}
