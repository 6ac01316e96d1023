import Foundation
import VolumeKitCore

@testable import RemoteVolume

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(Glibc)
private let systemSend = Glibc.send
private let systemClose = Glibc.close
private let noSignal = Int32(MSG_NOSIGNAL)
#else
private let systemSend = Darwin.send
private let systemClose = Darwin.close
private let noSignal: Int32 = 0
#endif

/// A scripted line-protocol server on 127.0.0.1 for the MPD and Snapcast tests (honest and hostile peers):
/// each accepted connection runs `handler` on its own thread. Loopback only; every loop is bounded (the
/// accept loop by ``stop()`` / deinit, handlers by their reads' timeouts).
final class LinePeer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let stopped = Locked(false)
    /// Connections accepted so far.
    let accepted = Locked(0)

    init(handler: @escaping @Sendable (LinePeerConnection) -> Void) throws {
        let fd = socket(AF_INET, Socket.streamType, 0)
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        do {
            port = try bindLoopback(fd, "the line peer")
            guard listen(fd, 8) == 0 else { throw RemoteVolumeError.unreachable("the line peer cannot listen") }
        } catch {
            close(fd)
            throw error
        }
        listener = fd
        let stopped = self.stopped
        let accepted = self.accepted
        Thread {
            while !stopped.current {
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 50) > 0 else { continue }
                let client = accept(fd, nil, nil)
                guard client >= 0 else { continue }
                accepted.withLock { $0 += 1 }
                // Every write leaves at once (no Nagle hold until the last one is acknowledged): a notification
                // the fake server writes before a reply is on its way before the reply is.
                var one: Int32 = 1
                _ = setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                let connection = LinePeerConnection(fd: client, stopped: stopped)
                Thread {
                    handler(connection); connection.close()
                }.start()
            }
            close(fd)
        }.start()
    }

    deinit { stop() }

    /// Stops accepting (open connections end when their handlers return).
    func stop() { stopped.withLock { $0 = true } }
}

/// One accepted connection, as the scripted peer sees it.
final class LinePeerConnection: @unchecked Sendable {
    let fd: Int32
    private let stopped: Locked<Bool>
    private var pending: [UInt8] = []
    private let closed = Locked(false)
    /// Whether the client closed its end (a read saw EOF).
    private(set) var sawEOF = false

    init(fd: Int32, stopped: Locked<Bool>) {
        self.fd = fd
        self.stopped = stopped
    }

    /// Whether the server was stopped.
    var isStopped: Bool { stopped.current }

    /// Sends `text`; `false` once the client is gone.
    @discardableResult
    func send(_ text: String) -> Bool { send(Data(text.utf8)) }

    @discardableResult
    func send(_ data: Data) -> Bool {
        var offset = 0
        while offset < data.count {
            let sent = data.withUnsafeBytes { raw in
                systemSend(fd, raw.baseAddress! + offset, raw.count - offset, noSignal)
            }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    /// The next line (without `\n`), or `nil` after `timeout` seconds or when the client closed.
    func readLine(timeout: Double = 2) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[0..<newline], as: UTF8.self)
                pending.removeSubrange(0...newline)
                return line
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0, !sawEOF else { return nil }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32(max(1, min(left, 0.05) * 1000))) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { sawEOF = true; return nil }
            pending.append(contentsOf: buffer[0..<count])
        }
    }

    func close() {
        let wasOpen = closed.withLock { value -> Bool in
            defer { value = true }
            return !value
        }
        if wasOpen { _ = systemClose(fd) }
    }
}

/// A small honest MPD (greeting, password, getvol, status, setvol, idle mixer / noidle) over ``LinePeer``,
/// so the MPD client is tested without the real server too. Volume changes wake every idle connection.
final class FakeMPD: @unchecked Sendable {
    struct State {
        var volume = 50
        var changes = 0
        /// Every command line received (the password's shown as `password`), in order.
        var commands: [String] = []
    }
    let state = Locked(State())
    let password: String?
    /// Close every connection after this many commands (MPD's `connection_timeout` dropping a client).
    let commandsPerConnection: Int
    private(set) var peer: LinePeer!

    init(password: String? = nil, commandsPerConnection: Int = .max) throws {
        self.password = password
        self.commandsPerConnection = commandsPerConnection
        let state = self.state
        peer = try LinePeer { [password, commandsPerConnection] connection in
            FakeMPD.serve(connection, state: state, password: password, commandsPerConnection: commandsPerConnection)
        }
    }

    var port: UInt16 { peer.port }

    func device(password: String? = nil, timeout: TimeInterval = honestPeerTimeout) throws -> MPDDevice {
        try MPDDevice(host: "127.0.0.1", port: port, password: password, requestTimeout: timeout)
    }

    private static func serve(
        _ connection: LinePeerConnection, state: Locked<State>, password: String?, commandsPerConnection: Int
    ) {
        connection.send("OK MPD 0.23.5\n")
        var authenticated = password == nil
        var served = 0
        // Like MPD, changes made while this client was not idling are reported by its next idle at once.
        var seen = state.current.changes
        while served < commandsPerConnection, !connection.isStopped,
            let line = connection.readLine(timeout: honestPeerTimeout * 3)
        {
            served += 1
            if line == "command_list_begin" {
                // MPD's command list: the commands' replies in one, ended by a single OK; the first refusal
                // (with its index in the list) ends it, and the commands after it are not run.
                var reply = ""
                var index = 0
                while let next = connection.readLine(timeout: honestPeerTimeout), next != "command_list_end" {
                    guard !reply.hasPrefix("ACK") else { continue }
                    let answer = respond(to: next, state: state, password: password, authenticated: &authenticated)
                    if answer.hasPrefix("ACK") {
                        reply = answer.replacingOccurrences(of: "@0]", with: "@\(index)]")
                    } else {
                        reply += answer.dropLast(3)
                    }
                    index += 1
                }
                connection.send(reply.hasPrefix("ACK") ? reply : reply + "OK\n")
                continue
            }
            if line.hasPrefix("idle") {
                var answered = false
                // Bounded: ends on a change, on noidle, on close, or after 10 s.
                for _ in 0..<200 where !answered && !connection.isStopped {
                    if state.current.changes != seen {
                        seen = state.current.changes
                        connection.send("changed: mixer\nOK\n")
                        answered = true
                    } else if let next = connection.readLine(timeout: 0.05) {
                        if next == "noidle" { connection.send("OK\n"); answered = true }
                    } else if connection.sawEOF {
                        return
                    }
                }
                continue
            }
            connection.send(respond(to: line, state: state, password: password, authenticated: &authenticated))
        }
    }

    /// The reply to one command line other than `idle` (with its `OK`, or an `ACK` for command index 0).
    private static func respond(
        to line: String, state: Locked<State>, password: String?, authenticated: inout Bool
    ) -> String {
        let words = line.split(separator: " ", maxSplits: 1).map(String.init)
        state.withLock { $0.commands.append(words.first == "password" ? "password" : line) }
        switch words.first ?? "" {
        case "password":
            if words.count == 2, words[1] == MPDSession.quoted(password ?? "") {
                authenticated = true
                return "OK\n"
            } else {
                return "ACK [3@0] {password} incorrect password\n"
            }
        case "getvol":
            return "volume: \(state.current.volume)\nOK\n"
        case "status":
            return "volume: \(state.current.volume)\nrepeat: 0\nstate: stop\nOK\n"
        case "setvol":
            guard authenticated else {
                return "ACK [4@0] {setvol} you don't have permission for \"setvol\"\n"
            }
            guard words.count == 2, let level = Int(words[1]), (0...100).contains(level) else {
                return "ACK [2@0] {setvol} Integer expected\n"
            }
            state.withLock {
                $0.volume = level; $0.changes += 1
            }
            return "OK\n"
        default:
            return "ACK [5@0] {} unknown command \"\(words.first ?? "")\"\n"
        }
    }
}

/// The request deadline for tests against the honest fake servers: they are about the protocol, not about
/// deadlines (the hostile-peer tests set their own), so a loaded 2-core machine running the whole suite in
/// parallel must not turn a slow reply into a reconnect.
let honestPeerTimeout: TimeInterval = 10
