import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A small HTTP/1.1 client over plain sockets: one request per connection (`Connection: close`), a deadline
/// on the whole exchange and a cap on the reply body.
///
/// UPnP needs methods URLSession does not treat as ordinary (`SUBSCRIBE`, `UNSUBSCRIBE`) and hard limits on
/// what a hostile device may send back, so VolumeKit speaks HTTP itself. Only `http` URLs are spoken;
/// `https` is refused with ``RemoteVolumeError/unsupported(_:)`` (UPnP devices serve plain HTTP, UDA 1.1 §2).
enum HTTPClient {
    /// A reply, plus the local address the connection used (the address a device can call back).
    struct Reply: Sendable {
        var message: HTTPMessage
        var localHost: String?
        var status: Int { message.status ?? 0 }
    }

    /// Sends one request and reads the reply.
    static func send(
        method: String,
        url: URL,
        headers: [(String, String)] = [],
        body: Data = Data(),
        timeout: TimeInterval = 5,
        maxBodyBytes: Int = 256 * 1024
    ) async throws -> Reply {
        let target = try UPnPURL.validate(url)
        guard target.scheme == "http" else {
            throw RemoteVolumeError.unsupported(
                "https URLs (UPnP devices serve plain http; use the http:// description URL)")
        }
        guard !method.isEmpty, method.utf8.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) else {
            throw RemoteVolumeError.invalidURL("HTTP method '\(PeerText.clean(method, limit: 20))'")
        }
        let host = UPnPURL.host(of: target)
        let port = UInt16(target.port ?? 80)
        var head =
            "\(method) \(UPnPURL.requestTarget(of: target)) HTTP/1.1\r\nHOST: \(UPnPURL.hostHeader(of: target))\r\n"
        for (name, value) in headers {
            // No control character may reach a header (CR/LF would start a new header
            // or a second request).
            guard !name.isEmpty,
                !name.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value >= 0x7F || $0 == ":" }),
                !value.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F })
            else {
                throw RemoteVolumeError.invalidURL(
                    "an HTTP header with a control character (\(PeerText.clean(name, limit: 40)))")
            }
            head += "\(name): \(value)\r\n"
        }
        if !body.isEmpty || method == "POST" { head += "CONTENT-LENGTH: \(body.count)\r\n" }
        head += "CONNECTION: close\r\nUSER-AGENT: VolumeKit/1 UPnP/1.0\r\n\r\n"
        let request = Data(head.utf8) + body
        let bodyless = method == "HEAD"
        return try await runBlocking {
            let deadline = Deadline(in: timeout)
            let socket = try Socket.connect(host: host, port: port, deadline: deadline)
            defer { socket.close() }
            try socket.sendAll(request, deadline: deadline)
            var reader = HTTPMessageReader(kind: .response, maxBodyBytes: maxBodyBytes)
            reader.bodyless = bodyless
            while true {
                let chunk = try socket.receive(deadline: deadline)
                if chunk.isEmpty {
                    return Reply(message: try reader.finish(), localHost: socket.localEndpoint()?.host)
                }
                if let message = try reader.append(chunk) {
                    return Reply(message: message, localHost: socket.localEndpoint()?.host)
                }
            }
        }
    }

    /// GETs a document and requires a 2xx answer.
    static func get(_ url: URL, timeout: TimeInterval = 5, maxBodyBytes: Int = 256 * 1024) async throws -> Data {
        let reply = try await send(method: "GET", url: url, timeout: timeout, maxBodyBytes: maxBodyBytes)
        guard (200..<300).contains(reply.status) else { throw RemoteVolumeError.httpStatus(reply.status) }
        return reply.message.body
    }
}

/// Rules for URLs that come from the network (SSDP LOCATION, description documents).
public enum UPnPURL {
    /// Accepts only absolute `http`/`https` URLs with a host; anything else is refused with
    /// ``RemoteVolumeError/invalidURL(_:)`` (a LOCATION that is not http(s) is refused too).
    public static func validate(_ url: URL) throws -> URL {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw RemoteVolumeError.invalidURL(PeerText.clean(url.absoluteString, limit: 200))
        }
        guard let host = url.host, !host.isEmpty, url.user == nil, url.password == nil,
            host.unicodeScalars.allSatisfy({ allowedHostScalars.contains($0) })
        else {
            throw RemoteVolumeError.invalidURL(PeerText.clean(url.absoluteString, limit: 200))
        }
        if let port = url.port, !(1...65535).contains(port) {
            throw RemoteVolumeError.invalidURL(PeerText.clean(url.absoluteString, limit: 200))
        }
        return url
    }

    /// Parses and validates a URL string (≤ 2048 characters).
    public static func parse(_ text: String) throws -> URL {
        let trimmed = text.trimmingWhitespace()
        guard trimmed.count <= 2048, !trimmed.contains(where: { $0.isWhitespace || $0.isNewline }),
            let url = URL(string: trimmed)
        else {
            throw RemoteVolumeError.invalidURL(PeerText.clean(trimmed, limit: 200))
        }
        return try validate(url)
    }

    /// Resolves `reference` (absolute or relative) against `base`, then validates it.
    public static func resolve(_ reference: String, against base: URL) throws -> URL {
        let trimmed = reference.trimmingWhitespace()
        guard trimmed.count <= 2048, let url = URL(string: trimmed, relativeTo: base)?.absoluteURL else {
            throw RemoteVolumeError.invalidURL(PeerText.clean(trimmed, limit: 200))
        }
        return try validate(url)
    }

    /// Letters, digits and `.-_:[]%` — what a host name or an IP literal (v6 with zone) is made of; anything
    /// else (a decoded CR/LF, a space) is refused before it can reach a `HOST` header.
    private static let allowedHostScalars = Set(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_:[]%".unicodeScalars)

    /// The request target for `url`: its path and query exactly as percent-encoded in the URL (never
    /// decoded), and any byte outside visible ASCII percent-encoded: a controlURL or LOCATION holding
    /// `%0D%0A` must not be decoded into the request line, where it would inject headers.
    static func requestTarget(of url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        var target = components?.percentEncodedPath ?? ""
        if target.isEmpty { target = "/" }
        if let query = components?.percentEncodedQuery { target += "?" + query }
        var safe = ""
        for byte in target.utf8 {
            if byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "#") {
                safe.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                safe += cFormat("%%%02X", byte)
            }
        }
        return safe
    }

    static func host(of url: URL) -> String {
        var host = url.host ?? ""
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host
    }

    static func hostHeader(of url: URL) -> String {
        let host = Self.host(of: url)
        let shown = host.contains(":") ? "[\(host)]" : host
        return url.port.map { "\(shown):\($0)" } ?? shown
    }
}
