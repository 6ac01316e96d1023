import RemoteVolume

/// `volumekit remote get|set URL`: the line each prints, in as few requests as the device's protocol allows
/// (the whole process within 2× of `mpc volume`, and one request on the wire for Snapcast).
///
/// - MPD: no probe before the command (the command itself says when the server is not there, refuses the
///   password or has no mixer): after the greeting, one command list of the password, `setvol` for `set`, and
///   the `getvol` that reads the level.
/// - A Snapcast client: `get` is one `Client.GetStatus`; `set` one JSON-RPC batch of the `Client.SetVolume`
///   and a `Client.GetStatus` (the name to print, the level as the server has it): one line each way.
/// - UPnP and a Snapcast group: connect (the description and its range; the group's members), then the calls.
enum RemoteOneShot {
    /// `get`'s line: "NAME: volume LEVEL of LOW…HIGH[, muted]".
    static func get(_ url: RemoteDeviceURL) async throws -> String {
        let name: String
        let range: ClosedRange<Int>
        let level: Int
        let muted: Bool
        switch url {
        case .mpd(let host, let port, let password):
            return try mpdLine(host: host, port: port, password: password, setting: nil)
        case .snapcastClient(let host, let port, let id):
            let client = SnapcastClient(host: host, port: port, clientID: id)
            let status = try await client.status()
            (name, range, level, muted) = (status.name, client.volumeRange, status.volume, status.muted)
        case .upnp, .snapcastGroup:
            let device = try await url.connect()
            (name, range) = (device.displayName, device.volumeRange)
            level = try await device.volume()
            muted = try await device.isMuted()
        }
        return getLine(name, range, level, muted: muted)
    }

    private static func getLine(_ name: String, _ range: ClosedRange<Int>, _ level: Int, muted: Bool) -> String {
        "\(name): volume \(level) of \(range.lowerBound)…\(range.upperBound)\(muted ? ", muted" : "")"
    }

    /// `set`'s line: "NAME: volume LEVEL", the level as the device has it afterwards. A level outside the
    /// device's range is a ``UsageError``.
    static func set(_ url: RemoteDeviceURL, to level: Int) async throws -> String {
        switch url {
        case .mpd(let host, let port, let password):
            return try mpdLine(host: host, port: port, password: password, setting: level)
        case .snapcastClient(let host, let port, let id):
            let client = SnapcastClient(host: host, port: port, clientID: id)
            try check(level, within: client.volumeRange)
            let status = try await client.status(settingVolume: level)
            return "\(status.name): volume \(status.volume)"
        case .snapcastGroup:
            let group = try await url.connect()
            try check(level, within: group.volumeRange)
            try await group.setVolume(level)
            // The set lands the loudest client on the level exactly (SnapcastGroup): reading it back would be
            // one more request for what the replies said.
            return "\(group.displayName): volume \(level)"
        case .upnp:
            let renderer = try await url.connect()
            try check(level, within: renderer.volumeRange)
            try await renderer.setVolume(level)
            return "\(renderer.displayName): volume \(try await renderer.volume())"
        }
    }

    /// MPD's `get` line (`level` `nil`) or `set` line, on the calling thread with blocking sockets: no Dispatch
    /// worker thread and no Swift concurrency runtime start (about a millisecond of a whole `remote set`
    /// process, whose budget is 2× `mpc`'s), no device object, and after MPD's greeting one command list
    /// (``MPDDevice/levelBlocking(host:port:password:setting:requestTimeout:)``).
    static func mpdLine(host: String, port: UInt16, password: String?, setting level: Int?) throws -> String {
        let name = MPDDevice.displayName(host: host, port: port)
        let range = MPDDevice.percentRange
        guard let level else {
            let level = try MPDDevice.levelBlocking(host: host, port: port, password: password, setting: nil)
            // MPD has no mute of its own (MPDDevice.isMuted()): muted is level 0.
            return getLine(name, range, level, muted: level == 0)
        }
        try check(level, within: range)
        return
            "\(name): volume \(try MPDDevice.levelBlocking(host: host, port: port, password: password, setting: level))"
    }

    private static func check(_ level: Int, within range: ClosedRange<Int>) throws {
        guard range.contains(level) else {
            throw UsageError(
                "LEVEL must lie within this device's range \(range.lowerBound)…\(range.upperBound); \(level) does not")
        }
    }
}
