#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Counts VolumeKit's users of the app's one audio session, so that one feature stopping never pulls the
/// session from under another (buttons and the Ring/Silent monitor running together).
///
/// The first user remembers the app's own configuration; the last one gives it back. The session is
/// deactivated — with `.notifyOthersOnDeactivation`, so other apps resume — only when VolumeKit owned it:
/// the app had left the category at iOS's default, or VolumeKit changed it. An app that set up its own
/// session (it plays audio, it records) keeps it active.
///
/// A session whose category already plays or records (a camera screen's `.playAndRecord`, a player's
/// `.playback`) keeps its category, mode and options: VolumeKit only activates it (setting a category
/// "screws up AVCaptureSessions", JPSVolumeButtonHandler #7). And once another component has changed the
/// category after VolumeKit (a camera, a player, a web view taking the session over), VolumeKit neither
/// restores its own idea of the category nor deactivates the session: the component needs it.
///
/// Deactivation fails while audio I/O runs — the primer's silent sound (``AudioSessionClient/primerDuration``)
/// included: `AVAudioSession.ErrorCode.isBusy`, "Deactivating an audio session that has running I/O"
/// (AVAudioSession.mm). Given a clock, the lease tries again after ``deactivationRetryDelay``, up to
/// ``deactivationRetries`` times, unless a user joined meanwhile or another component changed the session.
public final class AudioSessionLease: Sendable {
    private struct State {
        var users = 0
        var original: AudioSessionConfiguration?
        var applied: AudioSessionConfiguration?
        var owned = false
        /// Counts joins, so that a pending deactivation retry knows the session was joined since.
        var joins = 0
        var retry: CancellationHandle?
    }

    /// How long after a failed deactivation the lease tries again: longer than the primer plays.
    public static let deactivationRetryDelay: TimeInterval = 0.1
    /// How many times a failed deactivation is tried again.
    public static let deactivationRetries = 3

    private let state = Locked(State())

    /// A lease with no users.
    public init() {}

    /// The number of VolumeKit users holding the session.
    public var users: Int { state.withLock { $0.users } }

    /// Categories an app sets for its own audio: VolumeKit keeps them, and only activates the session.
    private static let playsOrRecords: Set<AudioCategory> = [.playback, .playAndRecord, .record, .multiRoute]

    /// Whether joining now and leaving again gives the session back as VolumeKit would find it: VolumeKit holds it
    /// already, or the app left the category at the system default, which VolumeKit replaces by its own and then
    /// restores, deactivating. An app that set a category of its own keeps it, and VolumeKit cannot tell whether
    /// its session is active (iOS has no read of it): joining would leave an inactive `.playback` session active
    /// (other apps' audio stopped), or deactivate an `.ambient` one under the app's own sounds. An app that
    /// plays audio in the default category without setting one is the case this cannot see.
    public func ownsSessionIfJoined(on session: AudioSessionClient) -> Bool {
        users > 0 || session.configuration() == .systemDefault
    }

    /// Joins the session: sets `configuration` if given and different, and activates. Throws what the
    /// session throws (e.g. during a call); the lease is then left unchanged.
    public func acquire(_ configuration: AudioSessionConfiguration?, on session: AudioSessionClient) throws {
        let current = session.configuration()
        let change = configuration.flatMap {
            $0 != current && !Self.playsOrRecords.contains(current.category) ? $0 : nil
        }
        if let change { try session.setConfiguration(change) }
        do {
            try session.setActive(true, false)
        } catch {
            if change != nil { try? session.setConfiguration(current) }
            throw error
        }
        let stale = state.withLock { state -> CancellationHandle? in
            if state.users == 0 {
                state.original = current
                state.owned = current == .systemDefault
            }
            if change != nil { state.owned = true }
            state.applied = change ?? current
            state.users += 1
            state.joins += 1
            defer { state.retry = nil }
            return state.retry
        }
        stale?.cancel()
    }

    /// After a media-services reset (``AppLifecycleEvent/mediaServicesWereReset``) the session's category is
    /// lost: sets the configuration in force while VolumeKit holds the session again (the one VolumeKit set, or
    /// the app's own it kept). Activating and priming are the caller's. Does nothing without users.
    public func reapplyAfterMediaReset(on session: AudioSessionClient) throws {
        guard let applied = state.withLock({ $0.users > 0 ? $0.applied : nil }) else { return }
        if session.configuration() != applied { try session.setConfiguration(applied) }
    }

    /// Leaves the session; the last user restores the app's configuration and deactivates an owned session.
    /// A failed deactivation is not tried again: prefer ``release(on:clock:)``.
    public func release(on session: AudioSessionClient) {
        release(on: session, clock: nil)
    }

    /// Leaves the session; the last user restores the app's configuration and deactivates an owned session,
    /// trying again on `clock` when deactivation fails (the primer still playing).
    public func release(on session: AudioSessionClient, clock: ClockClient?) {
        let last = state.withLock {
            state -> (original: AudioSessionConfiguration?, applied: AudioSessionConfiguration?, owned: Bool)? in
            guard state.users > 0 else { return nil }
            state.users -= 1
            guard state.users == 0 else { return nil }
            defer {
                state.original = nil
                state.applied = nil
                state.owned = false
            }
            return (state.original, state.applied, state.owned)
        }
        guard let last else { return }
        let current = session.configuration()
        // Another component changed the session after VolumeKit: leave it as that component needs it.
        guard last.applied == nil || current == last.applied else { return }
        if let original = last.original, original != current { try? session.setConfiguration(original) }
        guard last.owned, !current.category.records else { return }
        let joins = state.withLock { $0.joins }
        deactivate(
            on: session, clock: clock, expecting: last.original ?? current, joins: joins, left: Self.deactivationRetries
        )
    }

    /// Deactivates; on failure schedules another try while nobody joined and the session is as VolumeKit left it.
    private func deactivate(
        on session: AudioSessionClient, clock: ClockClient?, expecting: AudioSessionConfiguration, joins: Int, left: Int
    ) {
        do {
            try session.setActive(false, true)
        } catch {
            guard let clock, left > 0 else { return }
            let handle = clock.schedule(Self.deactivationRetryDelay) { [weak self] in
                guard let self else { return }
                let due = self.state.withLock { state -> Bool in
                    state.retry = nil
                    return state.users == 0 && state.joins == joins
                }
                guard due, session.configuration() == expecting else { return }
                self.deactivate(on: session, clock: clock, expecting: expecting, joins: joins, left: left - 1)
            }
            let stale = state.withLock { state -> CancellationHandle? in
                guard state.users == 0, state.joins == joins else { return handle }
                defer { state.retry = handle }
                return state.retry
            }
            stale?.cancel()
        }
    }
}
