import Foundation
import VolumeKitCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Receives SSDP announcements (`NOTIFY *`) on the multicast group, on one thread of its own.
///
/// Bounded against a flood: one datagram buffer of ``SSDPAnnouncement/maxDatagramBytes`` (+1 to spot larger
/// ones, which are dropped), at most ``maxParsedPerSecond`` datagrams parsed per second (the rest are read
/// and dropped unparsed, so the kernel's buffer drains), and nothing kept but what the handler keeps.
final class SSDPAnnouncementListener: Sendable {
    /// The most datagrams parsed per second; a flood beyond it is read and dropped.
    static let maxParsedPerSecond = 512

    /// The UDP port it listens on.
    let port: UInt16
    private let socket: Socket
    private let stopped = Locked(false)
    private let onAnnouncement: @Sendable (SSDPAnnouncement) -> Void

    /// Listens on `group` (the SSDP multicast group, joined on the interface with IPv4 address
    /// `interfaceAddress`; or, in tests, a unicast loopback address, port 0 for any).
    init(
        group: (host: String, port: UInt16) = SSDP.multicastGroup, interfaceAddress: String?,
        onAnnouncement: @escaping @Sendable (SSDPAnnouncement) -> Void
    ) throws {
        let fd = Socket.open(family: AF_INET, type: Socket.datagramType)
        guard fd >= 0 else { throw RemoteVolumeError.unreachable(Socket.lastError) }
        socket = Socket(fd: fd)
        var on: Int32 = 1
        // Other SSDP software on the same machine listens on 1900 too.
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = group.port.bigEndian
        guard inet_pton(AF_INET, group.host, &address.sin_addr) == 1 else {
            throw RemoteVolumeError.unreachable(
                "cannot listen for SSDP announcements on \(PeerText.clean(group.host, limit: 64))")
        }
        // Bound to the group address, the socket receives only datagrams sent to the group, not unicast.
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, let local = socket.localEndpoint() else {
            throw RemoteVolumeError.unreachable("cannot listen for SSDP announcements: \(Socket.lastError)")
        }
        if group.host.hasPrefix("239.") {
            var membership = ip_mreq()
            _ = inet_pton(AF_INET, group.host, &membership.imr_multiaddr)
            if let interfaceAddress, inet_pton(AF_INET, interfaceAddress, &membership.imr_interface) != 1 {
                membership.imr_interface.s_addr = 0  // INADDR_ANY: the system's choice.
            }
            guard
                setsockopt(fd, Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP, &membership, socklen_t(MemoryLayout<ip_mreq>.size))
                    == 0
            else {
                throw RemoteVolumeError.unreachable("cannot join the SSDP group: \(Socket.lastError)")
            }
        }
        port = local.port
        self.onAnnouncement = onAnnouncement
    }

    func start() {
        let thread = Thread { [self] in self.serve() }
        thread.name = "VolumeKit SSDP announcements"
        thread.start()
    }

    func stop() {
        stopped.withLock { $0 = true }
    }

    private func serve() {
        var buffer = [UInt8](repeating: 0, count: SSDPAnnouncement.maxDatagramBytes + 1)
        var windowStart = Deadline(in: 0)
        var parsedInWindow = 0
        while !stopped.current {
            guard (try? socket.wait(until: Deadline(in: 0.25))) != nil else { continue }
            let count = recv(socket.fd, &buffer, buffer.count, 0)
            guard count > 0, count <= SSDPAnnouncement.maxDatagramBytes else { continue }
            if windowStart.hasPassed {
                windowStart = Deadline(in: 1)
                parsedInWindow = 0
            }
            guard parsedInWindow < Self.maxParsedPerSecond else { continue }
            parsedInWindow += 1
            if let announcement = SSDPAnnouncement.parse(Data(buffer[0..<count])) { onAnnouncement(announcement) }
        }
        socket.close()
    }
}
