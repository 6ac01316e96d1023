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

/// What the answers of one DNS-SD search have said so far, and which services they complete: the part of
/// ``DNSSD`` that holds no socket (tests feed it packets).
///
/// A service is complete when a PTR record names its instance, an SRV record gives the instance's port and
/// host, and an A (or AAAA) record gives that host's address; the records may come in any order and in any
/// of the search's packets. Every table is bounded: at most ``DNSSD/maxServices`` instances and
/// ``maxHosts`` host addresses are kept; later ones are ignored.
struct DNSSDBrowser {
    /// The most host names whose addresses are kept.
    static let maxHosts = 256

    struct Instance {
        var kind: DNSSDServiceKind
        var port: UInt16?
        var target: DNSName?
        var text: [[UInt8]] = []
    }

    let kinds: [DNSSDServiceKind]
    let maxServices: Int
    private(set) var instances: [DNSName: Instance] = [:]
    private var order: [DNSName] = []
    private var ipv4: [DNSName: [UInt8]] = [:]
    private var ipv6: [DNSName: [UInt8]] = [:]
    private var reported: Set<DNSName> = []

    init(kinds: [DNSSDServiceKind], maxServices: Int = DNSSD.maxServices) {
        self.kinds = kinds
        self.maxServices = maxServices
    }

    /// The questions of the first query: a PTR question per kind.
    var browseQuestions: [(name: DNSName, type: UInt16)] {
        kinds.map { ($0.serviceName, DNSMessage.typePTR) }
    }

    /// Questions for what is still missing: SRV and TXT of instances without a port, A of hosts without an
    /// address (a responder normally sends them with the PTR answer, as additional records).
    var followUpQuestions: [(name: DNSName, type: UInt16)] {
        var questions: [(name: DNSName, type: UInt16)] = []
        for name in order where !reported.contains(name) {
            guard let instance = instances[name] else { continue }
            if let target = instance.target {
                if ipv4[target] == nil && ipv6[target] == nil { questions.append((target, DNSMessage.typeA)) }
            } else {
                questions.append((name, DNSMessage.typeSRV))
            }
        }
        return Array(questions.prefix(DNSMessage.maxQuestions))
    }

    /// Takes in one parsed response and returns the services it completed, in the order their instances
    /// were first named. Records with TTL 0 (goodbyes) and SRV records with port 0 are ignored.
    mutating func absorb(_ message: DNSMessage) -> [DiscoveredService] {
        guard message.isResponse else { return [] }
        let live = message.records.filter { $0.ttl > 0 && $0.recordClass == DNSMessage.classIN }
        for record in live {
            guard case .pointer(let instanceName) = record.payload,
                let kind = kinds.first(where: { $0.serviceName == record.name }),
                instanceName.isChild(of: record.name), instances[instanceName] == nil,
                instances.count < maxServices
            else { continue }
            instances[instanceName] = Instance(kind: kind)
            order.append(instanceName)
        }
        for record in live {
            guard var instance = instances[record.name] else { continue }
            switch record.payload {
            case .service(_, _, let port, let target) where port != 0 && instance.target == nil:
                instance.port = port
                instance.target = target
            case .text(let strings) where instance.text.isEmpty:
                instance.text = strings
            default:
                continue
            }
            instances[record.name] = instance
        }
        for record in live {
            switch record.payload {
            case .ipv4(let bytes) where ipv4[record.name] == nil:
                if ipv4.count + ipv6.count < Self.maxHosts { ipv4[record.name] = bytes }
            case .ipv6(let bytes) where ipv6[record.name] == nil:
                if ipv4.count + ipv6.count < Self.maxHosts { ipv6[record.name] = bytes }
            default:
                continue
            }
        }
        var completed: [DiscoveredService] = []
        for name in order where !reported.contains(name) {
            guard let instance = instances[name], let port = instance.port, let target = instance.target,
                let address = address(of: target)
            else { continue }
            reported.insert(name)
            completed.append(
                DiscoveredService(
                    kind: instance.kind,
                    name: PeerText.clean(name.firstLabel, limit: DiscoveredService.maxNameCharacters),
                    hostName: PeerText.clean(target.description, limit: DiscoveredService.maxNameCharacters),
                    address: address, port: port,
                    textRecord: instance.text.prefix(DiscoveredService.maxTextEntries).map {
                        PeerText.clean(String(decoding: $0, as: UTF8.self), limit: DiscoveredService.maxNameCharacters)
                    }))
        }
        return completed
    }

    /// The numeric address of `host`: its IPv4 address, else a global IPv6 one (a link-local address needs
    /// an interface name that a URL cannot carry portably).
    private func address(of host: DNSName) -> String? {
        if let bytes = ipv4[host] { return bytes.map(String.init).joined(separator: ".") }
        guard let bytes = ipv6[host], !(bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80) else { return nil }
        var address = in6_addr()
        withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
        var text = [CChar](repeating: 0, count: 64)
        guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
