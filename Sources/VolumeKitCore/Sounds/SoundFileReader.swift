#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a sound file's headers — container, encoding, sample rate, channels, bits, exact frame count — without
/// reading its audio data.
///
/// Reads CAF, AIFF, AIFF-C and WAV (including `WAVE_FORMAT_EXTENSIBLE`) following the byte layouts in
/// `shared/facts/system-sounds.md` §4. Every size is checked against the file with checked arithmetic and
/// the chunk walk is bounded (`maximumChunkCount`), so any input yields a `SoundFileInfo` or a `SoundFileError`:
/// never a crash, never a hang. Use `SystemSoundValidator` to apply AudioServices' rules on top.
public enum SoundFileReader {
    /// The most chunks the reader walks before giving up with `SoundFileError.tooManyChunks`.
    public static let maximumChunkCount = 4096

    /// Reads the headers of a sound file held in memory.
    /// - Throws: `SoundFileError` naming what is wrong and where.
    public static func read(_ data: Data) throws -> SoundFileInfo {
        try read(from: DataByteSource(data))
    }

    /// Reads the headers of a sound file on disk, in small bounded reads (never the whole file).
    /// - Throws: `SoundFileError` naming what is wrong and where.
    ///
    /// Only regular files are opened: a folder, FIFO, socket or device is refused by its type first, so
    /// nothing blocks on a FIFO with no writer and no raw Foundation error text is shown.
    /// A file costs five system calls when its headers lie in its first 4 KiB: `stat`, `open`, `fstat`, one
    /// `pread` and `close` (not FileManager's attributes, which read /etc/passwd and /etc/group for every file).
    public static func read(contentsOf url: URL) throws -> SoundFileInfo {
        try read(atPath: url.path)
    }

    /// ``read(contentsOf:)`` for a path as a command line gives it (relative to the current folder): making a
    /// URL of it and reading back its path cost `volumekit sounds check` more than the file's check.
    package static func read(atPath path: String) throws -> SoundFileInfo {
        let file: RegularFile.Descriptor
        do {
            file = try RegularFile.open(path, kind: "sound", pipes: false)
        } catch let failure as RegularFile.Failure {
            throw SoundFileError.unreadable(reason: failure.reason)
        }
        let source = DescriptorByteSource(fd: file.descriptor, byteCount: file.size)
        defer { RegularFile.closeDescriptor(file.descriptor) }
        return try read(from: source)
    }

    #if !canImport(FoundationEssentials)
    /// Reads the headers through an open file handle, in small bounded reads (never the whole file).
    /// - Throws: `SoundFileError` naming what is wrong and where.
    public static func read(from handle: FileHandle) throws -> SoundFileInfo {
        try read(from: FileHandleByteSource(handle))
    }
    #endif

    /// Reads the headers from any byte source.
    /// - Throws: `SoundFileError` naming what is wrong and where.
    public static func read(from source: some SoundByteSource) throws -> SoundFileInfo {
        let length = source.byteCount
        guard length > 0 else { throw SoundFileError.empty }
        let head = try source.bytes(at: 0, count: 12)
        let fields = ByteFields(head)
        let magic = fields.fourCC(0)

        // A file shorter than its header whose bytes begin a known magic has been cut short, not mislabelled.
        for (known, needed) in [("caff", Int64(8)), ("FORM", 12), ("RIFF", 12)]
        where length < needed && Array(known.utf8).starts(with: head.prefix(4)) {
            throw SoundFileError.truncated(
                SoundFileLocation(chunk: "file header", offset: 0), needed: needed, available: length)
        }
        switch magic {
        case "caff":
            return try CAFReader(source: source, length: length).read()
        case "FORM":
            let form = fields.fourCC(8)
            guard form == "AIFF" || form == "AIFC" else { throw SoundFileError.unsupportedContainer("IFF '\(form)'") }
            return try AIFFReader(source: source, length: length, isAIFC: form == "AIFC").read()
        case "RIFF":
            let form = fields.fourCC(8)
            guard form == "WAVE" else { throw SoundFileError.unsupportedContainer("RIFF '\(form)'") }
            return try WAVReader(source: source, length: length).read()
        case "RIFX":
            throw SoundFileError.unsupportedContainer("RIFX (big-endian WAV)")
        case "RF64", "BW64":
            throw SoundFileError.unsupportedContainer("\(magic) (64-bit WAV)")
        case "fLaC":
            throw SoundFileError.unsupportedContainer("FLAC")
        case "OggS":
            throw SoundFileError.unsupportedContainer("Ogg")
        default:
            break
        }
        if head.count >= 8, fields.fourCC(4) == "ftyp" { throw SoundFileError.unsupportedContainer("MPEG-4 (M4A/MP4)") }
        if head.starts(with: Array("ID3".utf8)) { throw SoundFileError.unsupportedContainer("MP3 (ID3 tag)") }
        if head.count >= 2, head[0] == 0xFF, head[1] & 0xE0 == 0xE0 {
            throw SoundFileError.unsupportedContainer("MPEG audio (MP3/ADTS)")
        }
        if head.starts(with: Array("#!AMR".utf8)) { throw SoundFileError.unsupportedContainer("AMR") }
        throw SoundFileError.unrecognizedFormat(magic: "'\(EchoedText.bytes(head.prefix(4)))'")
    }
}

/// A chunk header found while walking a file.
struct SoundChunk {
    let type: String
    /// Offset of the chunk header.
    let offset: Int64
    /// Offset of the chunk's payload.
    let payload: Int64
    /// Payload size in bytes.
    let size: Int64

    var location: SoundFileLocation { SoundFileLocation(chunk: type, offset: offset) }

    /// Fails with `invalidField(.chunkSize)`, "N (at least M)", when the payload is under `minimum` bytes.
    func requireSize(atLeast minimum: Int64) throws {
        guard size >= minimum else {
            throw SoundFileError.invalidField(.chunkSize, value: "\(size) (at least \(minimum))", at: location)
        }
    }
}

extension SoundByteSource {
    /// Exactly `count` bytes at `offset`, or `truncated` at `location`.
    func exactBytes(at offset: Int64, count: Int, for location: SoundFileLocation) throws -> ByteFields {
        let bytes = try self.bytes(at: offset, count: count)
        guard bytes.count == count else {
            throw SoundFileError.truncated(location, needed: Int64(count), available: Int64(bytes.count))
        }
        return ByteFields(bytes)
    }
}

/// Adds without overflow, or fails with `chunkTooLarge` at `location`.
func checkedSum(_ a: Int64, _ b: Int64, at location: SoundFileLocation, limit: Int64) throws -> Int64 {
    let (sum, overflow) = a.addingReportingOverflow(b)
    if overflow { throw SoundFileError.chunkTooLarge(location, size: b, limit: limit) }
    return sum
}

/// Multiplies without overflow; `nil` on overflow.
func checkedProduct(_ a: Int64, _ b: Int64) -> Int64? {
    let (product, overflow) = a.multipliedReportingOverflow(by: b)
    return overflow ? nil : product
}

/// The lowest sample rate believed, in Hz. Below it a duration can overflow to infinity (a rate of 5e-324
/// makes "too long: inf s"); no real recording is slower than 1 frame per second.
let minimumSampleRate: Double = 1
/// The highest sample rate believed, in Hz.
let maximumSampleRate: Double = 10_000_000

/// Checks a sample rate: finite, at least 1 Hz, at most 10 MHz — so every duration is finite.
func checkSampleRate(_ rate: Double, at location: SoundFileLocation) throws {
    guard rate.isFinite, rate >= minimumSampleRate, rate <= maximumSampleRate else {
        throw SoundFileError.invalidField(.sampleRate, value: rate.isFinite ? "\(rate)" : "\(rate)", at: location)
    }
}

/// Checks a linear PCM sample size as CAF's `desc` and WAV's `fmt ` give it: 1 to 64 bits, and a float
/// sample 32 or 64.
func checkLinearPCMBits(_ bits: Int, isFloat: Bool, at location: SoundFileLocation) throws {
    guard (1...64).contains(bits), !isFloat || bits == 32 || bits == 64 else {
        throw SoundFileError.invalidField(.bitsPerSample, value: "\(bits)", at: location)
    }
}

/// Walks the chunks of a RIFF or IFF container: 8-byte headers, 32-bit sizes, payloads padded to even length.
///
/// A chunk running past `end` (the container's declared end) is `chunkTooLarge`; one inside the container
/// but past the end of the file is `truncated`. At most `SoundFileReader.maximumChunkCount` chunks.
/// (An iterator rather than a closure taking a typed-throws visitor: the latter crashes SILGen for iOS targets.)
struct PaddedChunkWalker<Source: SoundByteSource> {
    let source: Source
    let end: Int64
    let length: Int64
    let bigEndian: Bool
    private var offset: Int64
    private var count = 0

    init(source: Source, from start: Int64, to end: Int64, length: Int64, bigEndian: Bool) {
        self.source = source
        self.end = end
        self.length = length
        self.bigEndian = bigEndian
        offset = start
    }

    /// A walker over a whole RIFF or IFF file: reads its 12-byte header (magic, the container's size, form
    /// type) and walks from byte 12 to the end that size declares. A size under 4, too small for the form
    /// type, is `invalidField(.chunkSize)` at byte 0 of `container` (`"RIFF"`, `"FORM"`).
    init(container: String, source: Source, length: Int64, bigEndian: Bool) throws {
        let header = try source.exactBytes(at: 0, count: 12, for: SoundFileLocation(chunk: "file header", offset: 0))
        let size = Int64(bigEndian ? header.u32be(4) : header.u32le(4))
        guard size >= 4 else {
            throw SoundFileError.invalidField(
                .chunkSize, value: "\(size)", at: SoundFileLocation(chunk: container, offset: 0))
        }
        self.init(source: source, from: 12, to: 8 + size, length: length, bigEndian: bigEndian)
    }

    /// The next chunk, or `nil` when fewer than 8 bytes of the container remain.
    mutating func next() throws -> SoundChunk? {
        guard offset <= end - 8 else { return nil }
        count += 1
        if count > SoundFileReader.maximumChunkCount {
            throw SoundFileError.tooManyChunks(limit: SoundFileReader.maximumChunkCount)
        }
        let headerLocation = SoundFileLocation(chunk: "chunk header", offset: offset)
        let header = try source.exactBytes(at: offset, count: 8, for: headerLocation)
        let size = Int64(bigEndian ? header.u32be(4) : header.u32le(4))
        let chunk = SoundChunk(type: header.fourCC(0), offset: offset, payload: offset + 8, size: size)
        let payloadEnd = chunk.payload + size  // cannot overflow: both well under 2^33
        if payloadEnd > end {
            throw SoundFileError.chunkTooLarge(chunk.location, size: size, limit: max(0, end - chunk.payload))
        }
        if payloadEnd > length {
            throw SoundFileError.truncated(chunk.location, needed: size, available: max(0, length - chunk.payload))
        }
        offset = payloadEnd + (size & 1)
        return chunk
    }
}

/// An open file read with `pread(2)` through a 4 KiB window: the headers of most files lie in their first
/// 4 KiB, so one system call reads them all (a read of a chunk header elsewhere reads the window there). No
/// seek and no per-read `fstat` (FileHandle makes two or three). Only small reads go through the window; the
/// reader never asks for more than a chunk's header fields.
final class DescriptorByteSource: SoundByteSource {
    static let windowBytes = 4096
    let fd: Int32
    let byteCount: Int64
    /// How many `pread` calls it has made (the tests count them).
    private(set) var readCalls = 0
    private var window: [UInt8] = []
    private var windowStart: Int64 = 0

    init(fd: Int32, byteCount: Int64) {
        self.fd = fd
        self.byteCount = byteCount
    }

    func bytes(at offset: Int64, count: Int) throws -> [UInt8] {
        guard offset >= 0, count > 0, offset < byteCount else { return [] }
        let wanted = Int(min(Int64(count), byteCount - offset))
        guard wanted <= Self.windowBytes else { return try read(at: offset, count: wanted) }
        let windowEnd = windowStart + Int64(window.count)
        if offset < windowStart || offset + Int64(wanted) > windowEnd {
            window = try read(at: offset, count: Int(min(Int64(Self.windowBytes), byteCount - offset)))
            windowStart = offset
        }
        let from = Int(offset - windowStart)
        return Array(window[from..<min(window.count, from + wanted)])
    }

    /// Up to `count` bytes at `offset` (fewer only where the file ends sooner than measured).
    private func read(at offset: Int64, count: Int) throws -> [UInt8] {
        var result = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            readCalls += 1
            let got = result.withUnsafeMutableBytes { raw in
                pread(fd, raw.baseAddress! + filled, count - filled, off_t(offset) + off_t(filled))
            }
            if got > 0 {
                filled += got
            } else if got == 0 {
                break
            } else if errno != EINTR {
                throw SoundFileError.unreadable(
                    reason:
                        "reading failed at byte \(offset + Int64(filled)); check that the disk and the file are intact")
            }
        }
        return filled == count ? result : Array(result.prefix(filled))
    }
}
