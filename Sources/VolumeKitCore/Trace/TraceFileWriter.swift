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

/// Writes a trace to a file line by line as it is recorded, so that a run cut short (the app killed, the
/// phone out of battery) still leaves every record up to the last one — which the decoder then reports as
/// cut off, if it is.
///
/// ```swift
/// let writer = try TraceFileWriter(url: url)
/// let recorder = TraceRecorder(header: header, clock: clients.clock, onLine: writer.write)
/// …
/// writer.close()
/// if let failure = writer.failure { print(failure) }   // the disk filled up, say
/// ```
public final class TraceFileWriter: Sendable {
    private struct State {
        /// The open descriptor, or `nil` once closed or after a failed write.
        var descriptor: Int32?
        var failure: TraceError?
    }

    private let state: Locked<State>
    private let path: String

    /// Creates (or empties) the file at `url`. Throws a ``TraceError`` (``TraceError/Problem/unwritable(path:reason:)``)
    /// naming the reason when it cannot: a folder is in the way, the folder does not exist, or it may not
    /// be written.
    public init(url: URL) throws {
        path = url.path
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw TraceError(line: nil, .unwritable(path: path, reason: "it is a folder; name a file in it"))
        }
        let folder = url.deletingLastPathComponent().path
        guard stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw TraceError(line: nil, .unwritable(path: path, reason: "the folder '\(folder)' does not exist"))
        }
        // An existing file is opened in place (never replaced: it may be a device such as /dev/stdout).
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw TraceError(line: nil, .unwritable(path: path, reason: Self.cannotWrite))
        }
        // A regular file is emptied; a pipe or a terminal cannot be, and need not be.
        _ = ftruncate(descriptor, 0)
        state = Locked(State(descriptor: descriptor))
    }

    private static let cannotWrite = "it may not be written there (permissions, or a read-only disk)"

    /// Appends one line (a newline is added). Does nothing once closed or after a failed write.
    public func write(_ line: String) {
        state.withLock { state in
            guard let descriptor = state.descriptor else { return }
            guard !RegularFile.write(Array((line + "\n").utf8), to: descriptor) else { return }
            state.failure = TraceError(
                line: nil,
                .unwritable(
                    path: path, reason: "writing failed; check that the disk has room and the file can be written"))
            RegularFile.closeDescriptor(descriptor)
            state.descriptor = nil
        }
    }

    /// The first write that failed (a full disk, say); the lines before it are in the file.
    public var failure: TraceError? { state.withLock { $0.failure } }

    /// Flushes and closes the file. Later writes are ignored.
    public func close() {
        state.withLock { state in
            if let descriptor = state.descriptor {
                _ = fsync(descriptor)
                RegularFile.closeDescriptor(descriptor)
            }
            state.descriptor = nil
        }
    }
}
