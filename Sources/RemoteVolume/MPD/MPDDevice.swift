import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A Music Player Daemon (the engine under Volumio, moOde and many DIY players) as a ``RemoteVolumeDevice``,
/// over its text protocol on TCP port 6600: `setvol`, `getvol` (MPD ≥ 0.23) or `status`, and `idle mixer`
/// on a second connection for changes made elsewhere (another client, the web UI).
///
/// ```swift
/// let mpd = try await MPDDevice.connect(host: "moode.local", password: nil)
/// let controller = RemoteVolumeController(device: mpd)
/// ```
///
/// **Mute.** MPD has no mute of its own, so muting is modelled on the volume: ``setMuted(_:)`` `true`
/// remembers the level and sets 0; `false` restores the remembered level (or ``unmuteLevel`` when this
/// object did not do the muting, e.g. after a restart of the app). ``isMuted()`` is "the volume is 0".
///
/// **Bounds.** One persistent command connection, used by one request at a time; every request (connecting,
/// greeting and password included) ends within ``requestTimeout``; lines are capped at 8 KiB and responses
/// at 256 lines; a volume outside 0…100 is refused, not clamped; a password with a control character is
/// refused before anything is sent and never repeated; a connection MPD dropped (its `connection_timeout`, a
/// restart) is replaced transparently. ``changes()`` runs at most 10 `idle` rounds a second.
public final class MPDDevice: RemoteVolumeDevice {
    /// MPD's registered port.
    public static let defaultPort: UInt16 = 6600

    /// The server's host name or address.
    public let host: String
    /// The server's TCP port.
    public let port: UInt16
    /// The deadline for each request, in seconds.
    public let requestTimeout: TimeInterval
    /// The level ``setMuted(_:)`` `false` restores when there is no level remembered from muting.
    public let unmuteLevel: Int
    /// MPD's volume is a percentage.
    public let volumeRange: ClosedRange<Int> = MPDDevice.percentRange

    /// MPD's volume: a percentage, 0…100 (the range `setvol` takes and `getvol` reports).
    package static let percentRange: ClosedRange<Int> = 0...100
    /// "MPD at HOST:PORT".
    public var displayName: String { Self.displayName(host: host, port: port) }

    /// "MPD at HOST:PORT" (an IPv6 host in brackets).
    package static func displayName(host: String, port: UInt16) -> String {
        "MPD at \(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    private let password: String?
    /// The command connection (internal: tests count its hand-offs).
    let link: SerialLink<MPDSession>
    /// The level before this object muted, restored by unmuting.
    private let levelBeforeMute = Locked<Int?>(nil)

    /// Creates a device; no connection is made until the first request.
    ///
    /// Throws ``RemoteVolumeError/invalidURL(_:)`` for a password that cannot be sent (it contains a line
    /// break, NUL, ESC or another control character; the message never repeats it) and for a host that is
    /// not a host name or address.
    public init(
        host: String, port: UInt16 = MPDDevice.defaultPort, password: String? = nil,
        requestTimeout: TimeInterval = 3, unmuteLevel: Int = 20
    ) throws {
        try Self.check(host: host, password: password)
        self.host = host
        self.port = port
        self.password = password
        self.requestTimeout = requestTimeout
        self.unmuteLevel = min(max(unmuteLevel, 1), 100)
        link = SerialLink(
            label: "RemoteVolume.MPD",
            open: { deadline in try MPDSession(host: host, port: port, password: password, deadline: deadline) },
            isStale: { $0.channel.isStale },
            close: { $0.channel.close() }
        )
    }

    /// Refuses a password that cannot be sent and a host that is not a host name or address, as
    /// ``init(host:port:password:requestTimeout:unmuteLevel:)`` says.
    private static func check(host: String, password: String?) throws {
        if let password, !RemoteDeviceURL.isSendablePassword(password) {
            throw RemoteVolumeError.invalidURL(
                "an MPD password with a control character (a line break, NUL, ESC, …) cannot be sent; use the password as mpd.conf has it"
            )
        }
        guard !host.isEmpty else {
            throw RemoteVolumeError.invalidURL("an MPD address needs a host: mpd://HOST[:PORT]")
        }
        guard RemoteDeviceURL.isUsableHost(host) else {
            throw RemoteVolumeError.invalidURL(
                "the MPD host \"\(PeerText.clean(host, limit: 60))\": a host may hold \(RemoteDeviceURL.hostRule)")
        }
    }

    /// Creates a device and checks that it answers, accepts the password and has a mixer (by reading the volume).
    public static func connect(
        host: String, port: UInt16 = MPDDevice.defaultPort, password: String? = nil,
        requestTimeout: TimeInterval = 3
    ) async throws -> MPDDevice {
        let device = try MPDDevice(host: host, port: port, password: password, requestTimeout: requestTimeout)
        _ = try await device.volume()
        return device
    }

    /// Reads the mixer's level.
    public func volume() async throws -> Int {
        try await exchange(line: nil) { session, pairs in try session.level(from: pairs) }
    }

    /// Sends `setvol`, clamped to 0…100.
    public func setVolume(_ level: Int) async throws {
        let level = volumeRange.clamped(level)
        try await exchange(line: "setvol \(level)\n") { _, _ in }
    }

    /// The level, after setting it to `level` when one is given (clamped to 0…100): the request of a one-shot
    /// command-line process (`volumekit remote get|set`), with the checks and errors of
    /// ``init(host:port:password:requestTimeout:unmuteLevel:)``, ``volume()`` and ``setVolume(_:)``.
    ///
    /// No device is made (its connection link costs such a process generic metadata and locks it never
    /// uses); the request runs on a connection of its own and the caller's thread, which blocks until MPD
    /// answers (within `requestTimeout`), and starts no thread of Dispatch's or of Swift concurrency's. Once
    /// MPD has greeted (the password never goes to a server that did not greet as MPD), the password, the
    /// `setvol` and the command that reads the level back go out as one command list (MPD protocol, "Command
    /// lists"): one write and one reply where a command at a time waits for MPD three times — one network
    /// round trip instead of three over Wi-Fi. MPD stops a list at its first refusal, so nothing is set after
    /// a wrong password.
    package static func levelBlocking(
        host: String, port: UInt16, password: String?, setting level: Int?, requestTimeout: TimeInterval = 3
    ) throws -> Int {
        try check(host: host, password: password)
        do {
            let deadline = Deadline(in: requestTimeout)
            let session = try MPDSession(host: host, port: port, password: nil, deadline: deadline)
            defer { session.channel.close() }
            var commands = password.map { ["password \(MPDSession.quoted($0))"] } ?? []
            if let level { commands.append("setvol \(percentRange.clamped(level))") }
            commands.append(session.volumeCommand)
            return try session.level(from: session.commandList(commands, deadline: deadline))
        } catch {
            throw forUser(error)
        }
    }

    /// Whether the volume is 0 (MPD has no separate mute).
    public func isMuted() async throws -> Bool {
        try await volume() == 0
    }

    /// Mutes by remembering the level and setting 0; unmutes by restoring it (see the type's notes).
    public func setMuted(_ muted: Bool) async throws {
        let remembered = levelBeforeMute
        let fallback = unmuteLevel
        try await request { session, deadline in
            let current = try session.volume(deadline: deadline)
            if muted {
                guard current > 0 else { return }
                _ = try session.command("setvol 0", deadline: deadline)
                remembered.withLock { $0 = current }
            } else {
                let restore = remembered.withLock { value -> Int in
                    defer { value = nil }
                    return value ?? fallback
                }
                guard current == 0 else { return }
                _ = try session.command("setvol \(restore)", deadline: deadline)
            }
        }
    }

    /// Follows `idle mixer` on a second connection: every mixer change is read and yielded (with
    /// `muted` = level is 0), at most 10 a second (the level read after the pause is the newest). After the
    /// connection drops (MPD restarted) it reconnects after 0.1 s, backing off to 1 s while connections keep
    /// failing, and yields the level it finds. The stream ends when its consumer stops listening.
    public func changes() async throws -> AsyncStream<RemoteVolumeChange>? {
        changes(clock: .system)
    }

    /// ``changes()`` with the watcher paced by `clock` (tests advance it by hand).
    func changes(clock: WatcherClock) -> AsyncStream<RemoteVolumeChange> {
        let (stream, continuation) = AsyncStream<RemoteVolumeChange>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let watcher = MPDMixerWatcher(
            host: host, port: port, password: password, requestTimeout: requestTimeout, clock: clock
        ) { level in
            continuation.yield(RemoteVolumeChange(volume: level, muted: level == 0))
        }
        continuation.onTermination = { _ in watcher.cancel() }
        watcher.start()
        return stream
    }

    /// One command and its reply, on the caller's thread when the connection answers quickly (``SerialLink``):
    /// `line` with its newline, or `nil` for the session's ``MPDSession/volumeCommand``.
    private func exchange<T: Sendable>(
        line: String?, _ parse: @escaping (MPDSession, [(key: String, value: String)]) throws -> T
    ) async throws -> T {
        let exchange = SerialLink<MPDSession>.Exchange(
            send: { session, deadline in
                try session.channel.send(line ?? session.volumeCommand + "\n", deadline: deadline)
            },
            arrived: { session, milliseconds in try session.replyArrived(waitingAtMost: milliseconds) },
            receive: { session, deadline in try parse(session, session.readResponse(deadline: deadline)) })
        return try await mappingErrors {
            try await link.perform(timeout: requestTimeout, keepsSession: { $0 is MPDAck }, quick: exchange)
        }
    }

    private func request<T: Sendable>(_ work: @escaping @Sendable (MPDSession, Deadline) throws -> T) async throws -> T
    {
        try await mappingErrors {
            try await link.perform(timeout: requestTimeout, keepsSession: { $0 is MPDAck }, work)
        }
    }

    /// `body`'s errors as ``RemoteVolumeError``s (``forUser(_:)``).
    private func mappingErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw Self.forUser(error)
        }
    }

    /// An error as a ``RemoteVolumeError``: an `ACK` by what it means for the user.
    private static func forUser(_ error: any Error) -> RemoteVolumeError {
        (error as? MPDAck)?.remoteVolumeError ?? error.asRemoteVolumeError
    }
}

extension MPDDevice: MutesByVolume {}
