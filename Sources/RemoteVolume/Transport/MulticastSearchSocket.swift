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

/// A UDP socket that sends queries to a multicast group — or, in tests, to a peer on loopback — and reads
/// the answers: SSDP's M-SEARCH and DNS-SD's queries.
final class MulticastSearchSocket: Sendable {
    /// The socket the answers are read from; the searcher closes it when done.
    let socket: Socket
    private let destination: Data

    /// Opens a socket that sends to `destination` (an IPv4 literal; `protocolName` names it in the error when
    /// it is not one) with multicast TTL `ttl`, from the interface with IPv4 address `interfaceAddress` (the
    /// system's choice when `nil`).
    init(
        protocolName: String, ttl: UInt8, interfaceAddress: String?, destination: (host: String, port: UInt16)
    ) throws {
        guard var group = Socket.ipv4Address(host: destination.host, port: destination.port) else {
            throw RemoteVolumeError.invalidURL(
                "\(protocolName) destination '\(PeerText.clean(destination.host, limit: 64))'")
        }
        self.destination = withUnsafeBytes(of: &group) { Data($0) }
        let fd = Socket.open(family: AF_INET, type: Socket.datagramType)
        guard fd >= 0 else { throw RemoteVolumeError.unreachable(Socket.lastError) }
        socket = Socket(fd: fd)
        var ttl = ttl
        _ = setsockopt(fd, Int32(IPPROTO_IP), IP_MULTICAST_TTL, &ttl, socklen_t(MemoryLayout<UInt8>.size))
        if let interfaceAddress {
            var address = in_addr()
            guard inet_pton(AF_INET, interfaceAddress, &address) == 1 else {
                throw RemoteVolumeError.invalidURL(
                    "interface address '\(PeerText.clean(interfaceAddress, limit: 64))' (not an IPv4 address)")
            }
            guard
                setsockopt(fd, Int32(IPPROTO_IP), IP_MULTICAST_IF, &address, socklen_t(MemoryLayout<in_addr>.size))
                    == 0
            else {
                throw RemoteVolumeError.unreachable(
                    "cannot search on interface \(interfaceAddress): \(Socket.lastError)")
            }
        }
    }

    /// Sends one datagram to the destination.
    func send(_ packet: some ContiguousBytes) throws {
        let sent = packet.withUnsafeBytes { raw in
            destination.withUnsafeBytes { address in
                sendto(
                    socket.fd, raw.baseAddress, raw.count, 0,
                    address.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count))
            }
        }
        if sent < 0 { throw RemoteVolumeError.unreachable("multicast send failed: \(Socket.lastError)") }
    }
}
