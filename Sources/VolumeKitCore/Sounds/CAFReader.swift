#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a CAF file's `desc`, `data` and `pakt` chunks (Apple Core Audio Format Specification 1.0;
/// `shared/facts/system-sounds.md` §4 "CAF"): big-endian, 8-byte file header, 12-byte chunk headers with
/// signed 64-bit sizes, no padding; `desc` first; `data` may have size -1 when it is the last chunk.
struct CAFReader<Source: SoundByteSource> {
    let source: Source
    let length: Int64

    private struct Description {
        var sampleRate: Double
        var formatID: String
        var flags: UInt32
        var bytesPerPacket: UInt32
        var framesPerPacket: UInt32
        var channels: UInt32
        var bits: UInt32
        var location: SoundFileLocation
    }

    func read() throws -> SoundFileInfo {
        let fileHeader = SoundFileLocation(chunk: "file header", offset: 0)
        let header = try source.exactBytes(at: 0, count: 8, for: fileHeader)
        let version = header.u16be(4)
        guard version == 1 else {
            throw SoundFileError.invalidField(
                .fileVersion, value: "\(version)", at: SoundFileLocation(chunk: "file header", offset: 4))
        }

        var description: Description?
        var data: (offset: Int64, count: Int64, location: SoundFileLocation)?
        var validFrames: (count: Int64, location: SoundFileLocation)?
        var offset: Int64 = 8
        var chunks = 0
        walk: while offset < length {
            // Trailing padding: writers such as SoX (libsox 14.4) add one zero byte after an odd-sized last
            // chunk, RIFF-style, though CAF has no padding. Fewer zero bytes than a chunk header
            // after a complete 'data' chunk end the file; anything else there is still `truncated`.
            if data != nil, length - offset < 12,
                try source.bytes(at: offset, count: Int(length - offset)).allSatisfy({ $0 == 0 })
            {
                break walk
            }
            chunks += 1
            if chunks > SoundFileReader.maximumChunkCount {
                throw SoundFileError.tooManyChunks(limit: SoundFileReader.maximumChunkCount)
            }
            let fields = try source.exactBytes(
                at: offset, count: 12, for: SoundFileLocation(chunk: "chunk header", offset: offset))
            let type = fields.fourCC(0)
            let size = Int64(bitPattern: fields.u64be(4))
            let location = SoundFileLocation(chunk: type, offset: offset)
            let payload = offset + 12
            let available = length - payload

            if description == nil, type != "desc" {
                throw SoundFileError.invalidField(.chunkOrder, value: "'\(type)' before 'desc'", at: location)
            }
            var end: Int64
            if size == -1, type == "data" {
                end = length  // "data runs to the end of the file" — only allowed for the last chunk.
            } else if size < 0 {
                throw SoundFileError.chunkTooLarge(location, size: size, limit: available)
            } else {
                end = try checkedSum(payload, size, at: location, limit: available)
                if end > length {
                    if type == "data" { throw SoundFileError.truncated(location, needed: size, available: available) }
                    throw SoundFileError.chunkTooLarge(location, size: size, limit: available)
                }
            }

            switch type {
            case "desc":
                guard description == nil else { break }
                guard size == 32 else {
                    throw SoundFileError.invalidField(.chunkSize, value: "\(size) (must be 32)", at: location)
                }
                let d = try source.exactBytes(at: payload, count: 32, for: location)
                description = Description(
                    sampleRate: Double(bitPattern: d.u64be(0)), formatID: d.fourCC(8), flags: d.u32be(12),
                    bytesPerPacket: d.u32be(16), framesPerPacket: d.u32be(20), channels: d.u32be(24),
                    bits: d.u32be(28), location: location
                )
            case "data":
                let payloadSize = end - payload
                guard payloadSize >= 4 else {
                    throw SoundFileError.invalidField(
                        .chunkSize, value: "\(payloadSize) (at least 4 for the edit count)", at: location)
                }
                data = (payload + 4, payloadSize - 4, location)
                if size == -1 { break walk }
            case "pakt":
                guard size >= 24 else {
                    throw SoundFileError.invalidField(.chunkSize, value: "\(size) (at least 24)", at: location)
                }
                let p = try source.exactBytes(at: payload, count: 24, for: location)
                let frames = Int64(bitPattern: p.u64be(8))
                guard frames >= 0 else {
                    throw SoundFileError.invalidField(.frameCount, value: "\(frames)", at: location)
                }
                validFrames = (frames, location)
            default:
                break
            }
            offset = end
        }

        guard let description else { throw SoundFileError.missingChunk("desc") }
        guard let data else { throw SoundFileError.missingChunk("data") }
        return try info(description, data: data, validFrames: validFrames)
    }

    private func info(
        _ d: Description, data: (offset: Int64, count: Int64, location: SoundFileLocation),
        validFrames: (count: Int64, location: SoundFileLocation)?
    ) throws -> SoundFileInfo {
        try checkSampleRate(d.sampleRate, at: d.location)
        guard d.channels > 0, d.channels <= 1024 else {
            throw SoundFileError.invalidField(.channelCount, value: "\(d.channels)", at: d.location)
        }
        let channels = Int64(d.channels)
        let encoding: SoundEncoding
        var bits: Int? = d.bits > 0 ? Int(d.bits) : nil
        var frames: Int64?

        switch d.formatID {
        case "lpcm":
            let isFloat = d.flags & 1 != 0
            encoding = .linearPCM(isFloat: isFloat, isBigEndian: d.flags & 2 == 0)
            try checkLinearPCMBits(Int(d.bits), isFloat: isFloat, at: d.location)
            guard d.framesPerPacket == 1 else {
                throw SoundFileError.invalidField(
                    .framesPerPacket, value: "\(d.framesPerPacket) (must be 1)", at: d.location)
            }
            let minimum = channels * Int64((d.bits + 7) / 8)
            // At most 8 bytes (64 bits) per sample and channel: a larger packet is no linear PCM layout, and
            // would make any data hold "0 frames" (0xFFFFFFFE would pass as "ok, 0 frames").
            let maximum = channels * 8
            guard Int64(d.bytesPerPacket) >= minimum, Int64(d.bytesPerPacket) <= maximum else {
                throw SoundFileError.invalidField(
                    .bytesPerPacket, value: "\(d.bytesPerPacket) (must be \(minimum)…\(maximum))", at: d.location)
            }
            frames = data.count / Int64(d.bytesPerPacket)
        case "ima4":
            encoding = .appleIMA4
            bits = 4
            guard d.framesPerPacket == 64 else {
                throw SoundFileError.invalidField(
                    .framesPerPacket, value: "\(d.framesPerPacket) (must be 64)", at: d.location)
            }
            guard Int64(d.bytesPerPacket) == 34 * channels else {
                throw SoundFileError.invalidField(
                    .bytesPerPacket, value: "\(d.bytesPerPacket) (must be \(34 * channels))", at: d.location)
            }
            let packets = data.count / Int64(d.bytesPerPacket)
            let capacity = checkedProduct(packets, 64) ?? .max
            if let validFrames {
                guard validFrames.count <= capacity else {
                    throw SoundFileError.invalidField(
                        .frameCount, value: "\(validFrames.count) (the data holds \(capacity))",
                        at: validFrames.location)
                }
                frames = validFrames.count
            } else {
                frames = capacity
            }
        default:
            encoding = Self.encoding(forFormatID: d.formatID)
            if d.bytesPerPacket > 0, d.framesPerPacket > 0 {
                frames = checkedProduct(data.count / Int64(d.bytesPerPacket), Int64(d.framesPerPacket))
                if let validFrames, let capacity = frames, validFrames.count <= capacity { frames = validFrames.count }
            } else {
                frames = validFrames?.count  // variable packets: only `pakt` knows (nil if absent)
            }
            if d.bits == 0 { bits = nil }
        }
        return SoundFileInfo(
            container: .caf, encoding: encoding, sampleRate: d.sampleRate, channels: Int(channels),
            bitsPerSample: bits, frameCount: frames, audioDataOffset: data.offset, audioDataByteCount: data.count
        )
    }

    static func encoding(forFormatID id: String) -> SoundEncoding {
        switch id {
        case "ulaw": .uLaw
        case "alaw": .aLaw
        case "aac ", "aach", "aacp", "aace", "aacl", "aacg", "aacf": .aac
        case "alac": .alac
        case ".mp3": .mp3
        default: .other("'\(id)'")
        }
    }
}
