#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a trace file cannot be read, and where: every problem names its line (1-based) when it has one.
///
/// The decoder never crashes on a bad file: truncated lines, unknown versions, wrong types and oversized
/// files all end here, with a sentence a person can act on (``description``).
public struct TraceError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// What is wrong.
    public enum Problem: Sendable, Equatable {
        /// The file holds nothing, not even a header.
        case empty
        /// The file is larger than the decoder's limit.
        case fileTooLarge(bytes: Int, limit: Int)
        /// A stream (standard input, a pipe, a device) holds more than the decoder's limit.
        case streamTooLarge(limit: Int)
        /// The file has more records than the decoder's limit.
        case tooManyRecords(limit: Int)
        /// A line is longer than the decoder's limit.
        case lineTooLong(bytes: Int, limit: Int)
        /// A line is not valid UTF-8.
        case notUTF8
        /// The last line ends mid-record: the file was cut off.
        case truncated
        /// A line is not valid JSON.
        case notJSON(String)
        /// A line is valid JSON but not an object.
        case notAnObject(found: String)
        /// The first line is not a VolumeKit trace header (its `format` is shown, if any).
        case notATrace(format: String?)
        /// The header's version is not one this decoder reads; `supported` is the newest it reads (it reads 1 through it).
        case unsupportedVersion(String, supported: Int)
        /// A required field is absent.
        case missingField(String)
        /// A field has the wrong JSON type.
        case wrongType(field: String, expected: String, found: String)
        /// A field has the right type but a value the format does not allow.
        case invalidValue(field: String, value: String, expected: String)
        /// A record's `type` is not one of the format's.
        case unknownRecordType(String)
        /// A record's time is earlier than the record before it (times are monotonic).
        case timeWentBackwards(time: Double, previous: Double)
        /// The file could not be read at all.
        case unreadable(String)
        /// A trace could not be written to `path` (see ``TraceFileWriter``), and why.
        case unwritable(path: String, reason: String)
    }

    /// The 1-based line number, `nil` for a problem with the whole file.
    public var line: Int?
    /// What is wrong.
    public var problem: Problem

    /// Creates an error.
    public init(line: Int?, _ problem: Problem) {
        self.line = line
        self.problem = problem
    }

    /// One sentence: where, what, and what to do.
    public var description: String {
        let place = line.map { "line \($0): " } ?? ""
        return place + explanation
    }

    /// `description`, for `localizedDescription`.
    public var errorDescription: String? { description }

    /// Input echoed back: cut and cleaned of control characters (``EchoedText``). The default `limit` leaves
    /// a value the decoder already cut to ``EchoedText/defaultLimit`` characters (escapes and quotes and all)
    /// as it is, and still bounds one made elsewhere.
    private static func echo(_ text: String, limit: Int = 10 * EchoedText.defaultLimit) -> String {
        EchoedText.clean(text, limit: limit)
    }

    /// The versions a reader of versions 1 through `newest` reads, in words.
    private static func versions(upTo newest: Int) -> String {
        switch newest {
        case ...1: "version \(newest)"
        case 2: "versions 1 and 2"
        default: "versions 1 to \(newest)"
        }
    }

    private var explanation: String {
        switch problem {
        case .empty:
            return "the file is empty; a trace starts with a header line (see docs/trace.md)."
        case .fileTooLarge(let bytes, let limit):
            return
                "the file is \(bytes) bytes, more than the \(limit)-byte limit for a trace; split the recording or raise the limit."
        case .streamTooLarge(let limit):
            return
                "the input is more than \(limit) bytes, the limit for a trace; is it a trace? (split the recording or raise the limit)"
        case .tooManyRecords(let limit):
            return
                "the file has more than \(limit) records, the limit for a trace; split the recording or raise the limit."
        case .lineTooLong(let bytes, let limit):
            return "the line is \(bytes) bytes, more than the \(limit)-byte limit for one record; is this a trace file?"
        case .notUTF8:
            return "the line is not valid UTF-8 text; a trace is UTF-8 JSON Lines."
        case .truncated:
            return
                "the last record is cut off (the file ends mid-line); the recording was interrupted or the file was not copied completely."
        case .notJSON(let detail):
            return "the line is not valid JSON (\(Self.echo(detail))); each line of a trace is one JSON object."
        case .notAnObject(let found):
            return "the line is \(Self.echo(found)), not a JSON object; each line of a trace is one JSON object."
        case .notATrace(let format):
            if let format {
                return
                    "the header's format is \"\(Self.echo(format, limit: EchoedText.defaultLimit))\", not \"\(TraceHeader.formatName)\"; this is not a VolumeKit trace."
            }
            return
                "the first line has no \"format\" field; this is not a VolumeKit trace (its first line must be the header)."
        case .unsupportedVersion(let version, let supported):
            return
                "the trace is format version \(Self.echo(version)), but this VolumeKit reads \(Self.versions(upTo: supported)); use a VolumeKit that knows that version."
        case .missingField(let field):
            return "the required field \"\(Self.echo(field))\" is missing."
        case .wrongType(let field, let expected, let found):
            return "the field \"\(Self.echo(field))\" should be \(expected), but it is \(Self.echo(found))."
        case .invalidValue(let field, let value, let expected):
            return "the field \"\(Self.echo(field))\" is \(Self.echo(value)), but it should be \(expected)."
        case .unknownRecordType(let type):
            return
                "\"\(Self.echo(type, limit: EchoedText.defaultLimit))\" is not a record type of trace format \(TraceHeader.formatVersion) or older (see docs/trace.md)."
        case .timeWentBackwards(let time, let previous):
            return
                "the record's time \(time) s is earlier than the previous record's \(previous) s; times in a trace never go backwards."
        case .unreadable(let detail):
            return "the file cannot be read (\(Self.echo(detail)))."
        case .unwritable(let path, let reason):
            return "cannot write the trace to '\(EchoedText.path(path))': \(Self.echo(reason))."
        }
    }
}
