import Dispatch
import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One persistent connection to a line-protocol device, used by one request at a time.
///
/// Requests run in order on a private serial queue (blocking socket I/O stays off the Swift concurrency
/// pool). The connection is opened (and greeted / authenticated by `open`) on first use and kept; any
/// failure other than the device refusing the request closes it, so the next request starts clean, and a
/// reused connection that turns out to be dead (the device restarted or dropped an idle client) is replaced
/// once within the same request's deadline.
///
/// A one-line request on a connection that is idle, was used within the last second and answered within
/// ``callerPatience`` last time runs on the caller's thread instead (``perform(timeout:keepsSession:quick:)``):
/// it is sent, and its reply waited for at most ``callerPatience``, there; a reply that is later than that is
/// read on another thread up to the request's deadline. On a fast device (loopback, a wired LAN) that saves
/// the two thread hand-offs of the queue — most of a request's cost (issue 23); a slow one never holds the
/// caller's thread longer than the patience, and later requests go to the queue until one answers in time.
final class SerialLink<Session: AnyObject>: @unchecked Sendable {
    /// How long a caller's thread (one of Swift's cooperative threads) waits for a reply before the rest of
    /// the request is handed to another thread: 1 ms (2 ms at the very most: poll(2) counts whole
    /// milliseconds), about 30 MPD round trips on loopback.
    static var defaultCallerPatience: TimeInterval { 0.001 }

    /// The caller's patience this link uses (``defaultCallerPatience``; tests that check which thread a quick
    /// reply is read on set a longer one, so a loaded machine's late reply cannot change their outcome).
    var callerPatience: TimeInterval {
        get {
            token.wait()
            defer { token.signal() }
            return patienceSeconds
        }
        set {
            token.wait()
            defer { token.signal() }
            patienceSeconds = newValue
        }
    }

    /// A request of one line and its reply, split so the reply can be waited for on one thread and read on
    /// another: `send` writes the line, `arrived` reads what has arrived (waiting at most the milliseconds it
    /// is given) and says whether the whole reply is in, `receive` reads the reply (which then needs no
    /// further wait unless it was handed off).
    struct Exchange<T> {
        /// Work before the line goes out that may take a while (reading notifications already buffered): run
        /// before the caller's patience starts, so that it never spends the patience the reply is waited for.
        var prepare: (Session) throws -> Void = { _ in }
        var send: (Session, Deadline) throws -> Void
        var arrived: (Session, _ milliseconds: Int32) throws -> Bool
        var receive: (Session, Deadline) throws -> T
    }

    /// Opens and prepares a session (connect, greeting, password) before `deadline`.
    typealias Open = (Deadline) throws -> Session

    /// The serial queue requests run on when the caller's thread cannot.
    private var queue: DispatchQueue { queues().requests }
    /// Where a late reply is read: a serial queue of its own (one late reply at a time, `token` being held).
    /// Not `DispatchQueue.global()`: its threads are about one per core and a blocked one is not replaced, so
    /// replies waited for there up to their deadline starved other work (MPD's watcher tests in the full run).
    private var lateReplies: DispatchQueue { queues().lateReplies }
    private let label: String
    /// Both queues, made at first use: a link that never hands a request off (the one-shot command line's
    /// devices) never starts Dispatch's queue machinery.
    private let madeQueues = Locked<(requests: DispatchQueue, lateReplies: DispatchQueue)?>(nil)
    /// Owned by whichever thread runs a request (the caller's on the quick path, the queue's, or the thread
    /// finishing a handed-off reply): a semaphore, not a lock, because ownership moves between threads.
    private let token = DispatchSemaphore(value: 1)
    private let open: Open
    private let isStale: (Session) -> Bool
    private let close: (Session) -> Void
    /// Only touched by `token`'s owner.
    private var session: Session?
    /// When `session` last finished a request (monotonic nanoseconds); only touched by `token`'s owner.
    private var lastUsed: UInt64 = 0
    /// Requests that ran on another thread than their caller's (the queue's, or a late reply's); only touched
    /// by `token`'s owner.
    private var handOffCount = 0
    /// Whether the last request's reply came within ``callerPatience`` (so the next may take the quick path);
    /// only touched by `token`'s owner.
    private var answersQuickly = false
    /// ``callerPatience``; only touched by `token`'s owner.
    private var patienceSeconds = SerialLink.defaultCallerPatience
    /// A connection used within this many nanoseconds is not polled for staleness before the next request:
    /// one system call less per request in a burst. A peer that closed it meanwhile is
    /// found by the request itself, which then runs once more on a fresh connection (see ``perform``).
    static var recentlyUsed: UInt64 { 1_000_000_000 }

    init(label: String, open: @escaping Open, isStale: @escaping (Session) -> Bool, close: @escaping (Session) -> Void)
    {
        self.label = label
        self.open = open
        self.isStale = isStale
        self.close = close
    }

    deinit {
        if let session { close(session) }
    }

    private func queues() -> (requests: DispatchQueue, lateReplies: DispatchQueue) {
        madeQueues.withLock { made in
            if let made { return made }
            let queues = (
                requests: DispatchQueue(label: label), lateReplies: DispatchQueue(label: label + ".late-replies")
            )
            made = queues
            return queues
        }
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
        return try await withUnsafeThrowingContinuation { continuation in
            queue.async {
                self.token.wait()
                self.handOffCount += 1
                let result = Result { try self.run(deadline: deadline, keepsSession: keepsSession, work) }
                // Released before the caller resumes, so that its next request finds the link free (else it
                // would miss the quick path and queue again).
                self.token.signal()
                continuation.resume(with: result)
            }
        }
    }

    /// Runs a one-line `exchange`: on the caller's thread when the connection allows it (see the type's notes),
    /// else as ``perform(timeout:keepsSession:_:)`` does.
    func perform<T: Sendable>(
        timeout: TimeInterval,
        keepsSession: @escaping @Sendable (any Error) -> Bool = { _ in false },
        quick exchange: Exchange<T>
    ) async throws -> T {
        let deadline = Deadline(in: timeout)
        switch quickly(exchange, deadline: deadline, keepsSession: keepsSession) {
        case .done(let result):
            return try result.get()
        case .handedOff(let started):
            // The line is sent and `token` still owned: the reply is read on a thread that may block.
            let carried = UnsafeExchange(exchange)
            return try await withUnsafeThrowingContinuation { continuation in
                self.lateReplies.async {
                    self.handOffCount += 1
                    let result = Result {
                        do {
                            return try self.finish(deadline: deadline, keepsSession: keepsSession, started: started) {
                                try carried.exchange.receive($0, deadline)
                            }
                        } catch let error as RemoteVolumeError {
                            // The device closed the kept connection: one fresh try, as `run` makes.
                            guard case .unreachable = error, !deadline.hasPassed else { throw error }
                            return try self.attempt(deadline: deadline, keepsSession: keepsSession) {
                                session, deadline in
                                try carried.exchange.prepare(session)
                                try carried.exchange.send(session, deadline)
                                return try carried.exchange.receive(session, deadline)
                            }
                        }
                    }
                    self.token.signal()
                    continuation.resume(with: result)
                }
            }
        case .notTaken:
            let carried = UnsafeExchange(exchange)
            return try await perform(timeout: timeout, keepsSession: keepsSession) { session, deadline in
                try carried.exchange.prepare(session)
                try carried.exchange.send(session, deadline)
                return try carried.exchange.receive(session, deadline)
            }
        }
    }

    /// How many requests so far ran on another thread than their caller's (tests: the quick path is taken).
    var handOffs: Int {
        token.wait()
        defer { token.signal() }
        return handOffCount
    }

    private enum Quick<T> {
        case done(Result<T, any Error>)
        /// The line went out at `started` (monotonic nanoseconds); its reply is late.
        case handedOff(started: UInt64)
        case notTaken
    }

    /// The quick path: `.notTaken` (nothing sent, `token` not held) unless the connection is idle, recent and
    /// fast; `.handedOff` (sent, `token` held) when the reply is later than ``callerPatience``.
    private func quickly<T>(_ exchange: Exchange<T>, deadline: Deadline, keepsSession: (any Error) -> Bool) -> Quick<T>
    {
        guard token.wait(timeout: .now()) == .success else { return .notTaken }
        let started = DispatchTime.now().uptimeNanoseconds
        guard let current = session, answersQuickly, started &- lastUsed <= Self.recentlyUsed,
            !deadline.hasPassed
        else {
            token.signal()
            return .notTaken
        }
        do {
            try exchange.prepare(current)
            let patience = Deadline(in: patienceSeconds)
            // The line is a few bytes on an idle connection: a full send buffer would be a broken peer.
            try exchange.send(current, patience.earlier(than: deadline))
            // poll(2) counts whole milliseconds: each wait is 1 ms, so the caller waits 2 ms at the very most.
            while try !exchange.arrived(current, 1) {
                if patience.hasPassed { return .handedOff(started: started) }
            }
        } catch {
            drop()
            token.signal()
            // The device closed the kept connection, or its buffer stayed full for the whole patience (only the
            // patience passed, not the request's deadline): the queue's path opens a fresh one and sends again
            // (the one retry `run` makes). Anything else (a flood over the line cap) is the request's error.
            switch error as? RemoteVolumeError {
            case .unreachable?, .timedOut?: return deadline.hasPassed ? .done(.failure(error)) : .notTaken
            default: return .done(.failure(error))
            }
        }
        defer { token.signal() }
        return .done(
            Result {
                try finish(deadline: deadline, keepsSession: keepsSession, started: started) {
                    try exchange.receive($0, deadline)
                }
            })
    }

    /// Reads a reply on the connection as it is (no retry: the line was sent on it), keeping the timing rules.
    private func finish<T>(
        deadline: Deadline, keepsSession: (any Error) -> Bool, started: UInt64, _ receive: (Session) throws -> T
    ) throws -> T {
        defer { noteFinished(started: started) }
        guard let current = session else { throw RemoteVolumeError.unreachable("the connection was closed") }
        do {
            return try receive(current)
        } catch {
            if !keepsSession(error) { drop() }
            throw error
        }
    }

    private func noteFinished(started: UInt64) {
        let now = DispatchTime.now().uptimeNanoseconds
        lastUsed = now
        answersQuickly = session != nil && Double(now &- started) < patienceSeconds * 1e9
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
            // Timed without the connecting: the next request's quick path depends on the device's replies.
            let started = DispatchTime.now().uptimeNanoseconds
            defer { noteFinished(started: started) }
            return try work(current, deadline)
        } catch {
            if !keepsSession(error) { drop() }
            throw error
        }
    }
}

/// An ``SerialLink/Exchange`` carried into the queue's `@Sendable` work: its closures only run while the link's
/// token is owned, one request at a time.
private struct UnsafeExchange<Session: AnyObject, T>: @unchecked Sendable {
    let exchange: SerialLink<Session>.Exchange<T>
    init(_ exchange: SerialLink<Session>.Exchange<T>) { self.exchange = exchange }
}
