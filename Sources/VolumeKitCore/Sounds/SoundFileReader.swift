import Foundation

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
    public static func read(_ data: Data) throws(SoundFileError) -> SoundFileInfo {
        try read(from: DataByteSource(data))
    }

    /// Reads the headers of a sound file on disk, in small bounded reads (never the whole file).
    public static func read(contentsOf url: URL) throws(SoundFileError) -> SoundFileInfo {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw .unreadable(reason: "cannot open \(url.path) (\(error.localizedDescription))")
        }
        defer { try? handle.close() }
        return try read(from: handle)
    }

    /// Reads the headers through an open file handle, in small bounded reads (never the whole file).
    public static func read(from handle: FileHandle) throws(SoundFileError) -> SoundFileInfo {
        try read(from: FileHandleByteSource(handle))
    }

    /// Reads the headers from any byte source.
    public static func read(from source: some SoundByteSource) throws(SoundFileError) -> SoundFileInfo {
        let length = source.byteCount
        guard length > 0 else { throw .empty }
        let head = try source.bytes(at: 0, count: 12)
        let fields = ByteFields(head)
        let magic = fields.fourCC(0)

        // A file shorter than its header whose bytes begin a known magic has been cut short, not mislabelled.
        for (known, needed) in [("caff", Int64(8)), ("FORM", 12), ("RIFF", 12)]
        where length < needed && Array(known.utf8).starts(with: head.prefix(4)) {
            throw .truncated(SoundFileLocation(chunk: "file header", offset: 0), needed: needed, available: length)
        }
        switch magic {
        case "caff":
            return try CAFReader(source: source, length: length).read()
        case "FORM":
            let form = fields.fourCC(8)
            guard form == "AIFF" || form == "AIFC" else { throw .unsupportedContainer("IFF '\(form)'") }
            return try AIFFReader(source: source, length: length, isAIFC: form == "AIFC").read()
        case "RIFF":
            let form = fields.fourCC(8)
            guard form == "WAVE" else { throw .unsupportedContainer("RIFF '\(form)'") }
            return try WAVReader(source: source, length: length).read()
        case "RIFX":
            throw .unsupportedContainer("RIFX (big-endian WAV)")
        case "RF64", "BW64":
            throw .unsupportedContainer("\(magic) (64-bit WAV)")
        case "fLaC":
            throw .unsupportedContainer("FLAC")
        case "OggS":
            throw .unsupportedContainer("Ogg")
        default:
            break
        }
        if head.count >= 8, fields.fourCC(4) == "ftyp" { throw .unsupportedContainer("MPEG-4 (M4A/MP4)") }
        if head.starts(with: Array("ID3".utf8)) { throw .unsupportedContainer("MP3 (ID3 tag)") }
        if head.count >= 2, head[0] == 0xFF, head[1] & 0xE0 == 0xE0 { throw .unsupportedContainer("MPEG audio (MP3/ADTS)") }
        if head.starts(with: Array("#!AMR".utf8)) { throw .unsupportedContainer("AMR") }
        throw .unrecognizedFormat(magic: "'\(ByteFields.text(of: Array(head.prefix(4))))'")
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
}

extension SoundByteSource {
    /// Exactly `count` bytes at `offset`, or `truncated` at `location`.
    func exactBytes(at offset: Int64, count: Int, for location: SoundFileLocation) throws(SoundFileError) -> ByteFields {
        let bytes = try self.bytes(at: offset, count: count)
        guard bytes.count == count else {
            throw .truncated(location, needed: Int64(count), available: Int64(bytes.count))
        }
        return ByteFields(bytes)
    }
}

/// Adds without overflow, or fails with `chunkTooLarge` at `location`.
func checkedSum(_ a: Int64, _ b: Int64, at location: SoundFileLocation, limit: Int64) throws(SoundFileError) -> Int64 {
    let (sum, overflow) = a.addingReportingOverflow(b)
    if overflow { throw .chunkTooLarge(location, size: b, limit: limit) }
    return sum
}

/// Multiplies without overflow; `nil` on overflow.
func checkedProduct(_ a: Int64, _ b: Int64) -> Int64? {
    let (product, overflow) = a.multipliedReportingOverflow(by: b)
    return overflow ? nil : product
}

/// Checks a sample rate: finite, above zero, at most 10 MHz.
func checkSampleRate(_ rate: Double, at location: SoundFileLocation) throws(SoundFileError) {
    guard rate.isFinite, rate > 0, rate <= 10_000_000 else {
        throw .invalidField(.sampleRate, value: rate.isFinite ? "\(rate)" : "\(rate)", at: location)
    }
}

/// Walks the chunks of a RIFF or IFF container: 8-byte headers, 32-bit sizes, payloads padded to even length.
///
/// A chunk running past `end` (the container's declared end) is `chunkTooLarge`; one inside the container
/// but past the end of the file is `truncated`.
func walkPaddedChunks(
    in source: some SoundByteSource, from start: Int64, to end: Int64, length: Int64, bigEndian: Bool,
    visit: (SoundChunk) throws(SoundFileError) -> Void
) throws(SoundFileError) {
    var offset = start
    var count = 0
    while offset <= end - 8 {
        count += 1
        if count > SoundFileReader.maximumChunkCount { throw .tooManyChunks(limit: SoundFileReader.maximumChunkCount) }
        let headerLocation = SoundFileLocation(chunk: "chunk header", offset: offset)
        let header = try source.exactBytes(at: offset, count: 8, for: headerLocation)
        let type = header.fourCC(0)
        let size = Int64(bigEndian ? header.u32be(4) : header.u32le(4))
        let chunk = SoundChunk(type: type, offset: offset, payload: offset + 8, size: size)
        let payloadEnd = chunk.payload + size  // cannot overflow: both well under 2^33
        if payloadEnd > end {
            throw .chunkTooLarge(chunk.location, size: size, limit: max(0, end - chunk.payload))
        }
        if payloadEnd > length {
            throw .truncated(chunk.location, needed: size, available: max(0, length - chunk.payload))
        }
        try visit(chunk)
        offset = payloadEnd + (size & 1)
    }
}
