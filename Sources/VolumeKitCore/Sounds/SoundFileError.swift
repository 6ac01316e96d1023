#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where in a sound file something is wrong: the chunk and the byte offset of its header.
public struct SoundFileLocation: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The chunk's four-character code (`"data"`, `"fmt "`, `"COMM"`), or `"file header"`.
    public var chunk: String
    /// The byte offset, from the start of the file, of the chunk's header (or of the field in question).
    public var offset: Int64

    /// Creates a location.
    public init(chunk: String, offset: Int64) {
        self.chunk = chunk
        self.offset = offset
    }

    /// "'data' chunk at byte 36" or "file header at byte 0".
    public var description: String {
        chunk == "file header" ? "file header at byte \(offset)" : "'\(chunk)' chunk at byte \(offset)"
    }
}

/// A header field that holds a value no valid file can have.
public enum SoundFileField: String, Sendable, Equatable, Hashable {
    /// Frames per second: zero, negative, not finite or absurdly high.
    case sampleRate = "sample rate"
    /// Channels per frame: zero or negative.
    case channelCount = "channel count"
    /// Bits per sample out of range for the encoding.
    case bitsPerSample = "bits per sample"
    /// CAF `mBytesPerPacket` inconsistent with the encoding.
    case bytesPerPacket = "bytes per packet"
    /// CAF `mFramesPerPacket` inconsistent with the encoding.
    case framesPerPacket = "frames per packet"
    /// WAV `nBlockAlign` inconsistent with channels and bits.
    case blockAlign = "block align"
    /// The container's version (CAF `mFileVersion` must be 1).
    case fileVersion = "file version"
    /// A chunk whose size is wrong for its kind (CAF `desc` must be 32 bytes, WAV `fmt ` at least 16, …).
    case chunkSize = "chunk size"
    /// A chunk that must come first but does not (CAF `desc`).
    case chunkOrder = "chunk order"
    /// A frame count the data cannot hold (CAF `pakt` valid frames).
    case frameCount = "frame count"
    /// AIFF `SSND` offset beyond the chunk.
    case dataOffset = "data offset"
}

/// Why a sound file cannot be read, or cannot be played by AudioServices.
///
/// Each case names exactly what is wrong and, for malformed files, where. Reading never crashes or hangs on
/// any input: the reader checks every size against the file, uses checked arithmetic and bounds its loops.
public enum SoundFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file has no bytes at all.
    case empty
    /// The file could not be opened or read (missing, a folder, no permission).
    case unreadable(reason: String)
    /// The first bytes are not those of any sound file this reader knows ("wrong magic").
    case unrecognizedFormat(magic: String)
    /// A known container AudioServices does not accept (MP3, MPEG-4/M4A, FLAC, Ogg, RF64, RIFX, other IFF/RIFF
    /// forms). Only CAF, AIFF/AIFF-C and WAV are accepted (`shared/facts/system-sounds.md` §3).
    case unsupportedContainer(String)
    /// An encoding AudioServices does not play: anything but linear PCM or IMA4 (`shared/facts/system-sounds.md` §3).
    case unsupportedEncoding(SoundEncoding)
    /// Longer than AudioServices' limit ("The maximum supported duration for a system sound is 30 secs",
    /// AudioServices.h; `shared/facts/system-sounds.md` §3).
    case tooLong(seconds: Double, limit: Double)
    /// The file ends inside a structure: `needed` bytes were declared or required at `location`, only `available` exist.
    case truncated(SoundFileLocation, needed: Int64, available: Int64)
    /// A chunk declares a size it cannot have: negative, or past the end of its container (RIFF/FORM size) or,
    /// for CAF metadata chunks, past the end of the file.
    case chunkTooLarge(SoundFileLocation, size: Int64, limit: Int64)
    /// A chunk the container requires is absent (`desc`, `data`, `fmt `, `COMM`, `SSND`, `pakt`).
    case missingChunk(String)
    /// A header field holds a value no valid file can have.
    case invalidField(SoundFileField, value: String, at: SoundFileLocation)
    /// More chunks than the reader is willing to walk (a guard against hostile files).
    case tooManyChunks(limit: Int)

    /// A stable identifier of the case for machine output: "empty", "unreadable", "unrecognized-format",
    /// "unsupported-container", "unsupported-encoding", "too-long", "truncated", "chunk-too-large",
    /// "missing-chunk", "invalid-field", "too-many-chunks".
    public var kind: String {
        switch self {
        case .empty: "empty"
        case .unreadable: "unreadable"
        case .unrecognizedFormat: "unrecognized-format"
        case .unsupportedContainer: "unsupported-container"
        case .unsupportedEncoding: "unsupported-encoding"
        case .tooLong: "too-long"
        case .truncated: "truncated"
        case .chunkTooLarge: "chunk-too-large"
        case .missingChunk: "missing-chunk"
        case .invalidField: "invalid-field"
        case .tooManyChunks: "too-many-chunks"
        }
    }

    /// One line saying what is wrong and where.
    public var description: String {
        switch self {
        case .empty:
            "empty file"
        case let .unreadable(reason):
            "cannot read the file: \(reason)"
        case let .unrecognizedFormat(magic):
            "not a sound file this reader knows (starts with \(magic)); AudioServices accepts CAF, AIFF or WAV"
        case let .unsupportedContainer(name):
            "unsupported container \(name); AudioServices accepts CAF, AIFF or WAV"
        case let .unsupportedEncoding(encoding):
            "unsupported encoding \(encoding); AudioServices plays only linear PCM or IMA4"
        case let .tooLong(seconds, limit):
            "too long: \(Self.format(seconds)) s; AudioServices plays at most \(Self.format(limit)) s"
        case let .truncated(location, needed, available):
            "truncated: \(location) needs \(needed) bytes, the file has \(available)"
        case let .chunkTooLarge(location, size, limit):
            "malformed: \(location) declares \(size) bytes, at most \(limit) fit"
        case let .missingChunk(chunk):
            "malformed: no '\(chunk)' chunk"
        case let .invalidField(field, value, location):
            "malformed: \(field.rawValue) \(value) in \(location)"
        case let .tooManyChunks(limit):
            "malformed: more than \(limit) chunks"
        }
    }

    static func format(_ seconds: Double) -> String {
        SoundFileInfo.seconds(seconds)
    }
}
