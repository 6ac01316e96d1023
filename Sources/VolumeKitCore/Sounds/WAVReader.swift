#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a WAV file's `fmt `, `fact` and `data` chunks (Microsoft/IBM RIFF 1.0, `WAVEFORMATEX`,
/// `WAVEFORMATEXTENSIBLE`; `shared/facts/system-sounds.md` §4 "WAV"): little-endian, `RIFF` size + `WAVE`,
/// 8-byte chunk headers, payloads padded to even length.
struct WAVReader<Source: SoundByteSource> {
    let source: Source
    let length: Int64

    private struct Format {
        var tag: UInt16
        var channels: UInt16
        var sampleRate: UInt32
        var blockAlign: UInt16
        var bits: UInt16
        var validBits: UInt16?
        var samplesPerBlock: UInt16?
        var encoding: SoundEncoding
        var location: SoundFileLocation
    }

    func read() throws -> SoundFileInfo {
        var chunks = try PaddedChunkWalker(container: "RIFF", source: source, length: length, bigEndian: false)
        var format: Format?
        var factFrames: Int64?
        var data: (offset: Int64, count: Int64, location: SoundFileLocation)?
        while let chunk = try chunks.next() {
            switch chunk.type {
            case "fmt " where format == nil:
                format = try readFormat(chunk)
            case "fact" where factFrames == nil:
                try chunk.requireSize(atLeast: 4)
                factFrames = Int64(try source.exactBytes(at: chunk.payload, count: 4, for: chunk.location).u32le(0))
            case "data" where data == nil:
                data = (chunk.payload, chunk.size, chunk.location)
            default:
                break
            }
        }
        guard let format else { throw SoundFileError.missingChunk("fmt ") }
        guard let data else { throw SoundFileError.missingChunk("data") }

        let blockAlign = Int64(format.blockAlign)
        var frames: Int64?
        var bits: Int? = format.bits > 0 ? Int(format.validBits ?? format.bits) : nil
        switch format.encoding {
        case .linearPCM:
            frames = data.count / blockAlign
        case .imaADPCM:
            bits = 4
            if let factFrames {
                frames = factFrames
            } else {
                // Without `fact`: whole blocks, plus the samples in a final partial block.
                let perBlock = Int64(format.samplesPerBlock ?? 0)
                let headerBytes = 4 * Int64(format.channels)
                let remainder = data.count % blockAlign
                let partial = remainder >= headerBytes ? (remainder - headerBytes) * 2 / Int64(format.channels) + 1 : 0
                frames = (data.count / blockAlign) * perBlock + partial
            }
        default:
            frames = factFrames
        }
        return SoundFileInfo(
            container: .wav, encoding: format.encoding, sampleRate: Double(format.sampleRate),
            channels: Int(format.channels),
            bitsPerSample: bits, frameCount: frames, audioDataOffset: data.offset, audioDataByteCount: data.count
        )
    }

    private func readFormat(_ chunk: SoundChunk) throws -> Format {
        try chunk.requireSize(atLeast: 16)
        let f = try source.exactBytes(at: chunk.payload, count: Int(min(chunk.size, 40)), for: chunk.location)
        var format = Format(
            tag: f.u16le(0), channels: f.u16le(2), sampleRate: f.u32le(4), blockAlign: f.u16le(12), bits: f.u16le(14),
            encoding: .other(""), location: chunk.location
        )
        let cbSize = chunk.size >= 18 ? Int(f.u16le(16)) : 0
        var code = format.tag
        if format.tag == 0xFFFE {
            guard chunk.size >= 40, cbSize >= 22 else {
                throw SoundFileError.invalidField(
                    .chunkSize, value: "\(chunk.size) (WAVE_FORMAT_EXTENSIBLE needs 40)", at: chunk.location)
            }
            format.validBits = f.u16le(18) == 0 ? nil : f.u16le(18)
            let guid = f.bytes[24..<40]
            if Array(guid.dropFirst(2)) == waveSubFormatGUIDTail {
                code = f.u16le(24)
            } else {
                format.encoding = .other("WAVE sub-format GUID \(guid.map { cFormat("%02X", $0) }.joined())")
                code = 0xFFFE
            }
        }
        if format.tag == 0x0011, cbSize >= 2, chunk.size >= 20 {
            format.samplesPerBlock = f.u16le(18)
        }
        if code != 0xFFFE { format.encoding = Self.encoding(forTag: code) }

        let location = chunk.location
        guard format.sampleRate > 0, format.sampleRate <= 10_000_000 else {
            throw SoundFileError.invalidField(.sampleRate, value: "\(format.sampleRate)", at: location)
        }
        guard format.channels > 0 else { throw SoundFileError.invalidField(.channelCount, value: "0", at: location) }
        guard format.blockAlign > 0 else { throw SoundFileError.invalidField(.blockAlign, value: "0", at: location) }
        let channels = Int(format.channels)
        switch format.encoding {
        case let .linearPCM(isFloat, _):
            try checkLinearPCMBits(Int(format.bits), isFloat: isFloat, at: location)
            if let valid = format.validBits, valid > format.bits {
                throw SoundFileError.invalidField(
                    .bitsPerSample, value: "\(valid) valid of \(format.bits)", at: location)
            }
            let expected = channels * ((Int(format.bits) + 7) / 8)
            guard Int(format.blockAlign) == expected else {
                throw SoundFileError.invalidField(
                    .blockAlign, value: "\(format.blockAlign) (must be \(expected))", at: location)
            }
        case .imaADPCM:
            guard format.bits == 4 else {
                throw SoundFileError.invalidField(.bitsPerSample, value: "\(format.bits) (must be 4)", at: location)
            }
            let headerBytes = 4 * channels
            guard Int(format.blockAlign) > headerBytes, (Int(format.blockAlign) - headerBytes) % (4 * channels) == 0
            else {
                throw SoundFileError.invalidField(.blockAlign, value: "\(format.blockAlign)", at: location)
            }
            let computed = (Int(format.blockAlign) - headerBytes) * 8 / (4 * channels) + 1
            if format.samplesPerBlock == nil || format.samplesPerBlock == 0 {
                format.samplesPerBlock = UInt16(clamping: computed)
            }
        default:
            break
        }
        return format
    }

    /// The WAVE format tag's encoding.
    static func encoding(forTag tag: UInt16) -> SoundEncoding {
        switch tag {
        case 0x0001: .linearPCM(isFloat: false, isBigEndian: false)
        case 0x0003: .linearPCM(isFloat: true, isBigEndian: false)
        case 0x0006: .aLaw
        case 0x0007: .uLaw
        case 0x0011: .imaADPCM
        case 0x0055: .mp3
        case 0x00FF, 0x1600, 0x1610, 0x4143: .aac
        default: .other(cFormat("WAVE format 0x%04X", tag))
        }
    }
}

/// The tail shared by every `KSDATAFORMAT_SUBTYPE_*` GUID whose first two bytes are a WAVE format tag
/// (`shared/facts/system-sounds.md` §4 "WAV", `WAVE_FORMAT_EXTENSIBLE`).
let waveSubFormatGUIDTail: [UInt8] = [
    0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71,
]
