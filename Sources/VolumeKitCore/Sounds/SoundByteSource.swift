#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Random access to a sound file's bytes, so that `SoundFileReader` reads headers only.
///
/// The reader asks for small, bounded ranges (a chunk header, a format chunk); it never asks for the audio data.
public protocol SoundByteSource {
    /// The total length in bytes.
    var byteCount: Int64 { get }
    /// Up to `count` bytes starting at `offset` (fewer only at the end of the file).
    /// - Throws: `SoundFileError.unreadable` when the bytes cannot be read.
    func bytes(at offset: Int64, count: Int) throws -> [UInt8]
}

/// A sound file held in memory.
public struct DataByteSource: SoundByteSource {
    private let data: Data

    /// Wraps `data` (any `Data`, including a slice).
    public init(_ data: Data) { self.data = data }

    /// The length of the data.
    public var byteCount: Int64 { Int64(data.count) }

    /// Up to `count` bytes at `offset`.
    /// - Throws: `SoundFileError.unreadable` when the bytes cannot be read.
    public func bytes(at offset: Int64, count: Int) throws -> [UInt8] {
        guard offset >= 0, count > 0, offset < byteCount else { return [] }
        let start = data.startIndex + Int(offset)
        let end = start + min(count, data.endIndex - start)
        return [UInt8](data[start..<end])
    }
}

#if !canImport(FoundationEssentials)
/// A sound file on disk, read through a `FileHandle` in bounded pieces.
///
/// Keeps count of the bytes it has read (`bytesRead`), which shows that only headers are read.
public final class FileHandleByteSource: SoundByteSource {
    private let handle: FileHandle
    /// The file's length, measured once when the source is created.
    public let byteCount: Int64
    /// How many bytes have been read so far.
    public private(set) var bytesRead: Int64 = 0

    /// Wraps an open handle; measures the file by seeking to its end.
    /// - Throws: `SoundFileError.unreadable` when the bytes cannot be read.
    public init(_ handle: FileHandle) throws {
        self.handle = handle
        do {
            byteCount = Int64(clamping: try handle.seekToEnd())
        } catch {
            throw SoundFileError.unreadable(
                reason: "its length cannot be measured; check that the handle is open on a file that can be read")
        }
    }

    /// Up to `count` bytes at `offset`.
    /// - Throws: `SoundFileError.unreadable` when the bytes cannot be read.
    public func bytes(at offset: Int64, count: Int) throws -> [UInt8] {
        guard offset >= 0, count > 0, offset < byteCount else { return [] }
        do {
            try handle.seek(toOffset: UInt64(offset))
            let data = try handle.read(upToCount: count) ?? Data()
            bytesRead += Int64(data.count)
            return [UInt8](data)
        } catch {
            throw SoundFileError.unreadable(
                reason: "reading failed at byte \(offset); check that the disk and the file are intact")
        }
    }
}
#endif

/// Big- and little-endian field access on a small byte array, never trapping: reads past the end give zero.
/// Callers check lengths first; the zero fallback only keeps a bug from turning into a crash.
struct ByteFields {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func u8(_ i: Int) -> UInt8 { i >= 0 && i < bytes.count ? bytes[i] : 0 }

    func u16be(_ i: Int) -> UInt16 { UInt16(u8(i)) << 8 | UInt16(u8(i + 1)) }
    func u32be(_ i: Int) -> UInt32 { UInt32(u16be(i)) << 16 | UInt32(u16be(i + 2)) }
    func u64be(_ i: Int) -> UInt64 { UInt64(u32be(i)) << 32 | UInt64(u32be(i + 4)) }

    func u16le(_ i: Int) -> UInt16 { UInt16(u8(i)) | UInt16(u8(i + 1)) << 8 }
    func u32le(_ i: Int) -> UInt32 { UInt32(u16le(i)) | UInt32(u16le(i + 2)) << 16 }

    /// Four bytes as text, e.g. `data`; non-printable bytes as `\xNN` (``EchoedText/bytes(_:limit:)``).
    func fourCC(_ i: Int) -> String { EchoedText.bytes((0..<4).map { u8(i + $0) }) }
}
