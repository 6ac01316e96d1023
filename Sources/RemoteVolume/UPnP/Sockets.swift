import Dispatch
import VolumeKitCore

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

/// A point on the monotonic clock, used for I/O deadlines.
struct Deadline: Sendable {
    let uptime: UInt64

    /// The longest deadline a caller can ask for: one day. Longer (or NaN) values are clamped, so no
    /// timeout a caller passes can overflow the clock arithmetic.
    static let maxSeconds: TimeInterval = 86_400

    /// `seconds` from now (clamped to 0…``maxSeconds``; NaN counts as 0).
    init(in seconds: TimeInterval) {
        let clamped = seconds.isNaN ? 0 : min(max(0, seconds), Self.maxSeconds)
        uptime = DispatchTime.now().uptimeNanoseconds + UInt64(clamped * 1e9)
    }

    /// Seconds left (0 when passed).
    var remainingSeconds: TimeInterval {
        let now = DispatchTime.now().uptimeNanoseconds
        return uptime > now ? Double(uptime - now) / 1e9 : 0
    }

    /// Milliseconds left (0 when passed), for `poll`.
    var remainingMilliseconds: Int32 {
        let now = DispatchTime.now().uptimeNanoseconds
        guard uptime > now else { return 0 }
        return Int32(min(UInt64(Int32.max), (uptime - now) / 1_000_000 + 1))
    }

    var hasPassed: Bool { DispatchTime.now().uptimeNanoseconds >= uptime }

    /// Whichever of this deadline and `other` comes first.
    func earlier(than other: Deadline) -> Deadline { uptime <= other.uptime ? self : other }
}

/// An owned, non-blocking BSD socket. Closed on deinit.
final class Socket: @unchecked Sendable {
    let fd: Int32
    private let closed = Locked(false)

    init(fd: Int32) {
        self.fd = fd
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK)
        #if canImport(Darwin)
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    deinit { close() }

    func close() {
        let wasOpen = closed.withLock { value -> Bool in
            defer { value = true }
            return !value
        }
        if wasOpen {
            #if canImport(Glibc)
            _ = Glibc.close(fd)
            #else
            _ = Darwin.close(fd)
            #endif
        }
    }

    static var streamType: Int32 {
        #if canImport(Glibc)
        Int32(SOCK_STREAM.rawValue)
        #else
        SOCK_STREAM
        #endif
    }

    static var datagramType: Int32 {
        #if canImport(Glibc)
        Int32(SOCK_DGRAM.rawValue)
        #else
        SOCK_DGRAM
        #endif
    }

    static var sendFlags: Int32 {
        #if canImport(Glibc)
        Int32(MSG_NOSIGNAL)
        #else
        0
        #endif
    }

    /// Creates a raw socket descriptor (−1 on failure).
    static func open(family: Int32, type: Int32) -> Int32 {
        socket(family, type, 0)
    }

    static var lastError: String { String(cString: strerror(errno)) }

    /// Waits until the socket is readable (or writable) or the deadline passes.
    ///
    /// The deadline is absolute: once it has passed this throws `.timedOut` even when
    /// data is waiting, so a peer that always has one more byte ready cannot keep a read loop alive.
    func wait(forWriting: Bool = false, until deadline: Deadline) throws {
        var descriptor = pollfd(fd: fd, events: Int16(forWriting ? POLLOUT : POLLIN), revents: 0)
        while true {
            if deadline.hasPassed { throw RemoteVolumeError.timedOut }
            let result = poll(&descriptor, 1, deadline.remainingMilliseconds)
            if result > 0 { return }
            if result == 0 { throw RemoteVolumeError.timedOut }
            if errno != EINTR { throw RemoteVolumeError.unreachable(Socket.lastError) }
        }
    }

    /// Resolves `host` (an IP literal or a name) to socket addresses.
    static func addresses(host: String, port: UInt16, type: Int32) throws -> [Data] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = type
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw RemoteVolumeError.unreachable("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(first) }
        var result: [Data] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let address = entry.pointee.ai_addr {
                result.append(Data(bytes: address, count: Int(entry.pointee.ai_addrlen)))
            }
            cursor = entry.pointee.ai_next
        }
        return result
    }

    /// `connect(2)` with an address from ``addresses(host:port:type:)``.
    private static func connect(_ fd: Int32, to address: Data) -> Int32 {
        address.withUnsafeBytes { raw in
            #if canImport(Glibc)
            Glibc.connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
            #else
            Darwin.connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
            #endif
        }
    }

    /// Opens a TCP connection to `host:port`, failing with `.timedOut` at the deadline.
    static func connect(host: String, port: UInt16, deadline: Deadline) throws -> Socket {
        var lastFailure = RemoteVolumeError.unreachable("no address for \(host)")
        for address in try addresses(host: host, port: port, type: streamType) {
            let family = address.withUnsafeBytes { $0.load(as: sockaddr.self).sa_family }
            let fd = socket(Int32(family), streamType, 0)
            guard fd >= 0 else { lastFailure = .unreachable(lastError); continue }
            let sock = Socket(fd: fd)
            let result = connect(fd, to: address)
            if result == 0 { return sock }
            guard errno == EINPROGRESS else { lastFailure = .unreachable(lastError); continue }
            do {
                try sock.wait(forWriting: true, until: deadline)
            } catch let error as RemoteVolumeError {
                lastFailure = error
                if error == .timedOut { throw error }
                continue
            }
            var code: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
            if code == 0 { return sock }
            lastFailure = .unreachable(String(cString: strerror(code)))
        }
        throw lastFailure
    }

    /// Sends every byte of `data` (a `Data`, or a buffer: no copy of a line that is already UTF-8).
    func sendAll(_ data: some ContiguousBytes, deadline: Deadline) throws {
        try data.withUnsafeBytes { try sendAll(raw: $0, deadline: deadline) }
    }

    private func sendAll(raw data: UnsafeRawBufferPointer, deadline: Deadline) throws {
        var offset = 0
        while offset < data.count {
            // Send first and wait only when the socket's buffer is full: a request on an idle connection is
            // one system call, not a poll and a send (the per-request cost).
            if deadline.hasPassed { throw RemoteVolumeError.timedOut }
            let sent = send(fd, data.baseAddress! + offset, data.count - offset, Socket.sendFlags)
            if sent < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    try wait(forWriting: true, until: deadline)
                    continue
                }
                if errno == EINTR { continue }
                throw RemoteVolumeError.unreachable(Socket.lastError)
            }
            offset += sent
        }
    }

    /// Reads what is available (up to `limit` bytes), waiting until the deadline; empty data means the peer closed.
    func receive(limit: Int = 16_384, deadline: Deadline) throws -> Data {
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = try buffer.withUnsafeMutableBytes { try receive(into: $0, deadline: deadline) }
        return Data(buffer[0..<count])
    }

    /// Reads what is available into `buffer` (up to its size), waiting until the deadline; the byte count,
    /// 0 when the peer closed. For callers that read into one buffer again and again (the line channels: no
    /// allocation per read).
    func receive(into buffer: UnsafeMutableRawBufferPointer, deadline: Deadline) throws -> Int {
        while true {
            try wait(until: deadline)
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count >= 0 { return count }
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
            throw RemoteVolumeError.unreachable(Socket.lastError)
        }
    }

    /// Reads what has already arrived into `buffer` without waiting: the byte count, 0 when the peer closed,
    /// `nil` when nothing is there yet.
    func receiveNow(into buffer: UnsafeMutableRawBufferPointer) throws -> Int? {
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            throw RemoteVolumeError.unreachable(Socket.lastError)
        }
    }

    /// The numeric host of a socket address.
    static func host(of address: UnsafePointer<sockaddr>, length: socklen_t) -> String? {
        var name = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, length, &name, socklen_t(name.count), nil, 0, NI_NUMERICHOST) == 0 else {
            return nil
        }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// This socket's local address and port.
    func localEndpoint() -> (host: String, port: UInt16)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { return nil }
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { address -> (String, UInt16)? in
                guard let host = Socket.host(of: address, length: length) else { return nil }
                let port: UInt16
                if address.pointee.sa_family == sa_family_t(AF_INET6) {
                    port = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                        UInt16(bigEndian: $0.pointee.sin6_port)
                    }
                } else {
                    port = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                        UInt16(bigEndian: $0.pointee.sin_port)
                    }
                }
                return (host, port)
            }
        }
    }

    /// `host` (an IPv4 literal) and `port` as a socket address, or `nil` when `host` is not one.
    static func ipv4Address(host: String, port: UInt16) -> sockaddr_in? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
        return address
    }

    /// Binds the socket to `address` (a `sockaddr_in` or a `sockaddr_in6`); whether it could.
    func bindAddress<Address>(_ address: Address) -> Bool {
        var address = address
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<Address>.size))
            }
        } == 0
    }

    /// A listener's loop: calls `onReadable` whenever the socket has something to read, until `stopped` is
    /// true (looked at least every 0.25 s), then closes the socket.
    func serve(until stopped: Locked<Bool>, onReadable: () -> Void) {
        while !stopped.current {
            guard (try? wait(until: Deadline(in: 0.25))) != nil else { continue }
            onReadable()
        }
        close()
    }

    /// The local address the system would use to reach `host` (a UDP "connect" sends no packet).
    static func localAddress(toward host: String, port: UInt16) throws -> String {
        guard let address = try addresses(host: host, port: port, type: datagramType).first else {
            throw RemoteVolumeError.unreachable("no address for \(host)")
        }
        let family = address.withUnsafeBytes { $0.load(as: sockaddr.self).sa_family }
        let fd = socket(Int32(family), datagramType, 0)
        guard fd >= 0 else { throw RemoteVolumeError.unreachable(lastError) }
        let sock = Socket(fd: fd)
        let result = connect(fd, to: address)
        guard result == 0, let local = sock.localEndpoint() else { throw RemoteVolumeError.unreachable(lastError) }
        return local.host
    }
}

/// Runs blocking socket work on a thread of its own, off the Swift concurrency pool and off Dispatch's
/// global queues: a request may block for its whole deadline, and many at once (discovery fetches up to 8
/// descriptions) must neither starve the cooperative pool nor wait for Dispatch to grow its pool, which
/// made deadlines late under load.
func runBlocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DetachedThread.run(named: "VolumeKit network request") { continuation.resume(with: Result { try work() }) }
    }
}
