import Foundation

/// Counts VolumeKit's users of the app's one audio session, so that one feature stopping never pulls the
/// session from under another (buttons and the Ring/Silent monitor running together).
///
/// The first user remembers the app's own configuration; the last one gives it back. The session is
/// deactivated — with `.notifyOthersOnDeactivation`, so other apps resume — only when VolumeKit owned it:
/// the app had left the category at iOS's default, or VolumeKit changed it. An app that set up its own
/// session (it plays audio, it records) keeps it active.
public final class AudioSessionLease: Sendable {
    private struct State {
        var users = 0
        var original: AudioSessionConfiguration?
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
        let change = configuration.flatMap { $0 != current ? $0 : nil }
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
            state.users += 1
        }
    }

    /// Leaves the session; the last user restores the app's configuration and deactivates an owned session.
    public func release(on session: AudioSessionClient) {
        let last = state.withLock { state -> (original: AudioSessionConfiguration?, owned: Bool)? in
            guard state.users > 0 else { return nil }
            state.users -= 1
            guard state.users == 0 else { return nil }
            defer {
                state.original = nil
                state.owned = false
            }
            return (state.original, state.owned)
        }
        guard let last else { return }
        if let original = last.original, original != session.configuration() { try? session.setConfiguration(original) }
        if last.owned { try? session.setActive(false, true) }
    }
}
