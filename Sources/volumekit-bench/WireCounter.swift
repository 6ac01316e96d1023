import Foundation
import VolumeKitCore

#if canImport(Glibc)
import Glibc
#endif

/// A TCP relay on loopback that counts what a client sends its server (so the bench's remote rows show that
/// `remote set snapcast://…` makes one request on the wire): each connection it accepts is relayed
/// to `127.0.0.1:upstream`, and every line the client sends is kept. A program pointed at ``port`` instead of
/// the server shows its requests.
final class WireCounter: @unchecked Sendable {
    /// The port to point a client at.
    let port: UInt16
    private let listener: Int32
    private let upstream: UInt16
    private let stopped = Locked(false)
    private let state = Locked((connections: 0, lines: [String]()))

    init(upstream: UInt16) throws {
        self.upstream = upstream
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 8) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound else {
            _ = Glibc.close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Connections accepted and lines sent to the server since the last call; resets both.
    func take() -> (connections: Int, lines: [String]) {
        state.withLock { value in
            defer { value = (0, []) }
            return value
        }
    }

    func stop() {
        stopped.withLock { $0 = true }
        _ = Glibc.close(listener)
    }

    private func acceptLoop() {
        while !stopped.current {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            state.withLock { $0.connections += 1 }
            let thread = Thread { [self] in relay(client) }
            thread.start()
        }
    }

    private func relay(_ client: Int32) {
        defer { _ = Glibc.close(client) }
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { _ = Glibc.close(server) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = upstream.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else { return }
        var one: Int32 = 1
        for fd in [client, server] {
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var descriptors = [
            pollfd(fd: client, events: Int16(POLLIN), revents: 0),
            pollfd(fd: server, events: Int16(POLLIN), revents: 0),
        ]
        while !stopped.current, poll(&descriptors, 2, 200) >= 0 {
            for index in 0..<2 where descriptors[index].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { recv(descriptors[index].fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return }
                let target = index == 0 ? server : client
                var sent = 0
                while sent < count {
                    let step = buffer.withUnsafeBytes {
                        send(target, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL))
                    }
                    guard step > 0 else { return }
                    sent += step
                }
                guard index == 0 else { continue }
                pending += buffer[..<count]
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    state.withLock { $0.lines.append(line) }
                }
            }
        }
    }
}
