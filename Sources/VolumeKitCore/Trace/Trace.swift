import Foundation

/// A whole trace: its header and its records, in file order (`docs/trace.md`).
///
/// ``jsonLines`` writes it; ``init(jsonLines:limits:)`` and ``init(contentsOf:limits:)`` read it strictly,
/// throwing a ``TraceError`` that names the line for anything malformed.
public struct Trace: Sendable, Equatable {
    /// The header line.
    public var header: TraceHeader
    /// Every record after it, times never decreasing.
    public var records: [TraceRecord]

    /// Creates a trace.
    public init(header: TraceHeader, records: [TraceRecord] = []) {
        self.header = header
        self.records = records
    }

    /// Size caps, so a huge or hostile file is refused with a sentence instead of exhausting memory.
    public struct Limits: Sendable, Equatable {
        /// The largest file read, in bytes (64 MiB by default: hours of recording).
        public var maxFileBytes: Int
        /// The longest line, in bytes (256 KiB by default: a notification's `userInfo` is a few hundred).
        public var maxLineBytes: Int
        /// The most records (one million by default).
        public var maxRecords: Int

        /// Creates limits.
        public init(maxFileBytes: Int = 64 << 20, maxLineBytes: Int = 256 << 10, maxRecords: Int = 1_000_000) {
            self.maxFileBytes = maxFileBytes
            self.maxLineBytes = maxLineBytes
            self.maxRecords = maxRecords
        }

        /// The defaults.
        public static let standard = Limits()
    }

    /// The trace as JSON Lines: the header, then one record a line, each line ending in a newline.
    public var jsonLines: String {
        var out = header.json.text + "\n"
        for record in records { out += record.json.text + "\n" }
        return out
    }

    /// Reads a trace file, refusing files over `limits.maxFileBytes` before loading them.
    public init(contentsOf url: URL, limits: Limits = .standard) throws {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw TraceError(line: nil, .unreadable((error as NSError).localizedDescription))
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: limits.maxFileBytes + 1) ?? Data()
        } catch {
            throw TraceError(line: nil, .unreadable((error as NSError).localizedDescription))
        }
        if data.count > limits.maxFileBytes {
            // A device or a FIFO has no size of its own: say the input, not "a file of 0 bytes".
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
            guard size >= data.count else { throw TraceError(line: nil, .streamTooLarge(limit: limits.maxFileBytes)) }
            throw TraceError(line: nil, .fileTooLarge(bytes: size, limit: limits.maxFileBytes))
        }
        try self.init(jsonLines: data, limits: limits)
    }

    /// Reads a trace from a stream (standard input, a pipe) to its end, reading at most
    /// `limits.maxFileBytes` + 1 bytes: an endless or oversized stream is refused without being held in memory.
    public init(reading handle: FileHandle, limits: Limits = .standard) throws {
        var data = Data()
        while data.count <= limits.maxFileBytes {
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: min(1 << 20, limits.maxFileBytes + 1 - data.count))
            } catch {
                throw TraceError(line: nil, .unreadable((error as NSError).localizedDescription))
            }
            guard let chunk, !chunk.isEmpty else { break }
            data.append(chunk)
        }
        guard data.count <= limits.maxFileBytes else {
            throw TraceError(line: nil, .streamTooLarge(limit: limits.maxFileBytes))
        }
        try self.init(jsonLines: data, limits: limits)
    }

    /// Reads a trace from its JSON Lines bytes. Blank lines are ignored; a last line without a newline is
    /// accepted if it is complete, and reported as ``TraceError/Problem/truncated`` if it ends inside a
    /// string, array or object.
    public init(jsonLines data: Data, limits: Limits = .standard) throws {
        guard data.count <= limits.maxFileBytes else {
            throw TraceError(line: nil, .fileTooLarge(bytes: data.count, limit: limits.maxFileBytes))
        }
        var header: TraceHeader?
        var records: [TraceRecord] = []
        var previousTime = 0.0
        var lineNumber = 0
        var start = data.startIndex
        while start < data.endIndex {
            lineNumber += 1
            let newline = data[start...].firstIndex(of: 0x0A)
            let end = newline ?? data.endIndex
            let isLast = newline == nil
            var line = data[start..<end]
            start = newline.map { data.index(after: $0) } ?? data.endIndex
            if line.last == 0x0D { line = line.dropLast() }
            guard line.count <= limits.maxLineBytes else {
                throw TraceError(line: lineNumber, .lineTooLong(bytes: line.count, limit: limits.maxLineBytes))
            }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            guard String(data: line, encoding: .utf8) != nil else { throw TraceError(line: lineNumber, .notUTF8) }
            let json: TraceJSON
            do {
                json = try TraceJSON.parse(Data(line))
            } catch let error as TraceJSONSyntaxError {
                throw TraceError(
                    line: lineNumber,
                    isLast && TraceJSON.looksCutShort(Data(line)) ? .truncated : .notJSON(error.detail))
            }
            if header == nil {
                header = try TraceHeader(json: json, line: lineNumber)
                continue
            }
            guard records.count < limits.maxRecords else {
                throw TraceError(line: lineNumber, .tooManyRecords(limit: limits.maxRecords))
            }
            let record = try TraceRecord(json: json, line: lineNumber)
            guard record.time >= previousTime else {
                throw TraceError(line: lineNumber, .timeWentBackwards(time: record.time, previous: previousTime))
            }
            previousTime = record.time
            records.append(record)
        }
        guard let header else { throw TraceError(line: nil, .empty) }
        self.init(header: header, records: records)
    }
}
