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

/// Opens a file given on a command line or by a user only when it is a regular file: a folder, FIFO, socket
/// or device is refused by its type — a FIFO with no writer would block the reader forever. One opener for
/// traces, scripts and sound files.
///
/// The path's type is checked before it is opened (opening a device can act on it), the open never blocks
/// and never takes a terminal as the controlling one, and the type is checked again on the open descriptor,
/// so nothing swapped in between can block the reader either. Failures are sentences, never the system's
/// error text. It costs three system calls: `stat`, `open`, `fstat`.
package enum RegularFile {
    /// An open regular file: its descriptor, which the caller closes, and its size in bytes.
    package struct Descriptor: Sendable {
        /// The open descriptor (read-only, non-blocking, close-on-exec).
        package let descriptor: Int32
        /// The file's size in bytes when it was opened.
        package let size: Int64
    }

    /// Opens `path` for reading — a `kind` of file ("trace", "script", "sound"), as the sentences name it;
    /// throws a ``Failure`` saying why it cannot be read. The caller closes the descriptor. `pipes` says
    /// whether the caller reads standard input instead (`-`), which the refusal of a FIFO then suggests.
    ///
    /// Untyped `throws`: a typed one crashed the compiler's SIL generation in the iOS build.
    package static func open(_ path: String, kind: String, pipes: Bool = true) throws -> Descriptor {
        var info = stat()
        guard stat(path, &info) == 0 else { throw Failure(reason: openFailure(errno)) }
        try checkType(info, kind: kind, pipes: pipes)
        let descriptor = systemOpen(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else { throw Failure(reason: openFailure(errno)) }
        var opened = stat()
        guard fstat(descriptor, &opened) == 0 else {
            closeDescriptor(descriptor)
            throw Failure(reason: "it could not be examined once open; check that it can be read")
        }
        do {
            try checkType(opened, kind: kind, pipes: pipes)
        } catch {
            closeDescriptor(descriptor)
            throw error
        }
        return Descriptor(descriptor: descriptor, size: Int64(opened.st_size))
    }

    /// Closes a descriptor ``open(_:kind:)`` returned.
    package static func closeDescriptor(_ descriptor: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
    }

    /// Why a file cannot be read, as a sentence.
    package struct Failure: Error, Sendable, Equatable {
        /// The reason, e.g. "there is no file at this path; check the path".
        package var reason: String
    }

    private static func systemOpen(_ path: String, _ flags: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.open(path, flags)
        #else
        Darwin.open(path, flags)
        #endif
    }

    /// Refuses anything but a regular file, by its type.
    private static func checkType(_ info: stat, kind: String, pipes: Bool) throws {
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: throw Failure(reason: "it is a folder; name a \(kind) file in it")
        default:
            let advice = pipes ? "to read a pipe, give - and send the \(kind) to standard input" : "only files are read"
            throw Failure(reason: "it is not a regular file but a FIFO, socket or device; \(advice)")
        }
    }

    /// Why `stat` or `open` failed, as a sentence (never the system's error text).
    private static func openFailure(_ code: Int32) -> String {
        switch code {
        case ENOENT: "there is no file at this path; check the path"
        case ENOTDIR: "a folder in its path is a file; check the path"
        case EACCES, EPERM: "permission denied; check the file's permissions"
        case ELOOP: "its path has too many symbolic links"
        case ENAMETOOLONG: "its path is too long"
        default: "it could not be opened (system error \(code)); check that it exists and can be read"
        }
    }
}
