import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a ``ScenarioRunner`` records the trace of its run (`volumekit simulate --trace FILE`, `docs/trace.md`).
///
/// ```swift
/// let runner = ScenarioRunner(scenario: scenario, behaviour: .sample(7))
/// runner.traceOptions = ScenarioTraceOptions()
/// runner.run()
/// let report = TraceFit.fit(runner.traceRecorder!.trace)
/// ```
public struct ScenarioTraceOptions: Sendable {
    /// The header's note; `nil` writes `volumekit simulate; rules: …` with every rule of the run's
    /// ``DeviceBehaviour``, so the file says which values a fit should give back.
    public var note: String?
    /// Receives each line of JSON Lines as it is recorded, the header first (to stream to a file).
    public var onLine: (@Sendable (String) -> Void)?
    /// Whether the recorder also keeps every record in memory (``/VolumeKitCore/TraceRecorder/trace``); a file
    /// written through ``onLine`` does not need it.
    public var keepsRecords: Bool
    /// The reader's limits: the run stops with ``ScenarioTraceLimitError`` rather than write a trace that
    /// `volumekit trace` would refuse.
    public var limits: Trace.Limits

    /// Creates options; by default the records are kept and nothing is streamed.
    public init(
        note: String? = nil, keepsRecords: Bool = true, limits: Trace.Limits = .standard,
        onLine: (@Sendable (String) -> Void)? = nil
    ) {
        self.note = note
        self.onLine = onLine
        self.keepsRecords = keepsRecords
        self.limits = limits
    }
}

/// A scenario run stopped because its trace reached the size a trace reader accepts (``/VolumeKitCore/Trace/Limits``): the
/// file holds the records up to there.
public struct ScenarioTraceLimitError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The records written.
    public var records: Int
    /// The bytes written.
    public var bytes: Int
    /// The limits reached.
    public var limits: Trace.Limits

    /// Creates an error.
    public init(records: Int, bytes: Int, limits: Trace.Limits) {
        self.records = records
        self.bytes = bytes
        self.limits = limits
    }

    /// The sentence shown to people.
    public var description: String {
        "stopped after \(records) trace records (\(bytes) bytes): the trace would outgrow what 'volumekit trace' reads (\(limits.maxRecords) records, \(limits.maxFileBytes) bytes); shorten the script's holds, presses or waits"
    }
}
