#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP connection that speaks a line protocol (MPD's text protocol, Snapcast's newline-delimited JSON-RPC),
/// bounded against a hostile or broken peer.
///
/// - Every read and write takes an absolute ``Deadline``: a peer that trickles bytes cannot stretch a request
///   past it.
/// - A line longer than ``maxLineBytes`` fails with ``RemoteVolumeError/replyTooLarge(limit:)`` as soon as
///   that many bytes arrived without a newline; nothing beyond `maxLineBytes` (+ one read) is ever buffered.
/// - The peer closing the connection is ``RemoteVolumeError/unreachable(_:)`` (transient: the device may be
///   restarting).
///
/// Not thread-safe: one request at a time (``SerialLink`` serializes them).
final class LineChannel {
    /// The longest line accepted, in bytes (without the newline).
    let maxLineBytes: Int
    private let socket: Socket
    /// Bytes received and not yet returned as a line.
    private var pending: [UInt8] = []
    /// How many bytes of `pending` were already searched for a newline.
    private var scanned = 0
    /// What each read lands in before it joins `pending`, allocated once (a fresh 16 KiB buffer per read
    /// would be part of every request's cost).
    private var scratch = [UInt8](repeating: 0, count: 16_384)

    /// Connects to `host:port`, failing at `deadline`.
    init(host: String, port: UInt16, maxLineBytes: Int, deadline: Deadline) throws {
        self.maxLineBytes = max(1, maxLineBytes)
        socket = try Socket.connect(host: host, port: port, deadline: deadline)
    }

    deinit { socket.close() }

    /// Closes the connection; later calls fail.
    func close() { socket.close() }

    /// Sends `text` (which must already end with its newline) as UTF-8.
    func send(_ text: String, deadline: Deadline) throws {
        var text = text
        try text.withUTF8 { try socket.sendAll(UnsafeRawBufferPointer($0), deadline: deadline) }
    }

    /// Whether a line for which `ends` is true has arrived (so a reply that ends with it can be read without
    /// waiting): when none is buffered, waits at most `milliseconds` for bytes and reads what came (one poll,
    /// one read). Never buffers more than ``maxLineBytes`` (+ one read): beyond that it says `false` and leads
    /// ``readLine(deadline:)`` to apply the caps. The peer closing is ``RemoteVolumeError/unreachable(_:)``.
    func hasLine(waitingAtMost milliseconds: Int32, where ends: (ArraySlice<UInt8>) -> Bool) throws -> Bool {
        if bufferedLine(where: ends) { return true }
        guard pending.count <= maxLineBytes else { return false }
        var descriptor = pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, milliseconds) > 0 else { return false }
        let room = max(1, min(scratch.count, maxLineBytes + 1 - pending.count))
        let count = try scratch.withUnsafeMutableBytes { buffer in
            try socket.receiveNow(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<room]))
        }
        guard let count else { return false }
        guard count > 0 else { throw RemoteVolumeError.unreachable("the device closed the connection") }
        pending.append(contentsOf: scratch[0..<count])
        return bufferedLine(where: ends)
    }

    /// Whether a whole buffered line (without its `\r\n` or `\n`) satisfies `ends`.
    private func bufferedLine(where ends: (ArraySlice<UInt8>) -> Bool) -> Bool {
        var start = pending.startIndex
        while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
            var end = newline
            if end > start, pending[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            if ends(pending[start..<end]) { return true }
            start = newline + 1
        }
        return false
    }

    /// The next line without its `\n` (and without a `\r` before it), decoded as UTF-8 (invalid bytes become
    /// U+FFFD).
    func readLine(deadline: Deadline) throws -> String {
        while true {
            if let newline = pending[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                var end = newline
                if end > 0, pending[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = String(decoding: pending[0..<end], as: UTF8.self)
                pending.removeSubrange(0...newline)
                scanned = 0
                return line
            }
            scanned = pending.count
            guard pending.count <= maxLineBytes else {
                throw RemoteVolumeError.replyTooLarge(limit: maxLineBytes)
            }
            if deadline.hasPassed { throw RemoteVolumeError.timedOut }
            try receive(deadline: deadline)
        }
    }

    /// Reads what has arrived (waiting until `deadline`) onto `pending`: never more than the line may still
    /// grow by (plus the newline), so a flood is not buffered.
    private func receive(deadline: Deadline) throws {
        let room = max(1, min(scratch.count, maxLineBytes + 1 - pending.count))
        let count = try scratch.withUnsafeMutableBytes { buffer in
            try socket.receive(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<room]), deadline: deadline)
        }
        guard count > 0 else { throw RemoteVolumeError.unreachable("the device closed the connection") }
        pending.append(contentsOf: scratch[0..<count])
    }

    /// The next line if one has already arrived (or arrives with the bytes already waiting), else `nil`;
    /// never waits. The peer having closed the connection is ``RemoteVolumeError/unreachable(_:)``.
    func readLineIfReady() throws -> String? {
        while true {
            if pending[scanned...].contains(UInt8(ascii: "\n")) {
                return try readLine(deadline: Deadline(in: 1))
            }
            scanned = pending.count
            guard pending.count <= maxLineBytes else { throw RemoteVolumeError.replyTooLarge(limit: maxLineBytes) }
            var descriptor = pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 0) > 0 else { return nil }
            try receive(deadline: Deadline(in: 1))
        }
    }

    /// Whether the peer has closed the connection (or sent something unasked) while it sat idle: such a
    /// connection is not reused. Does not wait.
    var isStale: Bool {
        if !pending.isEmpty { return true }
        // A zero-timeout poll, not `Socket.wait`: a deadline that has already passed makes `wait` throw
        // `.timedOut` before it looks (the absolute-deadline rule), so a closed idle connection would pass.
        var descriptor = pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0)
        let result = poll(&descriptor, 1, 0)
        return result != 0  // Readable while idle (closed, reset, or bytes nobody asked for), or poll failed.
    }
}
