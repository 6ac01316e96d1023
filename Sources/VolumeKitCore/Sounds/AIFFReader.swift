#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads an AIFF or AIFF-C file's `COMM` and `SSND` chunks (AIFF 1.3, AIFF-C draft 1991;
/// `shared/facts/system-sounds.md` §4 "AIFF / AIFF-C"): big-endian, `FORM` size + form type, 8-byte chunk
/// headers, payloads padded to even length, sample rate as an 80-bit IEEE extended float.
struct AIFFReader<Source: SoundByteSource> {
    let source: Source
    let length: Int64
    let isAIFC: Bool

    private struct Common {
        var channels: Int16
        var frames: UInt32
        var bits: Int16
        var sampleRate: Double
        var compression: String
        var location: SoundFileLocation
    }

    func read() throws -> SoundFileInfo {
        var chunks = try PaddedChunkWalker(container: "FORM", source: source, length: length, bigEndian: true)
        var common: Common?
        var sound: (offset: Int64, count: Int64, location: SoundFileLocation)?
        while let chunk = try chunks.next() {
            switch chunk.type {
            case "COMM" where common == nil:
                let minimum: Int64 = isAIFC ? 22 : 18
                try chunk.requireSize(atLeast: minimum)
                let c = try source.exactBytes(at: chunk.payload, count: Int(minimum), for: chunk.location)
                common = Common(
                    channels: Int16(bitPattern: c.u16be(0)), frames: c.u32be(2), bits: Int16(bitPattern: c.u16be(6)),
                    sampleRate: Self.extended(exponent: c.u16be(8), mantissa: c.u64be(10)),
                    compression: isAIFC ? c.fourCC(18) : "NONE", location: chunk.location
                )
            case "SSND" where sound == nil:
                try chunk.requireSize(atLeast: 8)
                let s = try source.exactBytes(at: chunk.payload, count: 8, for: chunk.location)
                let dataOffset = Int64(s.u32be(0))
                guard dataOffset <= chunk.size - 8 else {
                    throw SoundFileError.invalidField(
                        .dataOffset, value: "\(dataOffset) (the chunk holds \(chunk.size - 8))", at: chunk.location)
                }
                sound = (chunk.payload + 8 + dataOffset, chunk.size - 8 - dataOffset, chunk.location)
            default:
                break
            }
        }
        guard let common else { throw SoundFileError.missingChunk("COMM") }
        return try info(common, sound: sound)
    }

    private func info(_ c: Common, sound: (offset: Int64, count: Int64, location: SoundFileLocation)?) throws
        -> SoundFileInfo
    {
        try checkSampleRate(c.sampleRate, at: c.location)
        guard c.channels > 0 else {
            throw SoundFileError.invalidField(.channelCount, value: "\(c.channels)", at: c.location)
        }
        let channels = Int64(c.channels)
        var frames = Int64(c.frames)
        var bits: Int? = Int(c.bits)
        let encoding = Self.encoding(forCompression: c.compression)
        var bytesNeeded: Int64?

        switch encoding {
        case let .linearPCM(isFloat, _):
            if isFloat {
                bits = c.compression.lowercased() == "fl64" ? 64 : 32
            } else {
                guard (1...32).contains(c.bits) else {
                    throw SoundFileError.invalidField(.bitsPerSample, value: "\(c.bits)", at: c.location)
                }
                if c.compression == "raw " || c.compression == "in24" || c.compression == "42ni" {
                    bits = c.compression == "raw " ? 8 : 24
                }
                if c.compression == "in32" || c.compression == "23ni" { bits = 32 }
            }
            bytesNeeded = frames * channels * Int64(((bits ?? 8) + 7) / 8)
        case .appleIMA4:
            // numSampleFrames counts 64-frame packets for ima4 (FFmpeg aiffdec; facts §4).
            bytesNeeded = frames * 34 * channels
            frames *= 64
            bits = 4
        default:
            if c.bits <= 0 { bits = nil }
        }
        guard let sound else {
            if frames == 0 {  // SSND may be omitted when there are no frames (AIFF 1.3)
                return SoundFileInfo(
                    container: isAIFC ? .aiffc : .aiff, encoding: encoding, sampleRate: c.sampleRate,
                    channels: Int(channels), bitsPerSample: bits, frameCount: 0,
                    audioDataOffset: 0, audioDataByteCount: 0)
            }
            throw SoundFileError.missingChunk("SSND")
        }
        if let bytesNeeded, bytesNeeded > sound.count {
            throw SoundFileError.truncated(sound.location, needed: bytesNeeded, available: sound.count)
        }
        return SoundFileInfo(
            container: isAIFC ? .aiffc : .aiff, encoding: encoding, sampleRate: c.sampleRate, channels: Int(channels),
            bitsPerSample: bits, frameCount: encoding.isKnownLength ? frames : nil,
            audioDataOffset: sound.offset, audioDataByteCount: sound.count
        )
    }

    /// The AIFF-C compression type's encoding (`shared/facts/system-sounds.md` §4).
    static func encoding(forCompression type: String) -> SoundEncoding {
        switch type {
        case "NONE", "twos", "raw ", "in24", "in32": .linearPCM(isFloat: false, isBigEndian: true)
        case "sowt", "42ni", "23ni": .linearPCM(isFloat: false, isBigEndian: false)
        case "fl32", "FL32", "fl64", "FL64": .linearPCM(isFloat: true, isBigEndian: true)
        case "ima4": .appleIMA4
        case "ulaw", "ULAW": .uLaw
        case "alaw", "ALAW": .aLaw
        default: .other("'\(type)'")
        }
    }

    /// An 80-bit IEEE 754 extended float: sign + 15-bit exponent (bias 16383), 64-bit mantissa with an explicit
    /// integer bit; value = mantissa × 2^(exponent − 16383 − 63). NaN and infinity come back as `.nan`/`.infinity`.
    static func extended(exponent signAndExponent: UInt16, mantissa: UInt64) -> Double {
        let sign: Double = signAndExponent & 0x8000 != 0 ? -1 : 1
        let exponent = Int(signAndExponent & 0x7FFF)
        if exponent == 0x7FFF { return mantissa << 1 == 0 ? sign * .infinity : .nan }
        if mantissa == 0 { return 0 }
        return sign * Double(sign: .plus, exponent: exponent - 16383 - 63, significand: Double(mantissa))
    }
}

extension SoundEncoding {
    /// Whether the frame count of an AIFF `COMM` chunk is the real length for this encoding.
    var isKnownLength: Bool {
        switch self {
        case .linearPCM, .appleIMA4, .uLaw, .aLaw: true
        default: false
        }
    }
}
