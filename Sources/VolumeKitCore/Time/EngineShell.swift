#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The shell the buttons, mute and HUD engines share around their pure machines: the engine's state under one
/// lock, and the single timer that follows the machines' next deadline — the one wake-up convention of Core: a
/// machine says when it next needs time (`nextDeadline`), the shell keeps one timer aimed there.
///
/// One input is ``perform(timerFired:fire:_:)``: the machines run under the lock with the time, the timer is
/// re-aimed outside it, and the work they asked for is handed back for the engine to carry out outside the lock
/// (so a callback that calls back into the engine never deadlocks).
final class EngineShell<State>: @unchecked Sendable {
    private struct Guarded {
        var state: State
        var timer = DeadlineTimer()
    }

    private let guarded: Locked<Guarded>
    private let clock: ClockClient
    private let deadline: (State) -> Instant?

    /// Wraps `state`; `deadline` reads the machines' next deadline from it after each input.
    init(_ state: State, clock: ClockClient, deadline: @escaping (State) -> Instant?) {
        guarded = Locked(Guarded(state: state))
        self.clock = clock
        self.deadline = deadline
    }

    /// Reads or changes the state under the lock, the timer untouched. Do not call the engine from `body`.
    @discardableResult
    func withState<Result>(_ body: (inout State) -> Result) -> Result {
        guarded.withLock { body(&$0.state) }
    }

    /// One input: `body` runs under the lock with the time now (`timerFired`: this input is the timer's own),
    /// then the timer is aimed at the next deadline, `fire` to run when it comes; returns `body`'s work.
    func perform<Work>(
        timerFired: Bool = false, fire: @escaping @Sendable () -> Void, _ body: (inout State, Instant) -> [Work]
    ) -> [Work] {
        let now = clock.now()
        var change: DeadlineTimer.Change?
        let deadline = self.deadline
        let work = guarded.withLock { guarded in
            if timerFired { guarded.timer.fired() }
            let work = body(&guarded.state, now)
            change = guarded.timer.retarget(deadline(guarded.state), now: now)
            return work
        }
        clock.apply(change, fire: fire, adopt: { timer in guarded.withLock { $0.timer.adopt(timer) } })
        return work
    }

    /// The timer fired: nothing is scheduled any more (before the input that handles it).
    func timerFired() {
        guarded.withLock { $0.timer.fired() }
    }

    /// Forgets the timer and returns it to cancel (on teardown).
    func resetTimer() -> CancellationHandle? {
        guarded.withLock { $0.timer.reset() }
    }
}
