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

/// A kind of server that ``DNSSD`` looks for.
public enum DNSSDServiceKind: String, Sendable, CaseIterable, Hashable {
    /// A Music Player Daemon: service type `_mpd._tcp`, the port of its protocol (6600 by default).
    case mpd
    /// A Snapcast server's JSON-RPC control port: service type `_snapcast-jsonrpc._tcp` (1705 by default).
    ///
    /// snapserver also announces `_snapcast._tcp` and `_snapcast-stream._tcp`, but with the port its
    /// clients stream audio from (1704), which does not speak JSON-RPC; `_snapcast-jsonrpc._tcp` (and its
    /// twin `_snapcast-tcp._tcp`) carry the control port a `snapcast://` URL needs.
    case snapcast

    /// The DNS-SD service type, such as `_mpd._tcp`.
    public var serviceType: String {
        switch self {
        case .mpd: "_mpd._tcp"
        case .snapcast: "_snapcast-jsonrpc._tcp"
        }
    }

    /// The service type in the `local.` domain, as a name to query.
    var serviceName: DNSName { DNSName(serviceType + ".local") }
}

/// A server found by DNS-SD: its announced instance name, host and address, and the URL that names it.
public struct DiscoveredService: Sendable, Equatable, Hashable {
    /// The longest name kept, in characters (longer ones end with "…").
    public static let maxNameCharacters = 64
    /// The most TXT entries kept.
    public static let maxTextEntries = 16

    /// What it is.
    public var kind: DNSSDServiceKind
    /// Its DNS-SD instance name (such as "Music Player @ kitchen"), cleaned of control characters.
    public var name: String
    /// The host name its SRV record gives (such as `kitchen.local`), cleaned of control characters.
    public var hostName: String
    /// The numeric address of that host (IPv4, or a global IPv6 address when there is no IPv4 one).
    public var address: String
    /// The port its SRV record gives (never 0).
    public var port: UInt16
    /// Its TXT record's strings (`key=value`), cleaned, at most ``maxTextEntries``.
    public var textRecord: [String]

    /// The URL that names it: `mpd://ADDRESS:PORT` for MPD (add `PASSWORD@` when the server has one), or
    /// `snapcast://ADDRESS:PORT` for a Snapcast server (`volumekit remote list` prints its clients' URLs).
    public var url: String {
        let host = address.contains(":") ? "[\(address)]" : address
        return "\(kind == .mpd ? "mpd" : "snapcast")://\(host):\(port)"
    }
}

/// DNS-SD discovery (RFC 6763) of MPD and Snapcast servers over multicast DNS (RFC 6762), with a query
/// written here: one socket, no system daemon, the same code on Linux and Apple platforms.
///
/// Each search multicasts PTR questions for the kinds asked for to 224.0.0.251:5353 from an ephemeral port
/// (a "one-shot" query, RFC 6762 §5.1: responders answer it by unicast to that port) and reads the answers
/// until the timeout; the question is repeated twice (UDP may drop one) and missing SRV or address records
/// are asked for, in at most ``maxQueries`` packets. Answers are parsed with the bounds of docs/security.md
/// ("DNS-SD"): at most 9,000 bytes a packet, ``maxPacketsRead`` packets a search,
/// ``maxServices`` services; a malformed packet is dropped whole. IPv4 only. On iOS 14+ this needs the
/// `com.apple.developer.networking.multicast` entitlement, as SSDP does.
public enum DNSSD {
    /// The most services one search yields.
    public static let maxServices = 64
    /// The most packets one search reads; later ones are not read (a flood cannot take more work).
    public static let maxPacketsRead = 1024
    /// The most query packets one search sends.
    public static let maxQueries = 8

    /// The mDNS group and port (RFC 6762 §3).
    static let multicastGroup = (host: "224.0.0.251", port: UInt16(5353))

    /// Searches for `kinds` and returns what answered within `timeout` seconds, in the order found.
    /// - Parameters:
    ///   - kinds: what to look for (default: MPD and Snapcast).
    ///   - timeout: seconds for the whole search.
    ///   - interfaceAddress: the IPv4 address of the interface to search on; default: the system's choice.
    public static func discover(
        kinds: [DNSSDServiceKind] = DNSSDServiceKind.allCases, timeout: TimeInterval = 3,
        interfaceAddress: String? = nil
    ) async throws -> [DiscoveredService] {
        var found: [DiscoveredService] = []
        for try await service in try services(kinds: kinds, timeout: timeout, interfaceAddress: interfaceAddress) {
            found.append(service)
        }
        return found
    }

    /// The services one search finds, each as soon as its PTR, SRV and address records are in; the stream
    /// ends at `timeout`. Stop iterating (or cancel) to end the search sooner. Throws at once for a bad
    /// `interfaceAddress` or when no socket can be opened.
    public static func services(
        kinds: [DNSSDServiceKind] = DNSSDServiceKind.allCases, timeout: TimeInterval = 3,
        interfaceAddress: String? = nil
    ) throws -> AsyncThrowingStream<DiscoveredService, any Error> {
        try services(kinds: kinds, timeout: timeout, interfaceAddress: interfaceAddress, destination: multicastGroup)
    }

    /// ``services(kinds:timeout:interfaceAddress:)`` with the queries sent to `destination` (tests: a
    /// responder on loopback).
    static func services(
        kinds: [DNSSDServiceKind], timeout: TimeInterval, interfaceAddress: String?,
        destination: (host: String, port: UInt16)
    ) throws -> AsyncThrowingStream<DiscoveredService, any Error> {
        let query = try MulticastSearchSocket(
            protocolName: "DNS-SD", ttl: 255,  // RFC 6762 §11.
            interfaceAddress: interfaceAddress, destination: destination)
        let kinds = kinds.isEmpty ? DNSSDServiceKind.allCases : kinds
        return searchStream(named: "VolumeKit DNS-SD search") { stopped, yield in
            try run(query, kinds: kinds, timeout: timeout, stopped: stopped, onService: yield)
        }
    }

    /// One search on `query`'s socket, which it closes at the end.
    private static func run(
        _ query: MulticastSearchSocket, kinds: [DNSSDServiceKind], timeout: TimeInterval, stopped: Locked<Bool>,
        onService: (DiscoveredService) -> Void
    ) throws {
        let socket = query.socket
        defer { socket.close() }
        var browser = DNSSDBrowser(kinds: kinds)
        let id = UInt16.random(in: 1...UInt16.max)
        try query.send(DNSMessage.query(id: id, browser.browseQuestions))
        var queries = 1
        let deadline = Deadline(in: timeout)
        // The PTR question again at 0.5 s and 1.5 s (or a third and two thirds of a short timeout).
        var repeats = [Deadline(in: min(0.5, timeout / 3)), Deadline(in: min(1.5, timeout * 2 / 3))]
        var lastFollowUp = Deadline(in: 0)
        var packets = 0
        var found = 0
        var buffer = [UInt8](repeating: 0, count: DNSMessage.maxPacketBytes + 1)
        while !deadline.hasPassed && !stopped.current && packets < maxPacketsRead && found < maxServices {
            if let next = repeats.first, next.hasPassed {
                repeats.removeFirst()
                if queries < maxQueries {
                    queries += 1
                    try? query.send(DNSMessage.query(id: id, browser.browseQuestions + browser.followUpQuestions))
                }
            }
            do {
                // Woken at least every 0.25 s to notice a consumer that stopped listening.
                let until = repeats.first.map { min($0.remainingSeconds, 0.25) } ?? 0.25
                try socket.wait(until: Deadline(in: min(until, deadline.remainingSeconds)))
            } catch RemoteVolumeError.timedOut {
                continue
            }
            let count = recv(socket.fd, &buffer, buffer.count, 0)
            guard count > 0 else { continue }
            packets += 1
            // A packet over the cap fills the buffer past maxPacketBytes and is refused by parse.
            guard let message = try? DNSMessage.parse(Array(buffer[0..<count])),
                message.id == id || message.id == 0
            else { continue }
            for service in browser.absorb(message) where found < maxServices {
                found += 1
                onService(service)
            }
            let missing = browser.followUpQuestions
            if !missing.isEmpty && queries < maxQueries && lastFollowUp.hasPassed {
                queries += 1
                lastFollowUp = Deadline(in: 0.2)
                try? query.send(DNSMessage.query(id: id, missing))
            }
        }
    }
}
