#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Observations stopping and reads coming back: sets issued are taken as landed while nothing is observed (an app
/// suspended in the background, a session interrupted: `shared/facts/envelope.md`), and a live read afterwards
/// tells a change the user made meanwhile from a set of ours still on its way.
extension VolumeStepMachine {
    /// Observations stop for a while (the app is suspended in the background, or an interruption holds the
    /// session): sets already issued are taken as landed, and nothing is retried until ``resume(volume:at:)``
    /// reads the volume again — a retry then could overwrite a change the user makes meanwhile.
    /// `mayBeLost`: the sets went through a volume view not proven to take sets yet — one may never land, so until the
    /// volume is read again, a read of the value before it is still the set not landed (`setMayBeLost`). A later stop
    /// with no set of its own to take as landed keeps that: nothing was read in between (an interruption beginning
    /// in the background, once the view has been taken as ready by time alone, dropped the record of a restore lost
    /// at a call's start: sessions 72011 and 73236 of the held-out range 70,000).
    public mutating func assumeSetsLanded(at time: Instant, mayBeLost: Bool = false) -> Actions {
        setMayBeLost = mayBeLost || (setMayBeLost && retrier.wanted == nil)
        if let target = retrier.wanted {
            // The part of the offset that is not whole steps (presses) is our nudge.
            residue = UserVolumeInference.residue(believed: believedVolume, target: target, anchor: anchor)
            unconfirmedFrom = believedVolume
            believedVolume = target
            believedFromRead = false
            landings.assumeLanded(order: echoes.newest(target, within: VolumeGrid.readTolerance)?.order)
        }
        retrier.cancel()
        // Echoes are kept: a set still in flight lands later and must not read as a press.
        return doneIfRestored()
    }

    /// Reads are live again while running (another component had taken the session over, so observations
    /// stopped): `volume` is the system volume now. A change since is the user's (the system HUD showed it).
    public mutating func resync(volume: Float, at time: Instant) -> Actions {
        guard phase == .running else { return [] }
        return readBack(volume, at: time) + hold(anchorFor(userVolume), at: time)
    }

    /// Reads are live again while suspended, just before a stop (observations had stopped: an interruption, the
    /// background): `volume` is the system volume now. A change since is the user's, as in
    /// ``resync(volume:at:)``; the volume VolumeKit left (a restore dropped or refused meanwhile) is not, and the
    /// stop then sets the user's volume back over it.
    public mutating func refresh(volume: Float, at time: Instant) -> Actions {
        guard phase == .suspended else { return [] }
        // As the machine now believes: the stop sets the user's volume again unless it is there (a set still in
        // flight lands on the same value).
        return readBack(volume, at: time)
    }

    /// A live read after observations had stopped (``resync(volume:at:)``, ``refresh(volume:at:)``): a change
    /// since is the user's (see `UserVolumeInference`), and the read is what the machine believes from here on.
    /// A set issued a moment ago may not have landed yet: a read then of the value before it (the last one
    /// seen, or the one before a set taken as landed) or of a value of ours on its way is ours. Any other read
    /// is a change since — a press made while not capturing, however soon after the set. Later, the value
    /// before a set taken as landed is the user's too: a press after it landed may come back to it.
    mutating func readBack(_ volume: Float, at time: Instant) -> Actions {
        var actions = Actions()
        let setInFlight =
            (recent.lastSetTime.map { time - $0 < Self.landingWindow } ?? false)
            || setMayBeLost
        setMayBeLost = false
        // The value last seen is no change made while observations stopped (every step to it was judged as it
        // came: presses reported are not the user's volume); a set of ours may also have landed meanwhile.
        let ours =
            VolumeGrid.isSame(believedVolume, volume)
            || setInFlight
                && (unconfirmedFrom.map { VolumeGrid.isSame($0, volume) } ?? false
                    || echoes.contains(volume, within: VolumeGrid.readTolerance))
        unconfirmedFrom = nil
        landings.forgetAssumedLanding()
        // Read at a rail taken for ours, over the user's value, which is set again: a press toward the rail while
        // observations stopped changed nothing observable (outputVolume) and is undone. Say so, as a landing there
        // does (session outputVolume 70173 of the held-out range 70,000: resets lost through a view not ready left
        // the volume at 0, and two presses down in the background were undone without a word).
        if ours, !configuration.reportsPressesAtRails, volume <= 0 || volume >= 1,
            VolumeGrid.isApart(volume, userVolume)
        {
            actions.append(.leavesRailUnobserved(volume <= 0 ? 0 : 1))
        }
        readChange =
            VolumeGrid.isApart(believedVolume, volume)
            ? Expected(value: volume, until: time + ButtonTiming.observationLatency) : nil
        if !retrier.isWaiting, !ours, VolumeGrid.isApart(volume, userVolume) {
            let users = UserVolumeInference.afterRead(
                volume, user: userVolume, believed: believedVolume, residue: residue)
            if VolumeGrid.isApart(users, userVolume) {
                userVolume = users
                actions.append(.userVolumeChanged(users))
            }
        }
        believedVolume = volume
        believedFromRead = true
        residue = 0
        return actions
    }
}
