#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A refusal from MPD: `ACK [code@index] {command} message` (MPD protocol, "Responses"). The connection
/// stays usable after one.
struct MPDAck: Error, Equatable {
    /// MPD's error code (`enum ack` in MPD's source: 2 argument, 3 password, 4 permission, 5 unknown
    /// command, 50 no such thing, 52 system, …).
    var code: Int
    /// The command it refused, as MPD names it.
    var command: String
    /// MPD's message, sanitized.
    var message: String

    /// Parses an `ACK` line; `nil` if `line` is not one.
    init?(line: String) {
        guard line.hasPrefix("ACK ") else { return nil }
        var rest = Substring(line.dropFirst(4))
        var code = 0
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            let inside = rest[rest.index(after: rest.startIndex)..<close]
            code = Int(inside.prefix { $0 != "@" }.prefix(6)) ?? 0
            rest = rest[rest.index(after: close)...].drop { $0 == " " }
        }
        var command = ""
        if rest.hasPrefix("{"), let close = rest.firstIndex(of: "}") {
            command = String(rest[rest.index(after: rest.startIndex)..<close])
            rest = rest[rest.index(after: close)...].drop { $0 == " " }
        }
        self.code = code
        self.command = PeerText.clean(command, limit: 40)
        self.message = PeerText.clean(rest)
    }

    /// What it means for the user, as a ``RemoteVolumeError``.
    var remoteVolumeError: RemoteVolumeError {
        switch code {
        case 3:
            return .unsupported(
                "MPD refused the password (\(message)); give the right one as mpd://PASSWORD@HOST[:PORT]")
        case _ where message.lowercased().contains("no mixer"):
            // MPD 0.23 with mixer_type "none": `setvol` → ACK [5@0] {setvol} No mixer (checked on the real server).
            return .unsupported(
                "this MPD has no mixer (it refused \"\(command)\": \(message)); set mixer_type in its audio_output")
        case 4:
            return .unsupported(
                "MPD refused \"\(command)\" without permission (\(message)); if it has a password, connect with mpd://PASSWORD@HOST[:PORT]"
            )
        default:
            return .unsupported("MPD refused \"\(command)\": \(message) (ACK \(code))")
        }
    }
}

/// One connection to MPD, greeted and (when a password is given) authenticated.
///
/// Bounds (docs/security.md): each line at most ``maxLineBytes``, each response at most ``maxResponseLines``
/// lines, every command within the caller's deadline.
final class MPDSession {
    /// The longest line read from MPD; a `status` line is a few dozen bytes.
    static let maxLineBytes = 8 * 1024
    /// The most lines one response may have (`status` has ~20).
    static let maxResponseLines = 256

    let channel: LineChannel
    /// The protocol version from the greeting, e.g. [0, 23, 5].
    let version: [Int]

    /// Connects, reads the `OK MPD <version>` greeting and sends `password` if one is given.
    init(host: String, port: UInt16, password: String?, deadline: Deadline) throws {
        channel = try LineChannel(host: host, port: port, maxLineBytes: Self.maxLineBytes, deadline: deadline)
        let greeting = try channel.readLine(deadline: deadline)
        guard greeting.hasPrefix("OK MPD ") else {
            channel.close()
            throw RemoteVolumeError.invalidReply(
                "not an MPD server (it greeted with \"\(PeerText.clean(greeting, limit: 60))\")")
        }
        version = greeting.dropFirst(7).split(separator: ".").prefix(3).map { Int($0.prefix(6)) ?? 0 }
        if let password {
            do {
                _ = try command("password \(MPDSession.quoted(password))", deadline: deadline)
            } catch let ack as MPDAck {
                channel.close()
                throw ack.remoteVolumeError
            }
        }
    }

    /// Whether the server speaks at least `major.minor`.
    func supports(_ major: Int, _ minor: Int) -> Bool {
        let have = (version.first ?? 0, version.count > 1 ? version[1] : 0)
        return have >= (major, minor)
    }

    /// Sends one command line and returns its `key: value` pairs; throws ``MPDAck`` for a refusal.
    func command(_ line: String, deadline: Deadline) throws -> [(key: String, value: String)] {
        try channel.send(line + "\n", deadline: deadline)
        return try readResponse(deadline: deadline)
    }

    /// Sends `commands` as one command list (`command_list_begin` … `command_list_end`, one write) and returns
    /// the `key: value` pairs of all their replies, which MPD ends with a single `OK`; throws ``MPDAck`` for
    /// the first command refused, after which MPD runs none of the rest (MPD protocol, "Command lists").
    func commandList(_ commands: [String], deadline: Deadline) throws -> [(key: String, value: String)] {
        var text = "command_list_begin\n"
        for command in commands { text += command + "\n" }
        try channel.send(text + "command_list_end\n", deadline: deadline)
        return try readResponse(deadline: deadline)
    }

    /// Reads lines up to `OK` (or an `ACK`).
    func readResponse(deadline: Deadline) throws -> [(key: String, value: String)] {
        var pairs: [(key: String, value: String)] = []
        while true {
            let line = try channel.readLine(deadline: deadline)
            if line == "OK" { return pairs }
            if let ack = MPDAck(line: line) { throw ack }
            guard pairs.count < Self.maxResponseLines else {
                throw RemoteVolumeError.invalidReply("an MPD response longer than \(Self.maxResponseLines) lines")
            }
            guard let colon = line.firstRange(ofText: ": ") else {
                throw RemoteVolumeError.invalidReply(
                    "an MPD line that is not \"key: value\": \(PeerText.clean(line, limit: 60))")
            }
            pairs.append((String(line[..<colon.lowerBound]), String(line[colon.upperBound...])))
        }
    }

    /// Whether the reply to the last command has arrived whole (its `OK` or `ACK` line is buffered), waiting
    /// at most `milliseconds` for more bytes (``LineChannel/hasLine(waitingAtMost:where:)``).
    func replyArrived(waitingAtMost milliseconds: Int32) throws -> Bool {
        try channel.hasLine(waitingAtMost: milliseconds) { line in
            line.elementsEqual("OK".utf8) || line.starts(with: "ACK ".utf8)
        }
    }

    /// The mixer's level: `getvol` (MPD ≥ 0.23) or `status`'s `volume`; a number outside 0…100 is refused.
    func volume(deadline: Deadline) throws -> Int {
        try level(from: command(volumeCommand, deadline: deadline))
    }

    /// The command that reads the level on this server: `getvol` from MPD 0.23, else `status`.
    var volumeCommand: String { supports(0, 23) ? "getvol" : "status" }

    /// The level in the reply to ``volumeCommand``; a number outside 0…100 is refused.
    func level(from pairs: [(key: String, value: String)]) throws -> Int {
        guard let text = pairs.first(where: { $0.key == "volume" })?.value else {
            // With mixer_type "none", MPD 0.23's getvol answers a bare OK and status has no volume line
            // (older MPDs say volume: -1); both checked on the real server / protocol docs.
            throw RemoteVolumeError.unsupported(
                "this MPD has no mixer (it reports no volume); set mixer_type in its audio_output")
        }
        guard text.count <= 12, let level = Int(text) else {
            throw RemoteVolumeError.invalidReply(
                "an MPD volume that is not a number: \(PeerText.clean(text, limit: 20))")
        }
        // MPD says -1 when it has no mixer (older servers, protocol docs).
        guard level != -1 else {
            throw RemoteVolumeError.unsupported(
                "this MPD has no mixer (volume \(level)); set mixer_type in its audio_output")
        }
        // Anything else outside the 0…100 MPD declares is refused, not clamped (docs/security.md).
        guard MPDDevice.percentRange.contains(level) else {
            throw RemoteVolumeError.invalidReply("MPD answered volume \(level), outside its range 0…100")
        }
        return level
    }

    /// `text` as one MPD argument: in double quotes, with `"` and `\` escaped (MPD protocol, "Requests").
    static func quoted(_ text: String) -> String {
        var result = "\""
        for character in text {
            if character == "\"" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result + "\""
    }
}
