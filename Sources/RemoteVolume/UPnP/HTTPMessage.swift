import Foundation

/// An HTTP/1.1 message (request or response) as read off the wire.
struct HTTPMessage: Sendable, Equatable {
    /// The first line split on spaces: `["HTTP/1.1", "200", "OK"]` or `["NOTIFY", "/path", "HTTP/1.1"]`.
    var startLine: [String]
    /// Header fields, names lower-cased; a repeated field keeps its last value.
    var headers: [String: String]
    var body: Data

    /// The status code of a response, or `nil` for a request or a malformed status line.
    var status: Int? {
        guard startLine.count >= 2, startLine[0].hasPrefix("HTTP/") else { return nil }
        return Int(startLine[1])
    }

    subscript(header name: String) -> String? { headers[name.lowercased()] }
}

/// Reads one HTTP/1.1 message from bytes arriving in pieces, with limits on the head and the body.
///
/// Framing follows RFC 9112 §6: `Transfer-Encoding: chunked`, else `Content-Length`, else (responses only)
/// everything until the connection closes. Anything malformed or over a limit is a typed error.
struct HTTPMessageReader: Sendable {
    enum Kind: Sendable { case request, response }
    let kind: Kind
    let maxHeadBytes: Int
    let maxBodyBytes: Int
    /// A response to HEAD or a 1xx/204/304 has no body; set for those.
    var bodyless = false

    private var buffer = Data()
    private var head: (startLine: [String], headers: [String: String])?
    private var bodyStart = 0

    init(kind: Kind, maxHeadBytes: Int = 16_384, maxBodyBytes: Int) {
        self.kind = kind
        self.maxHeadBytes = maxHeadBytes
        self.maxBodyBytes = maxBodyBytes
    }

    /// Adds bytes; returns the message once complete, `nil` if more are needed.
    mutating func append(_ data: Data) throws -> HTTPMessage? {
        buffer.append(data)
        return try parse(closed: false)
    }

    /// The peer closed the connection: the message must be complete now.
    mutating func finish() throws -> HTTPMessage {
        if let message = try parse(closed: true) { return message }
        throw RemoteVolumeError.invalidReply(head == nil ? "connection closed before the HTTP head ended" : "connection closed before the HTTP body ended")
    }

    private mutating func parse(closed: Bool) throws -> HTTPMessage? {
        if head == nil {
            guard let end = buffer.range(of: Data("\r\n\r\n".utf8)) else {
                if buffer.count > maxHeadBytes { throw RemoteVolumeError.replyTooLarge(limit: maxHeadBytes) }
                return nil
            }
            guard end.lowerBound <= maxHeadBytes else { throw RemoteVolumeError.replyTooLarge(limit: maxHeadBytes) }
            head = try Self.parseHead(buffer[buffer.startIndex..<end.lowerBound])
            bodyStart = end.upperBound - buffer.startIndex
        }
        guard let head else { return nil }
        let body = buffer.dropFirst(bodyStart)
        let headers = head.headers
        let status = Int(head.startLine.count > 1 ? head.startLine[1] : "") ?? 0
        let noBody = bodyless || (kind == .response && (status / 100 == 1 || status == 204 || status == 304))
        if noBody { return HTTPMessage(startLine: head.startLine, headers: headers, body: Data()) }
        if let encoding = headers["transfer-encoding"], encoding.lowercased().contains("chunked") {
            guard let decoded = try Self.decodeChunked(Data(body), limit: maxBodyBytes) else {
                if closed { throw RemoteVolumeError.invalidReply("truncated chunked body") }
                return nil
            }
            return HTTPMessage(startLine: head.startLine, headers: headers, body: decoded)
        }
        if let lengthText = headers["content-length"] {
            guard let length = Int(lengthText.trimmingCharacters(in: .whitespaces)), length >= 0 else {
                throw RemoteVolumeError.invalidReply("bad Content-Length \(lengthText)")
            }
            guard length <= maxBodyBytes else { throw RemoteVolumeError.replyTooLarge(limit: maxBodyBytes) }
            if body.count >= length {
                return HTTPMessage(startLine: head.startLine, headers: headers, body: Data(body.prefix(length)))
            }
            if closed { throw RemoteVolumeError.invalidReply("truncated body: \(body.count) of \(length) bytes") }
            return nil
        }
        if kind == .request { return HTTPMessage(startLine: head.startLine, headers: headers, body: Data()) }
        guard body.count <= maxBodyBytes else { throw RemoteVolumeError.replyTooLarge(limit: maxBodyBytes) }
        return closed ? HTTPMessage(startLine: head.startLine, headers: headers, body: Data(body)) : nil
    }

    private static func parseHead(_ bytes: Data) throws -> (startLine: [String], headers: [String: String]) {
        guard let text = String(data: bytes, encoding: .utf8) ?? String(data: bytes, encoding: .isoLatin1) else {
            throw RemoteVolumeError.invalidReply("unreadable HTTP head")
        }
        var lines = text.components(separatedBy: "\r\n")
        let first = lines.removeFirst().split(separator: " ", maxSplits: 2).map(String.init)
        guard first.count >= 2 else { throw RemoteVolumeError.invalidReply("bad HTTP start line") }
        var headers: [String: String] = [:]
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw RemoteVolumeError.invalidReply("bad HTTP header line") }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (first, headers)
    }

    /// Decodes a complete chunked body; `nil` if it is not complete yet.
    static func decodeChunked(_ data: Data, limit: Int) throws -> Data? {
        var output = Data()
        var index = data.startIndex
        let crlf = Data("\r\n".utf8)
        while true {
            guard let lineEnd = data.range(of: crlf, in: index..<data.endIndex) else {
                if data.endIndex - index > 64 { throw RemoteVolumeError.invalidReply("bad chunk size line") }
                return nil
            }
            let sizeText = String(decoding: data[index..<lineEnd.lowerBound], as: UTF8.self)
                .split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard sizeText.count <= 8, let size = Int(sizeText, radix: 16), size >= 0 else {
                throw RemoteVolumeError.invalidReply("bad chunk size \(sizeText.prefix(16))")
            }
            guard output.count + size <= limit else { throw RemoteVolumeError.replyTooLarge(limit: limit) }
            let chunkStart = lineEnd.upperBound
            if size == 0 { return output }  // Trailers, if any, are ignored.
            guard data.endIndex - chunkStart >= size + 2 else { return nil }
            output.append(data[chunkStart..<(chunkStart + size)])
            index = chunkStart + size + 2
        }
    }
}
