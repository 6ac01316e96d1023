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
        guard let address = Socket.ipv4Address(host: group.host, port: group.port) else {
            throw RemoteVolumeError.unreachable(
                "cannot listen for SSDP announcements on \(PeerText.clean(group.host, limit: 64))")
        }
        // Bound to the group address, the socket receives only datagrams sent to the group, not unicast.
        guard socket.bindAddress(address), let local = socket.localEndpoint() else {
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
        DetachedThread.run(named: "VolumeKit SSDP announcements") { [self] in serve() }
    }

    func stop() {
        stopped.withLock { $0 = true }
    }

    private func serve() {
        var buffer = [UInt8](repeating: 0, count: SSDPAnnouncement.maxDatagramBytes + 1)
        var windowStart = Deadline(in: 0)
        var parsedInWindow = 0
        socket.serve(until: stopped) {
            let count = recv(socket.fd, &buffer, buffer.count, 0)
            guard count > 0, count <= SSDPAnnouncement.maxDatagramBytes else { return }
            if windowStart.hasPassed {
                windowStart = Deadline(in: 1)
                parsedInWindow = 0
            }
            guard parsedInWindow < Self.maxParsedPerSecond else { return }
            parsedInWindow += 1
            if let announcement = SSDPAnnouncement.parse(Data(buffer[0..<count])) { onAnnouncement(announcement) }
        }
    }
}
