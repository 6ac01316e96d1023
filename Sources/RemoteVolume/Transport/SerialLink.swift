import Dispatch
import Foundation

/// One persistent connection to a line-protocol device, used by one request at a time.
///
/// Requests run in order on a private serial queue (blocking socket I/O stays off the Swift concurrency
/// pool). The connection is opened (and greeted / authenticated by `open`) on first use and kept; any
/// failure other than the device refusing the request closes it, so the next request starts clean, and a
/// reused connection that turns out to be dead (the device restarted or dropped an idle client) is replaced
/// once within the same request's deadline.
final class SerialLink<Session: AnyObject>: @unchecked Sendable {
    /// Opens and prepares a session (connect, greeting, password) before `deadline`.
    typealias Open = (Deadline) throws -> Session

    private let queue: DispatchQueue
    private let open: Open
    private let isStale: (Session) -> Bool
    private let close: (Session) -> Void
    /// Only touched on `queue`.
    private var session: Session?
    /// When `session` last finished a request (monotonic nanoseconds); only touched on `queue`.
    private var lastUsed: UInt64 = 0
    /// A connection used within this many nanoseconds is not polled for staleness before the next request:
    /// one system call less per request in a burst. A peer that closed it meanwhile is
    /// found by the request itself, which then runs once more on a fresh connection (see ``perform``).
    static var recentlyUsed: UInt64 { 1_000_000_000 }

    init(label: String, open: @escaping Open, isStale: @escaping (Session) -> Bool, close: @escaping (Session) -> Void)
    {
        queue = DispatchQueue(label: label)
        self.open = open
        self.isStale = isStale
        self.close = close
    }

    deinit {
        if let session { close(session) }
    }

    /// Runs `work` on the connection; the whole request (connecting included) ends by `timeout` seconds from now.
    ///
    /// `keepsSession` says whether an error thrown by `work` left the connection usable (a complete refusal
    /// from the device) rather than in an unknown state.
    func perform<T: Sendable>(
        timeout: TimeInterval,
        keepsSession: @escaping @Sendable (any Error) -> Bool = { _ in false },
        _ work: @escaping @Sendable (Session, Deadline) throws -> T
    ) async throws -> T {
        let deadline = Deadline(in: timeout)
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try self.run(deadline: deadline, keepsSession: keepsSession, work) })
            }
        }
    }

    private func drop() {
        if let session { close(session) }
        session = nil
    }

    private func run<T>(deadline: Deadline, keepsSession: (any Error) -> Bool, _ work: (Session, Deadline) throws -> T)
        throws -> T
    {
        let now = DispatchTime.now().uptimeNanoseconds
        if let current = session, now &- lastUsed > Self.recentlyUsed, isStale(current) { drop() }
        defer { lastUsed = DispatchTime.now().uptimeNanoseconds }
        let reused = session != nil
        do {
            return try attempt(deadline: deadline, keepsSession: keepsSession, work)
        } catch let error as RemoteVolumeError {
            // A kept connection the device closed meanwhile: one fresh try, same deadline.
            guard reused, case .unreachable = error, !deadline.hasPassed else { throw error }
            return try attempt(deadline: deadline, keepsSession: keepsSession, work)
        }
    }

    private func attempt<T>(
        deadline: Deadline, keepsSession: (any Error) -> Bool, _ work: (Session, Deadline) throws -> T
    ) throws -> T {
        do {
            let current = try session ?? open(deadline)
            session = current
            return try work(current, deadline)
        } catch {
            if !keepsSession(error) { drop() }
            throw error
        }
    }
}
