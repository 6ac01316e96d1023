import Foundation
import VolumeKitCore

@testable import RemoteVolume

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// DNS wire pieces for the tests' packets (RFC 1035 §4.1), written by hand so that hostile ones can be made.
enum Wire {
    static func u16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    static func u32(_ value: UInt32) -> [UInt8] { u16(UInt16(value >> 16)) + u16(UInt16(value & 0xFFFF)) }

    /// A name from raw labels (a label may hold dots), uncompressed.
    static func name(_ labels: [String]) -> [UInt8] {
        labels.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) } + [0]
    }

    static func name(_ dotted: String) -> [UInt8] { name(dotted.split(separator: ".").map(String.init)) }

    static func header(
        id: UInt16 = 0, flags: UInt16 = 0x8400, questions: Int = 0, answers: Int = 0,
        authority: Int = 0, additional: Int = 0
    ) -> [UInt8] {
        u16(id) + u16(flags) + u16(UInt16(questions)) + u16(UInt16(answers)) + u16(UInt16(authority))
            + u16(UInt16(additional))
    }

    /// One record: class IN with the cache-flush bit.
    static func record(_ name: [UInt8], type: UInt16, ttl: UInt32 = 120, data: [UInt8]) -> [UInt8] {
        name + u16(type) + u16(0x8001) + u32(ttl) + u16(UInt16(data.count)) + data
    }

    static func srv(port: UInt16, target: [UInt8]) -> [UInt8] { u16(0) + u16(0) + u16(port) + target }

    static func txt(_ strings: [String]) -> [UInt8] { strings.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) } }

    /// A service a test responder announces.
    struct Service {
        var kind: DNSSDServiceKind
        var instance: String
        var host: String
        var port: UInt16
        var address: [UInt8] = [127, 0, 0, 1]
        var text: [String] = ["txtvers=1"]
    }

    /// A complete response: PTR answers, then SRV, TXT and A records as additional records.
    static func response(id: UInt16, _ services: [Service], ttl: UInt32 = 120) -> [UInt8] {
        var answers: [UInt8] = []
        var additional: [UInt8] = []
        for service in services {
            let type = service.kind.serviceType.split(separator: ".").map(String.init) + ["local"]
            let instance = name([service.instance] + type)
            answers += record(name(type), type: DNSMessage.typePTR, ttl: ttl, data: instance)
            additional += record(
                instance, type: DNSMessage.typeSRV, ttl: ttl, data: srv(port: service.port, target: name(service.host)))
            additional += record(instance, type: DNSMessage.typeTXT, ttl: ttl, data: txt(service.text))
            additional += record(name(service.host), type: DNSMessage.typeA, ttl: ttl, data: service.address)
        }
        return header(id: id, answers: services.count, additional: services.count * 3) + answers + additional
    }
}

/// An mDNS responder for the tests: answers every query it receives with the packets `reply` returns,
/// sent by unicast to the query's source (a one-shot query's answer, RFC 6762 §6.7).
///
/// On 127.0.0.1 and a port the system picks, or — given `multicastInterface` — on port 5353 of every address,
/// joined to 224.0.0.251 on that interface (only inside a test namespace; see DNSSDTests).
final class MDNSTestResponder: Sendable {
    let port: UInt16
    /// The queries received, parsed.
    let queries = Locked<[DNSMessage]>([])
    private let stopped = Locked(false)
    private let socket: Socket

    init(multicastInterface: String? = nil, reply: @escaping @Sendable (DNSMessage) -> [[UInt8]]) throws {
        let fd = Socket.open(family: AF_INET, type: Socket.datagramType)
        socket = Socket(fd: fd)
        if let multicastInterface {
            var on: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(5353).bigEndian
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            var request = ip_mreq()
            request.imr_multiaddr.s_addr = inet_addr("224.0.0.251")
            request.imr_interface.s_addr = inet_addr(multicastInterface)
            let joined =
                setsockopt(fd, Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP, &request, socklen_t(MemoryLayout<ip_mreq>.size))
                == 0
            guard bound && joined else {
                throw RemoteVolumeError.unreachable("the test responder cannot listen on 5353: \(Socket.lastError)")
            }
            port = 5353
        } else {
            port = try bindLoopback(fd, "the test mDNS responder")
        }
        let stopped = self.stopped
        let queries = self.queries
        // The thread owns the socket: it is closed only once the thread has stopped reading it. Closed at the
        // responder's end instead, its number could be reused by the next test's socket while this thread still
        // polls it, and this responder's answers reached that test ("a silent network" found Kitchen MPD).
        let owned = socket
        Thread {
            defer { owned.close() }
            var buffer = [UInt8](repeating: 0, count: 9001)
            while !stopped.current {
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 20) > 0 else { continue }
                var sender = sockaddr_in()
                var senderLength = socklen_t(MemoryLayout<sockaddr_in>.size)
                let received = withUnsafeMutablePointer(to: &sender) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(fd, &buffer, buffer.count, 0, $0, &senderLength)
                    }
                }
                guard received > 0, let query = try? DNSMessage.parse(Array(buffer[0..<received])), !query.isResponse
                else { continue }
                queries.withLock { $0.append(query) }
                for packet in reply(query) {
                    _ = packet.withUnsafeBytes { raw in
                        withUnsafePointer(to: &sender) {
                            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                                sendto(fd, raw.baseAddress, raw.count, 0, $0, senderLength)
                            }
                        }
                    }
                }
            }
        }.start()
    }

    deinit {
        stopped.withLock { $0 = true }
    }

    /// Searches through this responder (on loopback) and collects what comes within `timeout`.
    func discover(kinds: [DNSSDServiceKind] = DNSSDServiceKind.allCases, timeout: Double = 1) async throws
        -> [DiscoveredService]
    {
        var found: [DiscoveredService] = []
        for try await service in try DNSSD.services(
            kinds: kinds, timeout: timeout, interfaceAddress: nil, destination: ("127.0.0.1", port))
        {
            found.append(service)
        }
        return found
    }
}
