import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `idle mixer` loop behind ``MPDDevice/changes()``, on its own thread and connection.
///
/// MPD answers `idle mixer` with `changed: mixer` + `OK` when any client changes the volume (MPD protocol,
/// "Querying MPD's status": idle). An idle client is not subject to MPD's `connection_timeout`, so the loop
/// waits in slices (to notice cancellation) and every ``keepAlive`` seconds checks the connection with
/// `noidle`; a dead connection is replaced.
///
/// Bounds against a hostile server (docs/security.md): at most one `idle` round (and its `getvol`)
/// per ``minimumRoundInterval``, an idle response of at most ``MPDSession/maxResponseLines`` lines, and
/// reconnects paced by ``ReconnectBackoff`` (a server that greets and then misbehaves is not reconnected
/// faster than once a second after the first few).
final class MPDMixerWatcher: @unchecked Sendable {
    /// Seconds between checks that an idle connection is still alive.
    static let keepAlive: TimeInterval = 20
    /// How often a blocked read looks at cancellation.
    static let slice: TimeInterval = 0.2
    /// The shortest time between two `idle` rounds, in seconds: a server that answers every `idle` at once
    /// gets at most 10 `idle` and 10 `getvol` a second.
    static let minimumRoundInterval: TimeInterval = 0.1

    private let host: String
    private let port: UInt16
    private let password: String?
    private let requestTimeout: TimeInterval
    private let report: @Sendable (Int) -> Void
    private let loop: WatcherLoop
    /// The level last reported, over every connection; only touched on the watcher's thread.
    private var lastReported: Int?

    init(
        host: String, port: UInt16, password: String?, requestTimeout: TimeInterval, clock: WatcherClock = .system,
        report: @escaping @Sendable (Int) -> Void
    ) {
        self.host = host
        self.port = port
        self.password = password
        self.requestTimeout = requestTimeout
        self.report = report
        loop = WatcherLoop(clock: clock)
    }

    func start() {
        loop.start(named: "RemoteVolume.MPD.idle") { [self] in try follow() }
    }

    func cancel() { loop.cancel() }

    private var isCancelled: Bool { loop.isCancelled }

    /// One connection, followed until cancelled. Throws when it is lost or refused, or the server
    /// misbehaves: the loop then tries again (MPD may be restarting), backing off.
    private func follow() throws {
        let session = try MPDSession(host: host, port: port, password: password, deadline: Deadline(in: requestTimeout))
        defer { session.channel.close() }
        // What it is now: after a restart this is how the controller learns the device's level.
        let level = try session.volume(deadline: Deadline(in: requestTimeout))
        if level != lastReported { report(level); lastReported = level }
        while !isCancelled {
            let round = loop.clock.now()
            if try waitForMixerChange(session) {
                // Paced: the level read after the pause is the newest, so nothing is lost by waiting.
                loop.pause(until: round + Self.minimumRoundInterval)
                if isCancelled { break }
                let level = try session.volume(deadline: Deadline(in: requestTimeout))
                report(level)
                lastReported = level
            }
        }
    }

    /// Sends `idle mixer` and waits; `true` when the mixer changed, `false` after a quiet keep-alive period
    /// or cancellation (the idle is ended with `noidle` either way).
    private func waitForMixerChange(_ session: MPDSession) throws -> Bool {
        try session.channel.send("idle mixer\n", deadline: Deadline(in: requestTimeout))
        let quietUntil = Deadline(in: Self.keepAlive)
        var changed = false
        var lines = 0
        while true {
            let line: String
            do {
                line = try session.channel.readLine(deadline: Deadline(in: Self.slice))
            } catch RemoteVolumeError.timedOut {
                if isCancelled || quietUntil.hasPassed {
                    // End the idle: MPD answers OK (or the changes it had, then OK).
                    try session.channel.send("noidle\n", deadline: Deadline(in: requestTimeout))
                    return try session.readResponse(deadline: Deadline(in: requestTimeout)).contains {
                        $0.key == "changed"
                    }
                }
                continue
            }
            if line == "OK" { return changed }
            if let ack = MPDAck(line: line) { throw ack.remoteVolumeError }
            lines += 1
            guard lines <= MPDSession.maxResponseLines else {
                throw RemoteVolumeError.invalidReply(
                    "an MPD idle response longer than \(MPDSession.maxResponseLines) lines")
            }
            if line.hasPrefix("changed:") { changed = true; continue }
            throw RemoteVolumeError.invalidReply(
                "unexpected line in an MPD idle response: \(PeerText.clean(line, limit: 60))")
        }
    }
}
