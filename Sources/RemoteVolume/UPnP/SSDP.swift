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
        guard let first = lines.first, first.hasPrefix("HTTP/1.1 200") || first.hasPrefix("HTTP/1.0 200") else {
            return nil
        }
        lines.removeFirst()
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].trimmingSpaces().uppercased()] =
                line[line.index(after: colon)...].trimmingSpaces()
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

extension SSDPResponse {
    /// What identifies the device: the `uuid:…` part of its USN (lowercased), else its LOCATION.
    var deviceKey: String {
        let udn = usn.firstRange(ofText: "::").map { String(usn[..<$0.lowerBound]) } ?? usn
        return udn.isEmpty ? "location " + location.absoluteString : udn.lowercased()
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
        Data(
            """
            M-SEARCH * HTTP/1.1\r
            HOST: 239.255.255.250:1900\r
            MAN: "ssdp:discover"\r
            MX: \(min(5, max(1, mx)))\r
            ST: \(target)\r
            USER-AGENT: VolumeKit/1 UPnP/1.1\r
            \r

            """.utf8)
    }

    /// The most answers one search keeps; later ones are ignored (a flood cannot grow memory or work).
    public static let maxAnswers = 256

    /// The SSDP multicast group and port (UDA 1.1 §1.1.2).
    static let multicastGroup = (host: "239.255.255.250", port: UInt16(1900))

    /// Multicasts M-SEARCH for ``searchTargets`` and collects answers until `timeout` seconds have passed.
    ///
    /// The answers of ``answers(timeout:interfaceAddress:)``, in the order they came. On iOS 14+ this needs
    /// the `com.apple.developer.networking.multicast` entitlement (see docs/remote.md). To read every
    /// answer's description as well, within the same bound, use ``UPnPRenderer/discover(timeout:interfaceAddress:)``.
    /// - Parameters:
    ///   - timeout: how long to collect answers, in seconds.
    ///   - interfaceAddress: the IPv4 address of the interface to search on; default: the system's choice.
    public static func discover(timeout: TimeInterval = 3, interfaceAddress: String? = nil) async throws
        -> [SSDPResponse]
    {
        var found: [SSDPResponse] = []
        for try await answer in try answers(timeout: timeout, interfaceAddress: interfaceAddress) {
            found.append(answer)
        }
        return found
    }

    /// The devices that answer one search, each as soon as its answer arrives (a renderer that answers in
    /// 0.17 s is not held back until the timeout).
    ///
    /// Answers are de-duplicated by device — the `uuid:…` part of their USN, or LOCATION when there is no
    /// USN — so a renderer answering both ``searchTargets`` comes once; malformed answers and those with a
    /// non-http(s) LOCATION are dropped; at most ``maxAnswers`` are yielded. The search is sent twice (UDP
    /// may drop one). The stream ends at `timeout`; stop iterating (or cancel the task) to end it sooner.
    /// Throws at once for a bad `interfaceAddress` or when no socket can be opened.
    public static func answers(timeout: TimeInterval = 3, interfaceAddress: String? = nil) throws
        -> AsyncThrowingStream<SSDPResponse, any Error>
    {
        try answers(timeout: timeout, interfaceAddress: interfaceAddress, destination: multicastGroup)
    }

    /// ``answers(timeout:interfaceAddress:)`` sent to `destination` (tests: a loopback peer).
    static func answers(
        timeout: TimeInterval, interfaceAddress: String?,
        destination: (host: String, port: UInt16), maxAnswers: Int = maxAnswers
    ) throws -> AsyncThrowingStream<SSDPResponse, any Error> {
        let search = try MulticastSearchSocket(
            protocolName: "SSDP", ttl: 2,  // UDA 1.1 §1.1.2: TTL defaults to 2.
            interfaceAddress: interfaceAddress, destination: destination)
        return searchStream(named: "VolumeKit SSDP search") { stopped, yield in
            try run(search, timeout: timeout, maxAnswers: maxAnswers, stopped: stopped, onAnswer: yield)
        }
    }

    /// One search on `search`'s socket, which it closes at the end.
    private static func run(
        _ search: MulticastSearchSocket, timeout: TimeInterval, maxAnswers: Int, stopped: Locked<Bool>,
        onAnswer: (SSDPResponse) -> Void
    ) throws {
        let socket = search.socket
        defer { socket.close() }
        // Devices answer within MX seconds (UDA 1.1 §1.3.2); asking for at most half the timeout leaves
        // the other half for reading descriptions.
        let mx = max(1, min(5, Int(timeout / 2)))
        func sendSearches() throws {
            for target in searchTargets { try search.send(searchRequest(target: target, mx: mx)) }
        }
        try sendSearches()
        let deadline = Deadline(in: timeout)
        let resend = Deadline(in: min(0.5, timeout / 3))
        var resent = false
        var seen: Set<String> = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        while !deadline.hasPassed && seen.count < maxAnswers && !stopped.current {
            if !resent && resend.hasPassed {
                resent = true
                try? sendSearches()
            }
            do {
                // Woken at least every 0.25 s to notice a consumer that stopped listening.
                try socket.wait(until: Deadline(in: min(0.25, (resent ? deadline : resend).remainingSeconds)))
            } catch RemoteVolumeError.timedOut {
                continue
            }
            let count = recv(socket.fd, &buffer, buffer.count, 0)
            guard count > 0 else { continue }
            guard let response = try? SSDPResponse.parse(Data(buffer[0..<count])),
                seen.insert(response.deviceKey).inserted
            else { continue }
            onAnswer(response)
        }
    }
}
