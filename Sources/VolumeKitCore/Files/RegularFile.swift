import Foundation

/// Opens a file given on a command line or by a user only when it is a regular file: a folder, FIFO, socket
/// or device is refused by its type — a FIFO with no writer would block the reader forever. The file is opened
/// without blocking and its type checked on the open descriptor, so nothing swapped in after a check can block
/// it either. Failures are sentences, never the system's error text.
package enum RegularFile {
    /// Opens `path` for reading — a `kind` of file ("trace", "script"), as the sentences name it; throws a
    /// ``Failure`` saying why it cannot be read.
    package static func reading(_ path: String, kind: String) throws -> (handle: FileHandle, size: Int) {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(reason: openFailure(errno)) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            let isFolder = info.st_mode & S_IFMT == S_IFDIR
            close(descriptor)
            throw Failure(
                reason: isFolder
                    ? "it is a folder; name a \(kind) file in it"
                    : "it is not a regular file but a FIFO, socket or device; to read a pipe, give - and send the \(kind) to standard input"
            )
        }
        return (FileHandle(fileDescriptor: descriptor, closeOnDealloc: true), Int(info.st_size))
    }

    /// Why a file cannot be read, as a sentence.
    package struct Failure: Error, Sendable, Equatable {
        /// The reason, e.g. "there is no file at this path; check the path".
        package var reason: String
    }

    /// Why `open` failed, as a sentence (never the system's error text).
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
