import Foundation
import VolumeKitCore

/// The notification loop behind ``SnapcastClient/changes()`` and ``SnapcastGroup/changes()``, on its own
/// thread and control connection.
///
/// snapserver pushes `Client.OnVolumeChanged`, `Group.OnMute`, `Server.OnUpdate`, … to every control
/// connection. On each (re)connect, and every ``keepAlive`` seconds (which also proves the connection is
/// alive), `resync` reads the state afresh; a lost connection is replaced, backing off up to 1 s.
final class SnapcastWatcher: @unchecked Sendable {
    /// Seconds between re-reads on a quiet connection.
    static let keepAlive: TimeInterval = 20
    /// How often a blocked read looks at cancellation.
    static let slice: TimeInterval = 0.2

    typealias Resync = (SnapcastSession, Deadline) throws -> Void
    typealias Notified = (_ method: String, _ line: String) -> Void

    private let link: SnapcastLink
    private let resync: Resync
    private let notified: Notified
    private let cancelled = Locked(false)

    init(link: SnapcastLink, resync: @escaping Resync, notified: @escaping Notified) {
        self.link = link
        self.resync = resync
        self.notified = notified
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "RemoteVolume.Snapcast.notifications"
        thread.start()
    }

    func cancel() { cancelled.withLock { $0 = true } }

    private var isCancelled: Bool { cancelled.current }

    private func run() {
        var backoff = 0.1
        while !isCancelled {
            do {
                let session = try SnapcastSession(
                    host: link.host, port: link.port, deadline: Deadline(in: link.requestTimeout))
                defer { session.channel.close() }
                try resync(session, Deadline(in: link.requestTimeout))
                backoff = 0.1
                var quietUntil = Deadline(in: Self.keepAlive)
                while !isCancelled {
                    let line: String
                    do {
                        line = try session.channel.readLine(deadline: Deadline(in: Self.slice))
                    } catch RemoteVolumeError.timedOut {
                        if quietUntil.hasPassed {
                            try resync(session, Deadline(in: link.requestTimeout))
                            quietUntil = Deadline(in: Self.keepAlive)
                        }
                        continue
                    }
                    let envelope = try JSONLine.decode(Snapcast.Envelope.self, from: line)
                    if envelope.id == nil, let method = envelope.method { notified(method, line) }
                }
                return
            } catch {
                // Lost, refused or garbage: a fresh connection soon (the server may be restarting).
                let until = Deadline(in: backoff)
                while !isCancelled, !until.hasPassed { Thread.sleep(forTimeInterval: min(Self.slice, backoff)) }
                backoff = min(backoff * 2, 1)
            }
        }
    }
}
