#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// One answer to an SSDP M-SEARCH: a device that says it has what we searched for.
public struct SSDPResponse: Sendable, Equatable, Hashable {
    /// The device description URL (`LOCATION`), already checked to be http(s).
    public var location: URL
    /// The search target it answered (`ST`).
    public var searchTarget: String
    /// Its unique service name (`USN`).
    public var usn: String
    /// Its `SERVER` header, if any.
    public var server: String?

    /// Parses one SSDP datagram (UDA 1.1 §1.3.3). Returns `nil` for anything that is not a 200 search
    /// response with a LOCATION, and throws ``RemoteVolumeError/invalidURL(_:)`` when LOCATION is not http(s).
    public static func parse(_ datagram: Data) throws -> SSDPResponse? {
        guard datagram.count <= 8192, let text = String(data: datagram, encoding: .utf8) else { return nil }
        var lines = text.components(separatedBy: "\r\n")
        guard let first = lines.first, first.hasPrefix("HTTP/1.1 200") || first.hasPrefix("HTTP/1.0 200") else { return nil }
        lines.removeFirst()
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].trimmingCharacters(in: .whitespaces).uppercased()] =
                line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard let location = headers["LOCATION"] else { return nil }
        return SSDPResponse(
            location: try UPnPURL.parse(location),
            searchTarget: headers["ST"] ?? "",
            usn: headers["USN"] ?? "",
            server: headers["SERVER"]
        )
    }
}

/// SSDP discovery of volume-capable renderers (UDA 1.1 §1.3.2).
public enum SSDP {
    /// The search targets sent: renderers, and anything with RenderingControl.
    public static let searchTargets = [
        "urn:schemas-upnp-org:device:MediaRenderer:1",
        "urn:schemas-upnp-org:service:RenderingControl:1",
    ]

    /// The M-SEARCH request for `target`; `mx` is the seconds devices may wait before answering (1…5).
    public static func searchRequest(target: String, mx: Int) -> Data {
        Data("""
            M-SEARCH * HTTP/1.1\r
            HOST: 239.255.255.250:1900\r
            MAN: "ssdp:discover"\r
            MX: \(min(5, max(1, mx)))\r
            ST: \(target)\r
            USER-AGENT: VolumeKit/1 UPnP/1.1\r
            \r

            """.utf8)
    }

    /// Multicasts M-SEARCH for ``searchTargets`` and collects answers until `timeout` seconds have passed.
    ///
    /// Answers are deduplicated by LOCATION; those with a non-http(s) LOCATION or malformed are dropped.
    /// The search is sent twice (UDP may drop one). On iOS 14+ this needs the
    /// `com.apple.developer.networking.multicast` entitlement (see docs/remote.md).
    /// - Parameter interfaceAddress: the IPv4 address of the interface to search on; default: the system's choice.
    public static func discover(timeout: TimeInterval = 3, interfaceAddress: String? = nil) async throws -> [SSDPResponse] {
        try await runBlocking {
            try discoverBlocking(timeout: timeout, interfaceAddress: interfaceAddress)
        }
    }

    private static func discoverBlocking(timeout: TimeInterval, interfaceAddress: String?) throws -> [SSDPResponse] {
        let fd = socket(AF_INET, Socket.datagramType, 0)
        guard fd >= 0 else { throw RemoteVolumeError.unreachable(Socket.lastError) }
        let sock = Socket(fd: fd)
        defer { sock.close() }
        var ttl: UInt8 = 2  // UDA 1.1 §1.1.2: TTL defaults to 2.
        _ = setsockopt(fd, Int32(IPPROTO_IP), IP_MULTICAST_TTL, &ttl, socklen_t(MemoryLayout<UInt8>.size))
        if let interfaceAddress {
            var address = in_addr()
            guard inet_pton(AF_INET, interfaceAddress, &address) == 1 else {
                throw RemoteVolumeError.invalidURL("interface address \(interfaceAddress)")
            }
            _ = setsockopt(fd, Int32(IPPROTO_IP), IP_MULTICAST_IF, &address, socklen_t(MemoryLayout<in_addr>.size))
        }
        var group = sockaddr_in()
        group.sin_family = sa_family_t(AF_INET)
        group.sin_port = UInt16(1900).bigEndian
        _ = inet_pton(AF_INET, "239.255.255.250", &group.sin_addr)
        let mx = max(1, min(5, Int(timeout.rounded(.down)) - 1))
        func sendSearches() throws {
            for target in searchTargets {
                let message = searchRequest(target: target, mx: mx)
                let sent = message.withUnsafeBytes { raw in
                    withUnsafePointer(to: &group) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            sendto(fd, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                        }
                    }
                }
                if sent < 0 { throw RemoteVolumeError.unreachable("multicast send failed: \(Socket.lastError)") }
            }
        }
        try sendSearches()
        let deadline = Deadline(in: timeout)
        let resend = Deadline(in: min(0.5, timeout / 3))
        var resent = false
        var found: [SSDPResponse] = []
        var seen: Set<URL> = []
        while !deadline.hasPassed {
            if !resent && resend.hasPassed {
                resent = true
                try? sendSearches()
            }
            do {
                try sock.wait(until: resent ? deadline : resend)
            } catch RemoteVolumeError.timedOut {
                continue
            }
            var buffer = [UInt8](repeating: 0, count: 8192)
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { continue }
            guard let response = try? SSDPResponse.parse(Data(buffer[0..<count])), !seen.contains(response.location) else { continue }
            seen.insert(response.location)
            found.append(response)
        }
        return found
    }
}
