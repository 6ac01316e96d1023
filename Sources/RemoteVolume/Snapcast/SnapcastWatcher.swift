import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The notification loop behind ``SnapcastClient/changes()`` and ``SnapcastGroup/changes()``, on its own
/// thread and control connection.
///
/// snapserver pushes `Client.OnVolumeChanged`, `Group.OnMute`, `Server.OnUpdate`, … to every control
/// connection. On each (re)connect, and every ``keepAlive`` seconds (which also proves the connection is
/// alive), `resync` reads the state afresh; a lost connection is replaced, paced by ``ReconnectBackoff``.
///
/// Bounds against a hostile server (docs/security.md): what `resync` and `notified` make of the
/// lines goes to `deliver` through a ``Coalescer`` — at most one change per 0.1 s, always the newest, the
/// last one delivered within 0.1 s of the flood's end — and a change equal to the one delivered before is
/// not delivered again.
final class SnapcastWatcher: @unchecked Sendable {
    /// Seconds between re-reads on a quiet connection.
    static let keepAlive: TimeInterval = 20
    /// How often a blocked read looks at cancellation.
    static let slice: TimeInterval = 0.2

    typealias Resync = (SnapcastSession, Deadline) throws -> RemoteVolumeChange?
    typealias Notified = (_ method: String, _ line: String) -> RemoteVolumeChange?

    private let link: SnapcastLink
    private let resync: Resync
    private let notified: Notified
    private let deliver: @Sendable (RemoteVolumeChange) -> Void
    private let loop: WatcherLoop
    private var clock: WatcherClock { loop.clock }
    /// Only touched on the watcher's thread.
    private var pacing = Coalescer<RemoteVolumeChange>()
    private var delivered: RemoteVolumeChange?

    init(
        link: SnapcastLink, resync: @escaping Resync, notified: @escaping Notified, clock: WatcherClock = .system,
        deliver: @escaping @Sendable (RemoteVolumeChange) -> Void
    ) {
        self.link = link
        self.resync = resync
        self.notified = notified
        self.deliver = deliver
        loop = WatcherLoop(clock: clock)
    }

    func start() {
        loop.start(
            named: "RemoteVolume.Snapcast.notifications", rest: { [self] in rest(until: $0) },
            connection: { [self] in try follow() })
    }

    func cancel() { loop.cancel() }

    private var isCancelled: Bool { loop.isCancelled }

    /// Passes `change` through the pacing (and the duplicate check) to `deliver`.
    private func offer(_ change: RemoteVolumeChange?) {
        guard let change, let passed = pacing.offer(change, at: clock.now()) else { return }
        send(passed)
    }

    /// Delivers a held change whose time has come.
    private func deliverDue() {
        if let due = pacing.due(at: clock.now()) { send(due) }
    }

    private func send(_ change: RemoteVolumeChange) {
        guard change != delivered else { return }
        delivered = change
        deliver(change)
    }

    /// One connection, followed until cancelled. Throws when it is lost or refused, or the server sends
    /// garbage: the loop then opens a fresh one soon (the server may be restarting), backing off.
    private func follow() throws {
        let session = try SnapcastSession(host: link.host, port: link.port, deadline: Deadline(in: link.requestTimeout))
        defer { session.channel.close() }
        offer(try resync(session, Deadline(in: link.requestTimeout)))
        var quietUntil = Deadline(in: Self.keepAlive)
        while !isCancelled {
            deliverDue()
            // A held change waits for its turn, not for the next line.
            let wait = pacing.nextDue.map { max(0.005, min(Self.slice, $0 - clock.now())) } ?? Self.slice
            let line: String
            do {
                line = try session.channel.readLine(deadline: Deadline(in: wait))
            } catch RemoteVolumeError.timedOut {
                if quietUntil.hasPassed {
                    offer(try resync(session, Deadline(in: link.requestTimeout)))
                    quietUntil = Deadline(in: Self.keepAlive)
                }
                continue
            }
            if JSONLine.isArray(line) {
                // A batch: what snapserver sends the others when a controller sent a batch.
                for (method, text) in try SnapcastSession.notifications(inBatch: line) {
                    offer(notified(method, text))
                }
                continue
            }
            let envelope = try JSONLine.decode(Snapcast.Envelope.self, from: line)
            if envelope.id == nil, let method = envelope.method { offer(notified(method, line)) }
        }
    }

    /// The wait before the next connection, until `instant`: a held change is delivered when its turn comes,
    /// not after the whole wait.
    private func rest(until instant: TimeInterval) {
        while !isCancelled {
            deliverDue()
            guard clock.now() < instant else { break }
            clock.sleep(min(instant, pacing.nextDue ?? instant)) { isCancelled }
        }
    }
}

extension SnapcastLink {
    /// Follows the server's notifications on a connection of their own (a ``SnapcastWatcher`` paced by
    /// `clock`): a stream keeping the newest 64 changes, whose end (its consumer stops listening) cancels the
    /// watcher. What ``SnapcastClient/changes()`` and ``SnapcastGroup/changes()`` return.
    func changes(
        clock: WatcherClock = .system, resync: @escaping SnapcastWatcher.Resync,
        notified: @escaping SnapcastWatcher.Notified
    ) -> AsyncStream<RemoteVolumeChange> {
        let (stream, continuation) = AsyncStream<RemoteVolumeChange>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let watcher = SnapcastWatcher(
            link: self, resync: resync, notified: notified, clock: clock, deliver: { continuation.yield($0) })
        continuation.onTermination = { _ in watcher.cancel() }
        watcher.start()
        return stream
    }
}
