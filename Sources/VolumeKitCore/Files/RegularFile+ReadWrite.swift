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

/// Reading and writing a whole descriptor, for the files ``RegularFile/open(_:kind:pipes:)`` opens and the
/// standard streams.
extension RegularFile {
    /// Reads `descriptor` (a file ``open(_:kind:pipes:)`` opened, standard input, a pipe) to its end, or until
    /// it has read `limit` bytes, whichever comes first: an endless stream is cut at `limit`, never held whole.
    /// A caller that reads one byte past its own bound (`limit` = bound + 1) learns that the input is larger
    /// without reading it all. Waits (`poll`) when a non-blocking descriptor has nothing yet. Throws when a
    /// read fails; the caller says so in its own words.
    package static func read(_ descriptor: Int32, atMost limit: Int) throws -> Data {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while data.count < limit {
            let wanted = min(chunk.count, limit - data.count)
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, wanted) }
            if count > 0 {
                data.append(contentsOf: chunk[..<count])
            } else if count == 0 {
                break
            } else if errno == EINTR {
                continue
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&ready, 1, -1)
            } else {
                throw Failure(reason: "reading it failed; check that the disk and the file are intact")
            }
        }
        return data
    }

    /// Writes all of `bytes` to `descriptor` (a file, a pipe, a terminal), writing again after a partial write
    /// or an interrupted one, and waiting (`poll`) while a non-blocking pipe is full; `false` when a write fails
    /// (a full disk, a closed pipe).
    package static func write(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                written += count
            } else if count < 0, errno == EINTR {
                continue
            } else if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                // A non-blocking pipe that is full (the flag can come from the process that made the pipe).
                var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&ready, 1, -1)
            } else {
                return false
            }
        }
        return true
    }

    private static func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(descriptor, bytes, count)
        #else
        Darwin.write(descriptor, bytes, count)
        #endif
    }

    private static func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(descriptor, buffer, count)
        #else
        Darwin.read(descriptor, buffer, count)
        #endif
    }
}
