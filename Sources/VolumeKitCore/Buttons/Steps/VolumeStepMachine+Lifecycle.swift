#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Starting, pausing, resuming and stopping: each phase change holds the value it needs — the anchor while running,
/// the user's own volume otherwise — and a stop reports ``VolumeStepMachine/Action/restored`` once that is there
/// (README, "Your users' volume is safe").
extension VolumeStepMachine {
    /// Starts capturing. `volume` is the system volume now; `userVolume` the user's own (a recovered one
    /// after a crash, see ``RecoveryRule``), by default the volume now.
    public mutating func start(volume: Float, userVolume: Float? = nil, at time: Instant) -> Actions {
        begin(.running, volume: volume, userVolume: userVolume ?? volume)
        return hold(anchorFor(self.userVolume), at: time)
    }

    /// Starts while the app is not active (it went to the background before the view was ready): nothing is set
    /// for the anchor — a set now would move the volume under presses the user makes meanwhile, from a read
    /// that may be stale — only a saved user volume is given back. The anchor is taken at ``resume(volume:at:)``.
    public mutating func startSuspended(volume: Float, userVolume: Float? = nil, at time: Instant) -> Actions {
        begin(.suspended, volume: volume, userVolume: userVolume ?? volume)
        return hold(self.userVolume, at: time)
    }

    /// Only puts `userVolume` back, capturing nothing: a stop that came before the volume view was ready, with a
    /// record of an earlier run that ``RecoveryRule`` gives back on this route. `volume` is the system volume
    /// now. Reports ``Action/restored`` once the user's volume is there.
    public mutating func restore(volume: Float, userVolume: Float, at time: Instant) -> Actions {
        begin(.stopping, volume: volume, userVolume: userVolume)
        return hold(userVolume, at: time) + doneIfRestored()
    }

    /// Enters `phase` from a fresh read: the system volume `volume`, the user's own `userVolume`; no set of ours
    /// in flight or taken as landed.
    mutating func begin(_ phase: Phase, volume: Float, userVolume: Float) {
        self.phase = phase
        self.userVolume = userVolume
        believedVolume = volume
        echoes = EchoLedger()
        landings.reset()
        unexplainedRead = nil
        unconfirmedFrom = nil
        setMayBeLost = false
        believedFromRead = true
        // A route change seen before (while idle, against a stale believed volume) is in the fresh read: its KVO,
        // if one comes, changes nothing — a press landing on that value is a press.
        routeObservation = nil
    }

    /// Pauses: puts the user's volume back; later changes are the user's.
    public mutating func suspend(at time: Instant) -> Actions {
        guard phase == .running else { return [] }
        phase = .suspended
        return hold(userVolume, at: time)
    }

    /// Resumes after ``suspend(at:)``. `volume` is the system volume now: the user's, unless our restore
    /// has not been confirmed yet.
    public mutating func resume(volume: Float, at time: Instant) -> Actions {
        guard phase == .suspended else { return [] }
        phase = .running
        return resync(volume: volume, at: time)
    }

    /// Stops: puts the user's volume back, then reports ``Action/restored``.
    public mutating func stop(at time: Instant) -> Actions {
        guard phase != .idle else { return [] }
        phase = .stopping
        let actions = hold(userVolume, at: time)
        if !retrier.isWaiting {
            phase = .idle
            return actions + [.restored]
        }
        return actions
    }

    /// The current route has volume control (`available`), or has none: then nothing is held there — no anchor,
    /// no set — and each press is reported as it changes the volume, which stays the user's (as in passive mode);
    /// back on a route with control, the anchor is held again.
    public mutating func volumeControl(available: Bool, at time: Instant) -> Actions {
        guard available != hasVolumeControl else { return [] }
        hasVolumeControl = available
        if !available {
            retrier.cancel()
            return []
        }
        guard phase == .running else { return [] }
        return hold(anchorFor(userVolume), at: time)
    }
}
