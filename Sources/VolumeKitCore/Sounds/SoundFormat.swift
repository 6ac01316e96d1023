#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The file container of a sound file.
///
/// AudioServices accepts sounds "packaged in a .caf, .aif, or .wav file" (`shared/facts/system-sounds.md` §3);
/// these are exactly the containers `SoundFileReader` reads.
public enum SoundContainer: String, Sendable, Equatable, Hashable, CaseIterable, CustomStringConvertible {
    /// Apple Core Audio Format (`caff`).
    case caf
    /// Audio Interchange File Format (`FORM` … `AIFF`).
    case aiff
    /// AIFF-C, the compressed variant (`FORM` … `AIFC`).
    case aiffc
    /// RIFF WAVE (`RIFF` … `WAVE`), including `WAVE_FORMAT_EXTENSIBLE`.
    case wav

    /// A short human name: "CAF", "AIFF", "AIFF-C" or "WAV".
    public var description: String {
        switch self {
        case .caf: "CAF"
        case .aiff: "AIFF"
        case .aiffc: "AIFF-C"
        case .wav: "WAV"
        }
    }

    /// The file name extensions (lower case, no dot) this container is known by; the first is the usual one.
    public var fileExtensions: [String] {
        switch self {
        case .caf: ["caf"]
        case .aiff: ["aif", "aiff"]
        case .aiffc: ["aifc", "aif", "aiff"]
        case .wav: ["wav", "wave"]
        }
    }

    /// A warning when the name of `url` does not end in one of ``fileExtensions``, else `nil`.
    ///
    /// VolumeKit's rule: the bytes decide what a file is, so a WAV named `.m4a` passes the
    /// check, but the mismatch is warned about — AudioServices asks for "a .caf, .aif, or .wav file"
    /// (`shared/facts/system-sounds.md` §3) and iOS may take the extension as a hint, so rename it.
    public func extensionWarning(for url: URL) -> String? {
        extensionWarning(forExtension: url.pathExtension)
    }

    /// ``extensionWarning(for:)`` for a file whose name ends in `.found` (`""`: no extension). `volumekit sounds
    /// check` takes it from the path with ``pathExtension(of:)``: a URL's own costs more than the file's check.
    package func extensionWarning(forExtension found: String) -> String? {
        let found = found.lowercased()
        guard !fileExtensions.contains(found) else { return nil }
        // The extension is the user's text: cut and cleaned like every echo of input.
        let named = found.isEmpty ? "has no extension" : "ends in .\(EchoedText.clean(found))"
        return
            "the name \(named) but the content is \(self); rename it to .\(fileExtensions[0]) (the content decides the check, "
            + "but AudioServices asks for a .caf, .aif or .wav file)"
    }

    /// The extension of the last component of `path`: what follows its last ".", when that dot is neither the
    /// component's first character (a hidden file) nor its last; else `""`.
    package static func pathExtension(of path: String) -> String {
        let name = path.utf8.lastIndex(of: UInt8(ascii: "/")).map { path[path.index(after: $0)...] } ?? path[...]
        guard let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }
}

/// How the audio samples in a sound file are encoded.
public enum SoundEncoding: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Uncompressed linear PCM, integer or IEEE float, in either byte order.
    case linearPCM(isFloat: Bool, isBigEndian: Bool)
    /// Apple IMA4 (CAF / AIFF-C `ima4`): 64 frames in 34 bytes per channel per packet
    /// (`shared/facts/system-sounds.md` §4).
    case appleIMA4
    /// IMA/DVI ADPCM in WAV (format tag `0x0011`).
    case imaADPCM
    /// G.711 µ-law.
    case uLaw
    /// G.711 A-law.
    case aLaw
    /// MPEG-4 AAC.
    case aac
    /// Apple Lossless.
    case alac
    /// MPEG-1/2 Layer III.
    case mp3
    /// Anything else, named as the file names it: a four-character code (`'zzzz'`) or a WAV format tag.
    case other(String)

    /// Whether AudioServices plays this encoding: linear PCM or IMA4 (IMA/ADPCM) only
    /// (`shared/facts/system-sounds.md` §3, Apple's `AudioServicesPlaySystemSound` documentation).
    public var isPlayableBySystemSounds: Bool {
        switch self {
        case .linearPCM, .appleIMA4, .imaADPCM: true
        default: false
        }
    }

    /// A short human name, e.g. "linear PCM (integer, little-endian)", "IMA4", "AAC", "'zzzz'".
    public var description: String {
        switch self {
        case let .linearPCM(isFloat, isBigEndian):
            "linear PCM (\(isFloat ? "float" : "integer"), \(isBigEndian ? "big" : "little")-endian)"
        case .appleIMA4: "IMA4"
        case .imaADPCM: "IMA ADPCM"
        case .uLaw: "µ-law"
        case .aLaw: "A-law"
        case .aac: "AAC"
        case .alac: "Apple Lossless"
        case .mp3: "MP3"
        case let .other(name): name
        }
    }

    /// A stable short identifier for machine output: "lpcm", "ima4", "ima-adpcm", "ulaw", "alaw", "aac",
    /// "alac", "mp3" or the `other` name.
    public var identifier: String {
        switch self {
        case .linearPCM: "lpcm"
        case .appleIMA4: "ima4"
        case .imaADPCM: "ima-adpcm"
        case .uLaw: "ulaw"
        case .aLaw: "alaw"
        case .aac: "aac"
        case .alac: "alac"
        case .mp3: "mp3"
        case let .other(name): name
        }
    }
}

/// What a sound file's headers say about it, read by `SoundFileReader` without reading the audio data.
public struct SoundFileInfo: Sendable, Equatable {
    /// The container.
    public var container: SoundContainer
    /// The sample encoding.
    public var encoding: SoundEncoding
    /// Frames per second (finite and greater than zero).
    public var sampleRate: Double
    /// Channels per frame (at least one).
    public var channels: Int
    /// Bits per sample for linear PCM (the valid bits for `WAVE_FORMAT_EXTENSIBLE`), 4 for IMA encodings,
    /// `nil` when the header does not say.
    public var bitsPerSample: Int?
    /// The exact number of frames, or `nil` when the header cannot tell (an unknown variable-rate codec).
    public var frameCount: Int64?
    /// Where the audio bytes start, from the start of the file.
    public var audioDataOffset: Int64
    /// How many bytes of audio data the file holds.
    public var audioDataByteCount: Int64

    /// Creates file facts.
    public init(
        container: SoundContainer, encoding: SoundEncoding, sampleRate: Double, channels: Int,
        bitsPerSample: Int?, frameCount: Int64?, audioDataOffset: Int64, audioDataByteCount: Int64
    ) {
        self.container = container
        self.encoding = encoding
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitsPerSample = bitsPerSample
        self.frameCount = frameCount
        self.audioDataOffset = audioDataOffset
        self.audioDataByteCount = audioDataByteCount
    }

    /// The exact duration in seconds (`frameCount / sampleRate`), or `nil` when the frame count is unknown.
    public var duration: Double? {
        frameCount.map { Double($0) / sampleRate }
    }
}

extension SoundFileInfo {
    /// `value` seconds with three decimals, exactly as `cFormat("%.3f")` writes them, without
    /// Foundation's formatter (it cost `volumekit sounds check` a third of a file's check). A value that is not
    /// finite, or of 10^12 s or more, is written as Swift writes it.
    package static func seconds(_ value: Double) -> String {
        guard value.isFinite, value.magnitude < 1e12 else { return "\(value)" }
        // %.3f rounds the binary value itself to thousandths, an exact tie to even. `product` is
        // magnitude × 1000 rounded; `error` what that rounding dropped (exact, by a fused multiply-add), so
        // `product + error` is the true product and the sign of `fraction - 0.5 + error` decides.
        let magnitude = value.magnitude
        let product = magnitude * 1000
        let error = (-product).addingProduct(magnitude, 1000)
        let whole = product.rounded(.down)
        let beyondHalf = (product - whole - 0.5) + error
        let roundsUp = beyondHalf > 0 || (beyondHalf == 0 && whole.truncatingRemainder(dividingBy: 2) == 1)
        let count = Int(whole) + (roundsUp ? 1 : 0)
        let fraction = String(count % 1000)
        return (value.sign == .minus ? "-" : "") + String(count / 1000) + "."
            + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
