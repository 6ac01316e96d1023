#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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

/// The head of an HTTP message: what is known before the body arrives.
struct HTTPHead: Sendable, Equatable {
    /// The first line split on spaces (at most 3 parts).
    var startLine: [String]
    /// Header fields, names lower-cased.
    var headers: [String: String]

    subscript(header name: String) -> String? { headers[name.lowercased()] }
}

/// Reads one HTTP/1.1 message from bytes arriving in pieces, with limits on the head and the body.
///
/// Framing follows RFC 9112 §6: `Transfer-Encoding: chunked`, else `Content-Length`, else (responses only)
/// everything until the connection closes. Anything malformed or over a limit is a typed error.
///
/// Decoding is incremental: every byte is looked at once, whatever the size of the
/// pieces — a body of a million 1-byte chunks costs a million steps, not a million re-decodings. The bytes
/// held at any time are at most the head limit plus the body limit plus one chunk-size line.
struct HTTPMessageReader: Sendable {
    enum Kind: Sendable { case request, response }
    let kind: Kind
    let maxHeadBytes: Int
    let maxBodyBytes: Int
    /// A response to HEAD or a 1xx/204/304 has no body; set for those.
    var bodyless = false

    /// The longest chunk-size line (size, extensions and CRLF) accepted, in bytes.
    static let maxChunkLineBytes = 256

    private enum BodyState: Sendable {
        case chunkSize
        case chunkData(remaining: Int)
        case chunkEnd
        case length(remaining: Int)
        case untilClose
        case done
    }

    /// Bytes received and not yet consumed (a partial head or a partial chunk-size line).
    private var pending = Data()
    /// The parsed head, once complete.
    private(set) var head: HTTPHead?
    private var body = Data()
    private var state = BodyState.done

    init(kind: Kind, maxHeadBytes: Int = 16_384, maxBodyBytes: Int) {
        self.kind = kind
        self.maxHeadBytes = maxHeadBytes
        self.maxBodyBytes = maxBodyBytes
    }

    /// Adds bytes; returns the message once complete, `nil` if more are needed.
    /// The blank line that ends a head.
    private static let headEnd: [UInt8] = Array("\r\n\r\n".utf8)

    mutating func append(_ data: Data) throws -> HTTPMessage? {
        if head == nil {
            // Search for the end of the head only in what can still belong to it.
            let searchFrom = max(0, pending.count - 3)
            pending.append(data)
            guard
                let end = pending[(pending.startIndex + searchFrom)...].firstRange(of: Self.headEnd)
            else {
                if pending.count > maxHeadBytes { throw RemoteVolumeError.replyTooLarge(limit: maxHeadBytes) }
                return nil
            }
            guard end.lowerBound - pending.startIndex <= maxHeadBytes else {
                throw RemoteVolumeError.replyTooLarge(limit: maxHeadBytes)
            }
            let parsed = try Self.parseHead(pending[pending.startIndex..<end.lowerBound])
            head = parsed
            let rest = Data(pending[end.upperBound...])
            pending = Data()
            state = try bodyState(for: parsed)
            if case .done = state { return message() }
            return try consume(rest)
        }
        return try consume(data)
    }

    /// The peer closed the connection: the message must be complete now.
    mutating func finish() throws -> HTTPMessage {
        guard head != nil else { throw RemoteVolumeError.invalidReply("connection closed before the HTTP head ended") }
        switch state {
        case .done, .untilClose:
            return message()
        case .length(let remaining):
            throw RemoteVolumeError.invalidReply("truncated body: \(body.count) of \(body.count + remaining) bytes")
        case .chunkSize, .chunkData, .chunkEnd:
            throw RemoteVolumeError.invalidReply("truncated chunked body")
        }
    }

    private func message() -> HTTPMessage {
        HTTPMessage(startLine: head?.startLine ?? [], headers: head?.headers ?? [:], body: body)
    }

    private func bodyState(for head: HTTPHead) throws -> BodyState {
        let status = kind == .response ? (Int(head.startLine[1]) ?? 0) : 0
        if bodyless || (kind == .response && (status / 100 == 1 || status == 204 || status == 304)) { return .done }
        if let encoding = head.headers["transfer-encoding"], encoding.lowercased().contains("chunked") {
            return .chunkSize
        }
        if let lengthText = head.headers["content-length"] {
            let trimmed = lengthText.trimmingSpaces()
            guard !trimmed.isEmpty, trimmed.count <= 18, trimmed.allSatisfy(\.isASCIIDigit), let length = Int(trimmed)
            else {
                if !trimmed.isEmpty, trimmed.count > 18, trimmed.allSatisfy(\.isASCIIDigit) {
                    throw RemoteVolumeError.replyTooLarge(limit: maxBodyBytes)
                }
                throw RemoteVolumeError.invalidReply("bad Content-Length '\(PeerText.clean(lengthText, limit: 40))'")
            }
            guard length <= maxBodyBytes else { throw RemoteVolumeError.replyTooLarge(limit: maxBodyBytes) }
            return length == 0 ? .done : .length(remaining: length)
        }
        return kind == .request ? .done : .untilClose
    }

    /// Consumes body bytes; each byte is looked at once.
    private mutating func consume(_ data: Data) throws -> HTTPMessage? {
        var index = data.startIndex
        while true {
            switch state {
            case .done:
                return message()
            case .untilClose:
                guard body.count + (data.endIndex - index) <= maxBodyBytes else {
                    throw RemoteVolumeError.replyTooLarge(limit: maxBodyBytes)
                }
                body.append(data[index...])
                return nil
            case .length(let remaining):
                let take = min(remaining, data.endIndex - index)
                body.append(data[index..<(index + take)])
                index += take
                state = remaining == take ? .done : .length(remaining: remaining - take)
                if case .length = state { return nil }
            case .chunkData(let remaining):
                let take = min(remaining, data.endIndex - index)
                guard take > 0 else { return nil }
                body.append(data[index..<(index + take)])
                index += take
                state = remaining == take ? .chunkEnd : .chunkData(remaining: remaining - take)
            case .chunkSize, .chunkEnd:
                // A line: the size line, or the CRLF after a chunk's data. Collected in `pending`.
                guard index < data.endIndex else { return nil }
                let newline = data[index...].firstIndex(of: 0x0A)
                let lineEnd = newline ?? data.endIndex
                pending.append(data[index..<lineEnd])
                if pending.count > Self.maxChunkLineBytes {
                    throw RemoteVolumeError.invalidReply(
                        "bad chunk size line (longer than \(Self.maxChunkLineBytes) bytes)")
                }
                guard let newline else { return nil }
                index = newline + 1
                guard pending.last == 0x0D else {
                    throw RemoteVolumeError.invalidReply("bad chunk framing (a line not ended by CRLF)")
                }
                defer { pending.removeAll(keepingCapacity: true) }
                if case .chunkEnd = state {
                    guard pending.count == 1 else {
                        throw RemoteVolumeError.invalidReply("bad chunk framing (data longer than its size)")
                    }
                    state = .chunkSize
                    continue
                }
                let size = try Self.chunkSize(pending.dropLast())
                guard size <= maxBodyBytes - body.count else {
                    throw RemoteVolumeError.replyTooLarge(limit: maxBodyBytes)
                }
                state = size == 0 ? .done : .chunkData(remaining: size)  // Trailers, if any, are ignored.
            }
        }
    }

    /// The size of a chunk from its size line (`hex[;extensions]`, spaces or tabs around the size allowed),
    /// at most 8 hex digits. Parsed from the bytes directly: this runs once per chunk.
    private static func chunkSize(_ line: Data) throws -> Int {
        var size = 0
        var digits = 0
        var ended = false
        for byte in line {
            if byte == UInt8(ascii: ";") { break }
            if byte == 0x20 || byte == 0x09 {
                if digits > 0 { ended = true }
                continue
            }
            let value: Int
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = Int(byte - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = Int(byte - UInt8(ascii: "A")) + 10
            default: value = -1
            }
            guard value >= 0, !ended, digits < 8 else {
                let text = String(decoding: line.prefix(16), as: UTF8.self)
                throw RemoteVolumeError.invalidReply("bad chunk size '\(PeerText.clean(text, limit: 16))'")
            }
            size = size << 4 | value
            digits += 1
        }
        guard digits > 0 else { throw RemoteVolumeError.invalidReply("bad chunk size (empty)") }
        return size
    }

    private static func parseHead(_ bytes: Data) throws -> HTTPHead {
        // Control characters other than tab have no place in a head (RFC 9110 §5.5): refusing them keeps a
        // peer from smuggling a line break into a value that is later printed or passed on.
        if bytes.contains(where: { ($0 < 0x20 && $0 != 0x09 && $0 != 0x0D && $0 != 0x0A) || $0 == 0x7F }) {
            throw RemoteVolumeError.invalidReply("a control character in the HTTP head")
        }
        guard let text = String(data: bytes, encoding: .utf8) ?? String(data: bytes, encoding: .isoLatin1) else {
            throw RemoteVolumeError.invalidReply("unreadable HTTP head")
        }
        var lines = text.components(separatedBy: "\r\n")
        let firstLine = lines.removeFirst()
        guard !firstLine.contains("\r"), !firstLine.contains("\n") else {
            throw RemoteVolumeError.invalidReply("bad HTTP start line")
        }
        let first = firstLine.split(separator: " ", maxSplits: 2).map(String.init)
        guard first.count >= 2 else { throw RemoteVolumeError.invalidReply("bad HTTP start line") }
        if first[0].hasPrefix("HTTP/") {
            guard first[1].count == 3, first[1].allSatisfy(\.isASCIIDigit) else {
                throw RemoteVolumeError.invalidReply("bad HTTP status '\(PeerText.clean(first[1], limit: 16))'")
            }
        }
        var headers: [String: String] = [:]
        for line in lines where !line.isEmpty {
            guard !line.contains("\r"), !line.contains("\n") else {
                throw RemoteVolumeError.invalidReply("a bare line break in the HTTP head")
            }
            guard let colon = line.firstIndex(of: ":") else {
                throw RemoteVolumeError.invalidReply("bad HTTP header line")
            }
            let name = line[..<colon].trimmingSpaces().lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingSpaces()
        }
        return HTTPHead(startLine: first, headers: headers)
    }
}

extension Character {
    /// `0`…`9` only (not other scripts' digits).
    var isASCIIDigit: Bool { isASCII && isNumber }
}
