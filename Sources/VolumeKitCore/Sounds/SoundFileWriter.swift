#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes small sound files that AudioServices plays: CAF, AIFF, AIFF-C and WAV (plain or
/// `WAVE_FORMAT_EXTENSIBLE`) in linear PCM, and Apple IMA4 in CAF or AIFF-C.
///
/// Byte layouts follow `shared/facts/system-sounds.md` §4. Used by the tests to produce real files of every kind,
/// and by the mute-switch detector for its short, truly silent sound (`silence(duration:sampleRate:channels:container:)`).
public enum SoundFileWriter {
    /// The file container to write.
    public enum Container: String, Sendable, Equatable, Hashable, CaseIterable {
        /// Apple Core Audio Format.
        case caf
        /// AIFF (big-endian integer PCM only).
        case aiff
        /// AIFF-C (integer PCM in either byte order, float PCM, IMA4).
        case aiffc
        /// WAV with a plain `WAVEFORMATEX` header (tag 1 PCM or 3 float).
        case wav
        /// WAV with a `WAVE_FORMAT_EXTENSIBLE` header (tag 0xFFFE and a sub-format GUID).
        case wavExtensible

        /// The usual file extension: "caf", "aif", "aifc" or "wav".
        public var fileExtension: String {
            switch self {
            case .caf: "caf"
            case .aiff: "aif"
            case .aiffc: "aifc"
            case .wav, .wavExtensible: "wav"
            }
        }
    }

    /// The sample encoding to write.
    public enum Encoding: Sendable, Equatable, Hashable {
        /// Linear PCM: integer with 8, 16, 24 or 32 bits, or float with 32 or 64 bits.
        case linearPCM(bits: Int, isFloat: Bool)
        /// Apple IMA4 (CAF and AIFF-C only): 4:1 ADPCM, 64 frames per 34-byte packet per channel.
        case appleIMA4

        /// 16-bit integer PCM, the most common choice.
        public static let pcm16 = Encoding.linearPCM(bits: 16, isFloat: false)
    }

    /// Everything that decides a file's bytes apart from its samples.
    public struct Format: Sendable, Equatable, Hashable {
        /// The container.
        public var container: Container
        /// The sample encoding.
        public var encoding: Encoding
        /// Frames per second (an integer for WAV).
        public var sampleRate: Double
        /// Channels per frame.
        public var channels: Int
        /// Little-endian integer PCM in CAF or AIFF-C (`sowt`); AIFF is always big-endian and WAV little-endian.
        public var isLittleEndian: Bool

        /// Creates a format.
        public init(
            container: Container, encoding: Encoding = .pcm16, sampleRate: Double = 44_100, channels: Int = 1,
            isLittleEndian: Bool = false
        ) {
            self.container = container
            self.encoding = encoding
            self.sampleRate = sampleRate
            self.channels = channels
            self.isLittleEndian = isLittleEndian
        }
    }

    /// A format the writer cannot produce.
    public struct FormatError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong with the format.
        public var description: String
        /// Creates an error.
        public init(_ description: String) { self.description = description }
    }

    /// A file holding `samples` (interleaved, one per channel per frame, in -1...1; values outside are clipped).
    /// - Throws: `SoundFileWriter.FormatError` for a format the writer cannot produce.
    public static func write(samples: [Float], format: Format) throws -> Data {
        try check(format)
        guard samples.count % format.channels == 0 else {
            throw FormatError("\(samples.count) samples do not make whole frames of \(format.channels) channels")
        }
        let frames = samples.count / format.channels
        switch format.container {
        case .caf: return Data(caf(samples, frames: frames, format: format))
        case .aiff, .aiffc: return Data(aiff(samples, frames: frames, format: format))
        case .wav, .wavExtensible: return Data(wav(samples, frames: frames, format: format))
        }
    }

    /// A file of true silence — every sample exactly zero (0x80 for 8-bit WAV, whose samples are unsigned) —
    /// in 16-bit integer PCM, `duration` seconds long (rounded to whole frames).
    public static func silence(
        duration: Double, sampleRate: Double = 44_100, channels: Int = 1,
        container: Container = .caf
    ) throws -> Data {
        guard duration.isFinite, duration >= 0, duration <= 3600 else {
            throw FormatError("duration \(duration) s is out of range")
        }
        let format = Format(container: container, sampleRate: sampleRate, channels: channels)
        try check(format)
        let frames = Int((duration * sampleRate).rounded())
        return try write(samples: [Float](repeating: 0, count: frames * channels), format: format)
    }

    private static func check(_ format: Format) throws {
        guard (1...64).contains(format.channels) else {
            throw FormatError("channel count \(format.channels) is out of 1...64")
        }
        guard format.sampleRate.isFinite, format.sampleRate > 0, format.sampleRate <= 1_000_000 else {
            throw FormatError("sample rate \(format.sampleRate) is out of range")
        }
        switch format.encoding {
        case let .linearPCM(bits, isFloat):
            guard isFloat ? [32, 64].contains(bits) : [8, 16, 24, 32].contains(bits) else {
                throw FormatError("\(bits)-bit \(isFloat ? "float" : "integer") PCM is not supported")
            }
            if isFloat, format.container == .aiff {
                throw FormatError("AIFF holds integer PCM only; use AIFF-C for float")
            }
        case .appleIMA4:
            guard format.container == .caf || format.container == .aiffc else {
                throw FormatError("IMA4 is written to CAF or AIFF-C only")
            }
        }
        if format.container == .wav || format.container == .wavExtensible {
            guard format.sampleRate == format.sampleRate.rounded() else {
                throw FormatError("WAV needs a whole sample rate")
            }
        }
    }

    // MARK: - Samples

    private static func pcm(_ samples: [Float], bits: Int, isFloat: Bool, bigEndian: Bool, unsigned8: Bool) -> [UInt8] {
        let width = bits / 8
        var out = [UInt8]()
        out.reserveCapacity(samples.count * width)
        for sample in samples {
            let x = Double(sample.isNaN ? 0 : min(1, max(-1, sample)))
            let pattern: UInt64
            if isFloat {
                pattern = bits == 32 ? UInt64(Float(x).bitPattern) : x.bitPattern
            } else {
                let scale = Double((Int64(1) << (bits - 1)) - 1)
                var value = Int64((x * scale).rounded())
                if bits == 8, unsigned8 { value += 128 }
                pattern = UInt64(bitPattern: value)
            }
            appendInteger(pattern, width: width, bigEndian: bigEndian, to: &out)
        }
        return out
    }

    private static func int16(_ samples: [Float]) -> [Int16] {
        samples.map { Int16((Double($0.isNaN ? 0 : min(1, max(-1, $0))) * 32767).rounded()) }
    }

    // MARK: - CAF

    private static func caf(_ samples: [Float], frames: Int, format: Format) -> [UInt8] {
        var out: [UInt8] = Array("caff".utf8) + [0, 1, 0, 0]
        let channels = UInt32(format.channels)
        var desc = [UInt8]()
        appendInteger(format.sampleRate.bitPattern, width: 8, bigEndian: true, to: &desc)
        let payload: [UInt8]
        var pakt: [UInt8]?
        switch format.encoding {
        case let .linearPCM(bits, isFloat):
            desc += Array("lpcm".utf8)
            let flags: UInt32 = (isFloat ? 1 : 0) | (format.isLittleEndian ? 2 : 0)
            for field in [flags, channels * UInt32(bits / 8), 1, channels, UInt32(bits)] {
                appendU32(field, bigEndian: true, to: &desc)
            }
            payload = pcm(samples, bits: bits, isFloat: isFloat, bigEndian: !format.isLittleEndian, unsigned8: false)
        case .appleIMA4:
            desc += Array("ima4".utf8)
            for field in [0, 34 * channels, 64, channels, 0] { appendU32(field, bigEndian: true, to: &desc) }
            payload = IMAADPCM.appleIMA4Packets(int16(samples), channels: format.channels)
            // `pakt` carries the exact frame count: the last packet is padded (CAF spec; facts §4).
            let packets = (frames + 63) / 64
            var p = [UInt8]()
            appendInteger(UInt64(packets), width: 8, bigEndian: true, to: &p)
            appendInteger(UInt64(frames), width: 8, bigEndian: true, to: &p)
            appendU32(0, bigEndian: true, to: &p)
            appendU32(UInt32(packets * 64 - frames), bigEndian: true, to: &p)
            pakt = p
        }
        appendCAFChunk("desc", desc, to: &out)
        if let pakt { appendCAFChunk("pakt", pakt, to: &out) }
        appendCAFChunk("data", [0, 0, 0, 0] + payload, to: &out)
        return out
    }

    private static func appendCAFChunk(_ type: String, _ payload: [UInt8], to out: inout [UInt8]) {
        out += Array(type.utf8)
        appendInteger(UInt64(payload.count), width: 8, bigEndian: true, to: &out)
        out += payload
    }

    // MARK: - AIFF / AIFF-C

    private static func aiff(_ samples: [Float], frames: Int, format: Format) -> [UInt8] {
        let isAIFC = format.container == .aiffc
        var comm = [UInt8]()
        appendInteger(UInt64(format.channels), width: 2, bigEndian: true, to: &comm)
        let payload: [UInt8]
        let compression: (type: String, name: String)
        switch format.encoding {
        case let .linearPCM(bits, isFloat):
            appendU32(UInt32(frames), bigEndian: true, to: &comm)
            appendInteger(UInt64(bits), width: 2, bigEndian: true, to: &comm)
            let littleEndian = isAIFC && format.isLittleEndian && !isFloat
            payload = pcm(samples, bits: bits, isFloat: isFloat, bigEndian: !littleEndian, unsigned8: false)
            compression =
                isFloat
                ? (bits == 32 ? ("fl32", "32-bit floating point") : ("fl64", "64-bit floating point"))
                : littleEndian ? ("sowt", "") : ("NONE", "not compressed")
        case .appleIMA4:
            appendU32(UInt32((frames + 63) / 64), bigEndian: true, to: &comm)  // counts packets for ima4
            appendInteger(16, width: 2, bigEndian: true, to: &comm)
            payload = IMAADPCM.appleIMA4Packets(int16(samples), channels: format.channels)
            compression = ("ima4", "IMA 4:1")
        }
        comm += extended80(format.sampleRate)
        var out = [UInt8]()
        if isAIFC {
            comm += Array(compression.type.utf8)
            let name = Array(compression.name.utf8.prefix(254))
            comm += [UInt8(name.count)] + name
            if (name.count + 1) % 2 == 1 { comm.append(0) }  // the Pascal string is padded to even length
            appendIFFChunk("FVER", [0xA2, 0x80, 0x51, 0x40], to: &out)
        }
        appendIFFChunk("COMM", comm, to: &out)
        appendIFFChunk("SSND", [0, 0, 0, 0, 0, 0, 0, 0] + payload, to: &out)
        var file: [UInt8] = Array("FORM".utf8)
        appendU32(UInt32(out.count + 4), bigEndian: true, to: &file)
        return file + Array((isAIFC ? "AIFC" : "AIFF").utf8) + out
    }

    private static func appendIFFChunk(
        _ type: String, _ payload: [UInt8], to out: inout [UInt8], bigEndian: Bool = true
    ) {
        out += Array(type.utf8)
        appendU32(UInt32(payload.count), bigEndian: bigEndian, to: &out)
        out += payload
        if payload.count % 2 == 1 { out.append(0) }
    }

    /// An 80-bit IEEE extended float for AIFF's sample rate: sign + 15-bit exponent (bias 16383), 64-bit mantissa
    /// with an explicit integer bit (`shared/facts/system-sounds.md` §4).
    static func extended80(_ value: Double) -> [UInt8] {
        guard value.isFinite, value > 0 else { return [UInt8](repeating: 0, count: 10) }
        var out = [UInt8]()
        appendInteger(UInt64(value.exponent + 16383), width: 2, bigEndian: true, to: &out)
        appendInteger(UInt64(value.significand * 9_223_372_036_854_775_808.0), width: 8, bigEndian: true, to: &out)
        return out
    }

    // MARK: - WAV

    private static func wav(_ samples: [Float], frames: Int, format: Format) -> [UInt8] {
        guard case let .linearPCM(bits, isFloat) = format.encoding else { return [] }  // excluded by `check`
        let channels = format.channels
        let blockAlign = channels * bits / 8
        let rate = UInt32(format.sampleRate)
        let extensible = format.container == .wavExtensible
        var fmt = [UInt8]()
        let tag: UInt16 = extensible ? 0xFFFE : isFloat ? 3 : 1
        appendInteger(UInt64(tag), width: 2, bigEndian: false, to: &fmt)
        appendInteger(UInt64(channels), width: 2, bigEndian: false, to: &fmt)
        appendU32(rate, bigEndian: false, to: &fmt)
        appendU32(rate * UInt32(blockAlign), bigEndian: false, to: &fmt)
        appendInteger(UInt64(blockAlign), width: 2, bigEndian: false, to: &fmt)
        appendInteger(UInt64(bits), width: 2, bigEndian: false, to: &fmt)
        if extensible {
            appendInteger(22, width: 2, bigEndian: false, to: &fmt)  // cbSize
            appendInteger(UInt64(bits), width: 2, bigEndian: false, to: &fmt)  // valid bits
            appendU32(channels == 1 ? 0x4 : channels == 2 ? 0x3 : 0, bigEndian: false, to: &fmt)  // channel mask
            appendInteger(isFloat ? 3 : 1, width: 2, bigEndian: false, to: &fmt)
            fmt += waveSubFormatGUIDTail
        } else if isFloat {
            appendInteger(0, width: 2, bigEndian: false, to: &fmt)  // cbSize for non-PCM tags
        }
        var body = Array("WAVE".utf8)
        appendIFFChunk("fmt ", fmt, to: &body, bigEndian: false)
        if isFloat {  // non-PCM formats carry `fact` with the frame count (facts §4)
            var fact = [UInt8]()
            appendU32(UInt32(frames), bigEndian: false, to: &fact)
            appendIFFChunk("fact", fact, to: &body, bigEndian: false)
        }
        appendIFFChunk(
            "data", pcm(samples, bits: bits, isFloat: isFloat, bigEndian: false, unsigned8: true), to: &body,
            bigEndian: false)
        var file: [UInt8] = Array("RIFF".utf8)
        appendU32(UInt32(body.count), bigEndian: false, to: &file)
        return file + body
    }

    // MARK: - Integers

    private static func appendU32(_ value: UInt32, bigEndian: Bool, to out: inout [UInt8]) {
        appendInteger(UInt64(value), width: 4, bigEndian: bigEndian, to: &out)
    }

    private static func appendInteger(_ value: UInt64, width: Int, bigEndian: Bool, to out: inout [UInt8]) {
        for i in 0..<width {
            let shift = bigEndian ? (width - 1 - i) * 8 : i * 8
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
