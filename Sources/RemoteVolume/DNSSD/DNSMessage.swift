#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A domain name as it came on the wire: its labels, each at most 63 bytes, at most
/// ``DNSMessage/maxNameBytes`` in all (RFC 1035 §2.3.4). Labels are raw bytes (a DNS-SD instance name may hold
/// dots, spaces and any UTF-8); names compare without regard to ASCII case (RFC 1035 §2.3.3).
struct DNSName: Hashable, Sendable, CustomStringConvertible {
    /// The labels, without the root.
    let labels: [[UInt8]]
    /// What two names that are the same share: the labels with ASCII letters lowercased.
    let key: [[UInt8]]

    init(labels: [[UInt8]]) {
        self.labels = labels
        key = labels.map { label in label.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 } }
    }

    /// `name.with.dots` from dotted text (labels must not hold dots: for names VolumeKit writes itself).
    init(_ dotted: String) {
        self.init(labels: dotted.split(separator: ".").map { Array($0.utf8) })
    }

    static func == (a: DNSName, b: DNSName) -> Bool { a.key == b.key }
    func hash(into hasher: inout Hasher) { hasher.combine(key) }

    /// The first label as text (a DNS-SD instance's name), unchecked: clean it before printing.
    var firstLabel: String { labels.first.map { String(decoding: $0, as: UTF8.self) } ?? "" }

    /// Whether this name is `parent` with one more label in front (`Kitchen._mpd._tcp.local` in `_mpd._tcp.local`).
    func isChild(of parent: DNSName) -> Bool {
        key.count == parent.key.count + 1 && Array(key.dropFirst()) == parent.key
    }

    /// The dotted text, unchecked (labels may hold dots and control characters): for tests and debugging.
    var description: String { labels.map { String(decoding: $0, as: UTF8.self) }.joined(separator: ".") }

    /// The name in wire form, uncompressed.
    var wire: [UInt8] {
        var bytes: [UInt8] = []
        for label in labels {
            bytes.append(UInt8(label.count))
            bytes.append(contentsOf: label)
        }
        bytes.append(0)
        return bytes
    }
}

/// One resource record of a reply, with the data DNS-SD uses decoded (RFC 1035 §3.2, RFC 2782, RFC 6763).
struct DNSRecord: Sendable, Equatable {
    enum Payload: Sendable, Equatable {
        case pointer(DNSName)
        case service(priority: UInt16, weight: UInt16, port: UInt16, target: DNSName)
        case text([[UInt8]])
        case ipv4([UInt8])
        case ipv6([UInt8])
        /// A type DNS-SD does not use here; its data skipped.
        case other
    }

    var name: DNSName
    var type: UInt16
    /// The class without mDNS's cache-flush bit.
    var recordClass: UInt16
    var ttl: UInt32
    var payload: Payload
}

/// A DNS message (RFC 1035 §4.1) as mDNS uses it, parsed with strict bounds: a packet from the LAN is not
/// trusted (docs/security.md, "DNS-SD").
///
/// Refused with ``DNSMessage/ParseError``: more than ``maxPacketBytes``; a header whose counts cannot fit
/// in the packet or exceed ``maxQuestions`` / ``maxRecords``; a name longer than ``maxNameBytes``, with a
/// label over 63 bytes, a reserved label type, a compression pointer that does not point strictly backward
/// (which rules out loops) or more than ``maxPointerJumps`` pointers; a record whose data runs past the
/// packet or disagrees with its type's size; a TXT record with more than ``maxTextStrings`` strings. Every
/// read is bounds-checked, so no packet can crash the parser or make it loop.
struct DNSMessage: Sendable, Equatable {
    /// The largest packet parsed: mDNS's own ceiling (RFC 6762 §17).
    static let maxPacketBytes = 9000
    /// The most questions one packet may declare.
    static let maxQuestions = 32
    /// The most records (answers, authority and additional together) one packet may declare.
    static let maxRecords = 128
    /// The longest name, in wire bytes (RFC 1035 §2.3.4).
    static let maxNameBytes = 255
    /// The most compression pointers followed for one name.
    static let maxPointerJumps = 32
    /// The most strings kept from one TXT record.
    static let maxTextStrings = 64

    enum ParseError: Error, Equatable, CustomStringConvertible {
        case tooLarge(Int)
        case truncated(String)
        case tooMany(String)
        case badName(String)
        case badRecord(String)

        var description: String {
            switch self {
            case .tooLarge(let size): "a packet of \(size) bytes (at most \(DNSMessage.maxPacketBytes))"
            case .truncated(let what): "truncated \(what)"
            case .tooMany(let what): "too many \(what)"
            case .badName(let why): "a malformed name (\(why))"
            case .badRecord(let why): "a malformed record (\(why))"
            }
        }
    }

    struct Question: Sendable, Equatable {
        var name: DNSName
        var type: UInt16
        var questionClass: UInt16
    }

    var id: UInt16
    var flags: UInt16
    var questions: [Question]
    /// Answers, then authority, then additional records.
    var records: [DNSRecord]

    /// Whether the QR bit says this is a response.
    var isResponse: Bool { flags & 0x8000 != 0 }

    static let typeA: UInt16 = 1
    static let typePTR: UInt16 = 12
    static let typeTXT: UInt16 = 16
    static let typeAAAA: UInt16 = 28
    static let typeSRV: UInt16 = 33
    static let classIN: UInt16 = 1

    /// A query for `questions` (name and type; class IN with the unicast-response bit, RFC 6762 §5.4).
    static func query(id: UInt16, _ questions: [(name: DNSName, type: UInt16)]) -> [UInt8] {
        var bytes: [UInt8] = []
        func put16(_ value: UInt16) { bytes.append(UInt8(value >> 8)); bytes.append(UInt8(value & 0xFF)) }
        put16(id)
        put16(0)  // A standard query; mDNS ignores RD.
        put16(UInt16(min(questions.count, maxQuestions)))
        put16(0)
        put16(0)
        put16(0)
        for question in questions.prefix(maxQuestions) {
            bytes.append(contentsOf: question.name.wire)
            put16(question.type)
            put16(0x8000 | classIN)
        }
        return bytes
    }

    /// Parses one packet; throws ``ParseError`` for anything outside the bounds above.
    static func parse(_ packet: [UInt8]) throws -> DNSMessage {
        guard packet.count <= maxPacketBytes else { throw ParseError.tooLarge(packet.count) }
        var reader = Reader(bytes: packet)
        let id = try reader.u16("header")
        let flags = try reader.u16("header")
        let questionCount = Int(try reader.u16("header"))
        var recordCount = 0
        for _ in 0..<3 { recordCount += Int(try reader.u16("header")) }
        // A question takes at least 5 bytes and a record at least 11: counts that cannot fit are lies.
        guard questionCount <= maxQuestions else { throw ParseError.tooMany("questions (\(questionCount))") }
        guard recordCount <= maxRecords else { throw ParseError.tooMany("records (\(recordCount))") }
        guard questionCount * 5 + recordCount * 11 <= packet.count - 12 else {
            throw ParseError.truncated("packet: its header declares more than it holds")
        }
        var questions: [Question] = []
        for _ in 0..<questionCount {
            let name = try reader.name()
            questions.append(
                Question(name: name, type: try reader.u16("question"), questionClass: try reader.u16("question")))
        }
        var records: [DNSRecord] = []
        for _ in 0..<recordCount {
            records.append(try reader.record())
        }
        return DNSMessage(id: id, flags: flags, questions: questions, records: records)
    }

    /// A bounds-checked cursor over one packet.
    struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func u8(_ what: String) throws -> UInt8 {
            guard offset < bytes.count else { throw ParseError.truncated(what) }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func u16(_ what: String) throws -> UInt16 {
            guard offset + 2 <= bytes.count else { throw ParseError.truncated(what) }
            defer { offset += 2 }
            return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
        }

        mutating func u32(_ what: String) throws -> UInt32 {
            UInt32(try u16(what)) << 16 | UInt32(try u16(what))
        }

        /// A name at the cursor, which moves past its in-place part; never reads at or past `limit`
        /// (a record's end) for that part.
        mutating func name(limit: Int? = nil) throws -> DNSName {
            let end = min(limit ?? bytes.count, bytes.count)
            var labels: [[UInt8]] = []
            var wireBytes = 1  // The root's zero byte.
            var position = offset
            // Every pointer must go strictly before the label that holds it, and no pointer may go to or past
            // the start of an earlier jump's target: positions only decrease, so there is no loop.
            var floor = offset
            var jumps = 0
            var resumeAt: Int?
            var bound = end
            while true {
                guard position < bound else { throw ParseError.truncated("name") }
                let length = Int(bytes[position])
                switch length & 0xC0 {
                case 0x00:
                    if length == 0 {
                        offset = resumeAt ?? position + 1
                        return DNSName(labels: labels)
                    }
                    guard position + 1 + length <= bound else { throw ParseError.truncated("name") }
                    wireBytes += 1 + length
                    guard wireBytes <= DNSMessage.maxNameBytes else {
                        throw ParseError.badName("longer than \(DNSMessage.maxNameBytes) bytes")
                    }
                    labels.append(Array(bytes[(position + 1)..<(position + 1 + length)]))
                    position += 1 + length
                case 0xC0:
                    guard position + 2 <= bound else { throw ParseError.truncated("name") }
                    let target = (length & 0x3F) << 8 | Int(bytes[position + 1])
                    guard target < floor else {
                        throw ParseError.badName("a compression pointer that does not point back")
                    }
                    jumps += 1
                    guard jumps <= DNSMessage.maxPointerJumps else {
                        throw ParseError.badName("more than \(DNSMessage.maxPointerJumps) compression pointers")
                    }
                    if resumeAt == nil { resumeAt = position + 2 }
                    floor = target
                    position = target
                    // Earlier bytes lie before the record; a pointer's target may end anywhere before the
                    // place that pointed to it.
                    bound = bytes.count
                default:
                    throw ParseError.badName("a reserved label type")
                }
            }
        }

        mutating func record() throws -> DNSRecord {
            let name = try name()
            let type = try u16("record")
            let recordClass = try u16("record") & 0x7FFF
            let ttl = try u32("record")
            let length = Int(try u16("record"))
            let end = offset + length
            guard end <= bytes.count else { throw ParseError.truncated("record data") }
            defer { offset = end }
            let payload: DNSRecord.Payload
            switch type {
            case DNSMessage.typePTR:
                payload = .pointer(try self.name(limit: end))
                guard offset == end else { throw ParseError.badRecord("PTR data longer than its name") }
            case DNSMessage.typeSRV:
                guard length >= 7 else { throw ParseError.badRecord("SRV data of \(length) bytes") }
                let priority = try u16("SRV")
                let weight = try u16("SRV")
                let port = try u16("SRV")
                payload = .service(priority: priority, weight: weight, port: port, target: try self.name(limit: end))
                guard offset == end else { throw ParseError.badRecord("SRV data longer than its target") }
            case DNSMessage.typeTXT:
                var strings: [[UInt8]] = []
                while offset < end {
                    let count = Int(try u8("TXT"))
                    guard offset + count <= end else { throw ParseError.truncated("TXT string") }
                    guard strings.count < DNSMessage.maxTextStrings else {
                        throw ParseError.tooMany("TXT strings (more than \(DNSMessage.maxTextStrings))")
                    }
                    strings.append(Array(bytes[offset..<(offset + count)]))
                    offset += count
                }
                payload = .text(strings)
            case DNSMessage.typeA:
                guard length == 4 else { throw ParseError.badRecord("an A record of \(length) bytes") }
                payload = .ipv4(Array(bytes[offset..<end]))
            case DNSMessage.typeAAAA:
                guard length == 16 else { throw ParseError.badRecord("an AAAA record of \(length) bytes") }
                payload = .ipv6(Array(bytes[offset..<end]))
            default:
                payload = .other
            }
            return DNSRecord(name: name, type: type, recordClass: recordClass, ttl: ttl, payload: payload)
        }
    }
}
