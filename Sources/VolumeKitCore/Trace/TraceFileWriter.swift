import Foundation

/// Writes a trace to a file line by line as it is recorded, so that a run cut short (the app killed, the
/// phone out of battery) still leaves every record up to the last one — which the decoder then reports as
/// cut off, if it is.
///
/// ```swift
/// let writer = try TraceFileWriter(url: url)
/// let recorder = TraceRecorder(header: header, clock: clients.clock, onLine: writer.write)
/// …
/// writer.close()
/// ```
public final class TraceFileWriter: Sendable {
    private let handle: Locked<FileHandle?>

    /// Creates (or empties) the file at `url`.
    public init(url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw TraceError(line: nil, .unreadable("cannot create \(url.path)"))
        }
        handle = Locked(try FileHandle(forWritingTo: url))
    }

    /// Appends one line (a newline is added). Does nothing once closed.
    public func write(_ line: String) {
        handle.withLock { $0?.write(Data((line + "\n").utf8)) }
    }

    /// Flushes and closes the file. Later writes are ignored.
    public func close() {
        handle.withLock { handle in
            try? handle?.synchronize()
            try? handle?.close()
            handle = nil
        }
    }
}
