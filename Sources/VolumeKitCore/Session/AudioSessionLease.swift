import Foundation

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
public final class AudioSessionLease: Sendable {
    private struct State {
        var users = 0
        var original: AudioSessionConfiguration?
        var applied: AudioSessionConfiguration?
        var owned = false
    }

    private let state = Locked(State())

    /// A lease with no users.
    public init() {}

    /// The number of VolumeKit users holding the session.
    public var users: Int { state.withLock { $0.users } }

    /// Joins the session: sets `configuration` if given and different, and activates. Throws what the
    /// session throws (e.g. during a call); the lease is then left unchanged.
    public func acquire(_ configuration: AudioSessionConfiguration?, on session: AudioSessionClient) throws {
        let current = session.configuration()
        let playsOrRecords: Set<AudioCategory> = [.playback, .playAndRecord, .record, .multiRoute]
        let change = configuration.flatMap { $0 != current && !playsOrRecords.contains(current.category) ? $0 : nil }
        if let change { try session.setConfiguration(change) }
        do {
            try session.setActive(true, false)
        } catch {
            if change != nil { try? session.setConfiguration(current) }
            throw error
        }
        state.withLock { state in
            if state.users == 0 {
                state.original = current
                state.owned = current == .systemDefault
            }
            if change != nil { state.owned = true }
            state.applied = change ?? current
            state.users += 1
        }
    }

    /// Leaves the session; the last user restores the app's configuration and deactivates an owned session.
    public func release(on session: AudioSessionClient) {
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
        if last.owned, !current.category.records { try? session.setActive(false, true) }
    }
}
