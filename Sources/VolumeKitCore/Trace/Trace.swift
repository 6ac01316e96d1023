#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A whole trace: its header and its records, in file order (`docs/trace.md`).
///
/// ``jsonLines`` writes it; ``init(jsonLines:limits:)`` and ``init(contentsOf:limits:)`` read it strictly,
/// throwing a ``TraceError`` that names the line for anything malformed.
public struct Trace: Sendable, Equatable {
    /// The header line.
    public var header: TraceHeader
    /// Every record after it, times never decreasing.
    public var records: [TraceRecord]
    /// The format version the trace was read as: its header's `version` when read from a file, else the
    /// version this VolumeKit writes (``TraceHeader/formatVersion``). A trace of version 1 has no `diagnostic`
    /// records, so a replay compares no diagnostics for it. ``jsonLines`` always writes the newest version
    /// (each is a superset of the one before).
    public var formatVersion: Int

    /// Creates a trace.
    public init(header: TraceHeader, records: [TraceRecord] = []) {
        self.init(header: header, records: records, formatVersion: TraceHeader.formatVersion)
    }

    init(header: TraceHeader, records: [TraceRecord], formatVersion: Int) {
        self.header = header
        self.records = records
        self.formatVersion = formatVersion
    }

    /// The largest clock time a trace may reach, in seconds: the header's `clockOrigin`, each record's `t`
    /// and their sum stay below 2^33 s (8,589,934,592 s, about 272 years of uptime) in magnitude.
    ///
    /// Below it a `Double` still resolves 2^-20 s (0.95 µs), a thousandth of the millisecond VolumeKit's
    /// timing rules and a replay's 2 ms comparison are written in. Beyond it a replay would round its timers
    /// onto each other: at 2^53 s, `now + 0.1 == now`, and a repeating timer fired at its own instant forever.
    /// A device's uptime is days or months, so no real recording comes near it.
    public static let latestTime: Double = 8_589_934_592

    /// Why a time of a trace with clock origin `origin` cannot be replayed at its resolution, or `nil`.
    static func timeProblem(origin: Double, time: Double) -> TraceError.Problem? {
        guard abs(time) >= latestTime || abs(origin + time) >= latestTime else { return nil }
        return .invalidValue(
            field: "t", value: "\(time)",
            expected:
                "a time whose clock reading (clockOrigin \(origin) + t) stays below 8589934592 s (2^33 s, about 272 years); beyond it a time cannot hold a microsecond"
        )
    }

    /// Checks that every time of the trace stays within ``latestTime``, throwing the ``TraceError`` the
    /// decoder would (without a line: the trace may never have been a file).
    package func checkTimes() throws {
        if let problem = TraceHeader.originProblem(header.clockOrigin) { throw TraceError(line: nil, problem) }
        for record in records {
            if let problem = Self.timeProblem(origin: header.clockOrigin, time: record.time) {
                throw TraceError(line: nil, problem)
            }
        }
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
    ///
    /// Only a regular file is read: a folder, FIFO, socket or device is refused by its type (a FIFO with no
    /// writer would block the reader forever). The file is opened without blocking and its
    /// type checked on the open descriptor, so nothing swapped in after a check can block it either. A
    /// missing or unreadable file is refused with a sentence, never with the system's error text.
    public init(contentsOf url: URL, limits: Limits = .standard) throws {
        let file: RegularFile.Descriptor
        let data: Data
        do {
            file = try RegularFile.open(url.path, kind: "trace")
            defer { RegularFile.closeDescriptor(file.descriptor) }
            data = try RegularFile.read(file.descriptor, atMost: limits.maxFileBytes + 1)
        } catch let failure as RegularFile.Failure {
            throw TraceError(line: nil, .unreadable(failure.reason))
        }
        if data.count > limits.maxFileBytes {
            throw TraceError(
                line: nil, .fileTooLarge(bytes: max(Int(clamping: file.size), data.count), limit: limits.maxFileBytes))
        }
        try self.init(jsonLines: data, limits: limits)
    }

    #if !canImport(FoundationEssentials)
    /// Reads a trace from a stream (standard input, a pipe) to its end, as ``init(reading:limits:)-(Int32,_)``
    /// does with the handle's descriptor.
    public init(reading handle: FileHandle, limits: Limits = .standard) throws {
        try self.init(reading: handle.fileDescriptor, limits: limits)
    }
    #endif

    /// Reads a trace from an open descriptor — standard input (`0`), a pipe — to its end, reading at most
    /// `limits.maxFileBytes` + 1 bytes: an endless or oversized stream is refused without being held in memory.
    /// The descriptor stays open.
    public init(reading descriptor: Int32, limits: Limits = .standard) throws {
        let data: Data
        do {
            data = try RegularFile.read(descriptor, atMost: limits.maxFileBytes + 1)
        } catch {
            throw TraceError(line: nil, .unreadable("reading the input failed; check where it comes from"))
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
        var version = TraceHeader.formatVersion
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
                // Checked by the header: one of the readable versions. Records newer than it are refused.
                if case .number(let number)? = json["version"] { version = Int(number) }
                continue
            }
            guard records.count < limits.maxRecords else {
                throw TraceError(line: lineNumber, .tooManyRecords(limit: limits.maxRecords))
            }
            let record = try TraceRecord(json: json, line: lineNumber, version: version)
            if let problem = Self.timeProblem(origin: header!.clockOrigin, time: record.time) {
                throw TraceError(line: lineNumber, problem)
            }
            guard record.time >= previousTime else {
                throw TraceError(line: lineNumber, .timeWentBackwards(time: record.time, previous: previousTime))
            }
            previousTime = record.time
            records.append(record)
        }
        guard let header else { throw TraceError(line: nil, .empty) }
        self.init(header: header, records: records, formatVersion: version)
    }
}
