import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a replay produced, compared with what the trace recorded.
public struct TraceReplayReport: Sendable, Equatable {
    /// Something that happened at a clock time: a set of the volume (``TimedSet``), a diagnostic (``TimedDiagnostic``),
    /// a Ring/Silent state (``MuteChange``) — recorded in the trace, or made by the replay.
    public struct Timed<Value: Sendable & Equatable>: Sendable, Equatable {
        /// When (clock time).
        public var time: Instant
        /// What: the value set, the diagnostic raised, the state reported.
        public var value: Value
        /// Creates a timed value.
        public init(time: Instant, value: Value) {
            self.time = time
            self.value = value
        }
    }

    /// A set of the volume at a clock time.
    public typealias TimedSet = Timed<Float>
    /// A diagnostic raised at a clock time: recorded in the trace (a `diagnostic` record), or raised by the replay.
    public typealias TimedDiagnostic = Timed<VolumeButtonsDiagnostic>
    /// A Ring/Silent state the mute engine reported in the replay.
    public typealias MuteChange = Timed<MuteState>

    /// A place where VolumeKit's sets now differ from the recorded ones.
    public enum SetDifference: Sendable, Equatable {
        /// At about the same moment VolumeKit now sets another value.
        case changed(recorded: TimedSet, now: TimedSet)
        /// The recording has a set that VolumeKit no longer makes.
        case missing(recorded: TimedSet)
        /// VolumeKit now makes a set the recording does not have.
        case extra(now: TimedSet)

        /// When, for ordering (the recorded time when there is one).
        public var time: Instant {
            switch self {
            case .changed(let recorded, _), .missing(let recorded): recorded.time
            case .extra(let now): now.time
            }
        }
    }

    /// A place where the diagnostics the engine raises now differ from the recorded ones.
    public enum DiagnosticDifference: Sendable, Equatable {
        /// The recording has a diagnostic the engine no longer raises there.
        case missing(recorded: TimedDiagnostic)
        /// The engine now raises a diagnostic the recording does not have there.
        case extra(now: TimedDiagnostic)

        /// When.
        public var time: Instant {
            switch self {
            case .missing(let recorded): recorded.time
            case .extra(let now): now.time
            }
        }
    }

    /// Whether the trace came from the simulator or a device.
    public var source: TraceSource
    /// The button events the engine produces now.
    public var events: [VolumeButtonEvent]
    /// The button events the trace recorded, `nil` when it recorded none.
    public var recordedEvents: [VolumeButtonEvent]?
    /// The sets the engine makes now.
    public var sets: [TimedSet]
    /// The sets the trace recorded.
    public var recordedSets: [TimedSet]
    /// Recorded inputs that found no subscriber, view or sound play in the replay (the engine now
    /// subscribes, installs or plays differently).
    public var undeliveredInputs: Int
    /// Whether the trace had no `app` records, so the engine was started at its first record.
    public var startInferred: Bool
    /// Diagnostics the engine reported, and start failures.
    public var diagnostics: [String]
    /// The Ring/Silent states the mute engine reports now (when the trace recorded feature `mute`).
    public var muteChanges: [MuteChange] = []
    /// Every difference between the sets made now and the recorded ones, in time order.
    public let setDifferences: [SetDifference]
    /// The diagnostics the button engine raised in the replay, with their clock times.
    public private(set) var diagnosticsNow: [TimedDiagnostic] = []
    /// The button engine's diagnostics the trace recorded (its `diagnostic` records of feature `buttons`, and
    /// untagged ones), `nil` when it cannot have recorded any (trace format 1, or no button engine replayed).
    public private(set) var recordedDiagnostics: [TimedDiagnostic]?
    /// Every difference between ``diagnosticsNow`` and ``recordedDiagnostics``, in time order (none when
    /// nothing was recorded to compare with). Reported, never a reason to refuse the replay: like a set
    /// difference, it says the engine behaves differently now on the same inputs.
    public private(set) var diagnosticDifferences: [DiagnosticDifference] = []

    /// Two sets are the same when their values are equal and their times within this (seconds).
    public static let timeTolerance: TimeInterval = 0.002

    /// Creates a report and compares the sets.
    public init(
        source: TraceSource, events: [VolumeButtonEvent], recordedEvents: [VolumeButtonEvent]?, sets: [TimedSet],
        recordedSets: [TimedSet], undeliveredInputs: Int, startInferred: Bool, diagnostics: [String]
    ) {
        self.source = source
        self.events = events
        self.recordedEvents = recordedEvents
        self.sets = sets
        self.recordedSets = recordedSets
        self.undeliveredInputs = undeliveredInputs
        self.startInferred = startInferred
        self.diagnostics = diagnostics
        setDifferences = Self.compare(recorded: recordedSets, now: sets)
    }

    /// Whether the events produced now are the recorded ones (same button, phase and time within
    /// ``timeTolerance``), `nil` when the trace recorded none.
    public var eventsMatchRecording: Bool? {
        guard let recordedEvents else { return nil }
        guard recordedEvents.count == events.count else { return false }
        return zip(recordedEvents, events).allSatisfy {
            $0.button == $1.button && $0.phase == $1.phase && abs($0.time - $1.time) <= Self.timeTolerance
        }
    }

    // MARK: - Comparing

    /// Sets ``diagnosticsNow`` and ``recordedDiagnostics`` and compares them: a recorded diagnostic and one
    /// raised now are the same when they are the same case with the same payload (a failed activation's
    /// reason aside: it is the system's message, which a replay words differently) and their times lie within
    /// ``timeTolerance``; each is paired at most once, earliest first.
    mutating func compareDiagnostics(now: [TimedDiagnostic], recorded: [TimedDiagnostic]?) {
        diagnosticsNow = now
        recordedDiagnostics = recorded
        guard let recorded else {
            diagnosticDifferences = []
            return
        }
        diagnosticDifferences = Self.compare(recorded: recorded, now: now)
    }

    static func compare(recorded: [TimedDiagnostic], now: [TimedDiagnostic]) -> [DiagnosticDifference] {
        func same(_ a: VolumeButtonsDiagnostic, _ b: VolumeButtonsDiagnostic) -> Bool {
            if case .sessionActivationFailed = a, case .sessionActivationFailed = b { return true }
            return a == b
        }
        let now = now.sorted { $0.time < $1.time }
        var used = [Bool](repeating: false, count: now.count)
        var differences: [DiagnosticDifference] = []
        // Both in time order: the window of candidates for each recorded one only moves forward.
        var low = 0
        for entry in recorded {
            while low < now.count, now[low].time < entry.time - timeTolerance { low += 1 }
            var index = low
            var match: Int?
            while index < now.count, now[index].time <= entry.time + timeTolerance {
                if !used[index], same(now[index].value, entry.value) {
                    match = index
                    break
                }
                index += 1
            }
            if let match { used[match] = true } else { differences.append(.missing(recorded: entry)) }
        }
        for (index, entry) in now.enumerated() where !used[index] { differences.append(.extra(now: entry)) }
        return differences.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
            .map(\.element)
    }

    /// Aligns the two sequences of sets (longest common subsequence of equal sets), then pairs a missing
    /// set with an extra one made within 50 ms as a changed value.
    static func compare(recorded: [TimedSet], now: [TimedSet]) -> [SetDifference] {
        let same: (TimedSet, TimedSet) -> Bool = { $0.value == $1.value && abs($0.time - $1.time) <= timeTolerance }
        let raw: [SetDifference]
        if recorded.count * now.count > 4_000_000 {
            raw = greedyAlignment(recorded: recorded, now: now, same: same)
        } else {
            raw = lcsAlignment(recorded: recorded, now: now, same: same)
        }
        // Pair neighbours: a missing set and an extra one close in time are one changed value.
        var merged: [SetDifference] = []
        var index = 0
        while index < raw.count {
            if index + 1 < raw.count {
                switch (raw[index], raw[index + 1]) {
                case let (.missing(r), .extra(n)), let (.extra(n), .missing(r)):
                    if abs(r.time - n.time) <= 0.05 {
                        merged.append(.changed(recorded: r, now: n))
                        index += 2
                        continue
                    }
                default: break
                }
            }
            merged.append(raw[index])
            index += 1
        }
        return merged.sorted { $0.time < $1.time }
    }

    /// The longest common subsequence, by table (for up to a few million pairs).
    private static func lcsAlignment(recorded: [TimedSet], now: [TimedSet], same: (TimedSet, TimedSet) -> Bool)
        -> [SetDifference]
    {
        var raw: [SetDifference] = []
        let rows = recorded.count
        let columns = now.count
        var table = [Int32](repeating: 0, count: (rows + 1) * (columns + 1))
        let width = columns + 1
        if rows > 0, columns > 0 {
            for i in stride(from: rows - 1, through: 0, by: -1) {
                for j in stride(from: columns - 1, through: 0, by: -1) {
                    table[i * width + j] =
                        same(recorded[i], now[j])
                        ? table[(i + 1) * width + j + 1] + 1
                        : max(table[(i + 1) * width + j], table[i * width + j + 1])
                }
            }
        }
        var i = 0
        var j = 0
        while i < rows || j < columns {
            if i < rows, j < columns, same(recorded[i], now[j]) {
                i += 1; j += 1
            } else if j < columns, i == rows || table[i * width + j + 1] >= table[(i + 1) * width + j] {
                raw.append(.extra(now: now[j])); j += 1
            } else {
                raw.append(.missing(recorded: recorded[i])); i += 1
            }
        }
        return raw
    }

    /// For very long traces: walk both sequences, resynchronising within a few sets after a difference.
    private static func greedyAlignment(recorded: [TimedSet], now: [TimedSet], same: (TimedSet, TimedSet) -> Bool)
        -> [SetDifference]
    {
        var raw: [SetDifference] = []
        var i = 0
        var j = 0
        let window = 8
        while i < recorded.count || j < now.count {
            guard i < recorded.count else { raw.append(.extra(now: now[j])); j += 1; continue }
            guard j < now.count else { raw.append(.missing(recorded: recorded[i])); i += 1; continue }
            if same(recorded[i], now[j]) { i += 1; j += 1; continue }
            let inNow = (1...window).first { j + $0 < now.count && same(recorded[i], now[j + $0]) }
            let inRecorded = (1...window).first { i + $0 < recorded.count && same(recorded[i + $0], now[j]) }
            switch (inNow, inRecorded) {
            case let (skip?, other) where skip <= (other ?? .max):
                for k in 0..<skip { raw.append(.extra(now: now[j + k])) }
                j += skip
            case let (_, skip?):
                for k in 0..<skip { raw.append(.missing(recorded: recorded[i + k])) }
                i += skip
            default:
                raw.append(.missing(recorded: recorded[i]))
                raw.append(.extra(now: now[j]))
                i += 1; j += 1
            }
        }
        return raw
    }

    // MARK: - Output

    private enum Line {
        /// A button event or a Ring/Silent state: printed as `volumekit simulate` prints it.
        case record(Instant, ScenarioRecord.Kind)
        case difference(SetDifference)
        case diagnostic(DiagnosticDifference)
        var time: Instant {
            switch self {
            case .record(let time, _): time
            case .difference(let difference): difference.time
            case .diagnostic(let difference): difference.time
            }
        }
    }

    private var lines: [Line] {
        let all =
            events.map { Line.record($0.time, .button($0.button, $0.phase)) } + setDifferences.map(Line.difference)
            + muteChanges.map { Line.record($0.time, .mute($0.value)) } + diagnosticDifferences.map(Line.diagnostic)
        return all.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
    }

    private static func value(_ value: Float) -> String { TraceJSON.number(Double(value)).text }

    /// `"name":…` and the payload, as the trace's `diagnostic` record writes them.
    private static func fields(_ diagnostic: VolumeButtonsDiagnostic) -> String {
        TraceEvent.fields(of: diagnostic).map { "\(TraceJSON.string($0.key).text):\($0.value.text)" }
            .joined(separator: ", ")
    }

    /// The diagnostic for people: its name and payload (`railPressesUnseen rail 0`), clean of control characters.
    private static func shown(_ diagnostic: VolumeButtonsDiagnostic) -> String {
        let payload = TraceEvent.fields(of: diagnostic).dropFirst().map { "\($0.key) \($0.value.text)" }
        return EchoedText.clean(([diagnostic.traceName] + payload).joined(separator: " "), limit: 200)
    }

    /// One JSON object a line: each button event (and Ring/Silent state) exactly as `volumekit simulate --json`
    /// prints it, each set
    /// difference (`setChanged`, `setMissing`, `setExtra`), then a `summary`.
    public var jsonLines: [String] {
        var out: [String] = lines.map { line in
            switch line {
            case .record(let time, let kind):
                return ScenarioRecord(time: time, kind: kind).json
            case .difference(.changed(let recorded, let now)):
                return
                    "{\"t\":\(ScenarioRecord.format(recorded.time)), \"type\":\"setChanged\", \"recorded\":\(Self.value(recorded.value)), \"now\":\(Self.value(now.value)), \"nowT\":\(ScenarioRecord.format(now.time))}"
            case .difference(.missing(let recorded)):
                return
                    "{\"t\":\(ScenarioRecord.format(recorded.time)), \"type\":\"setMissing\", \"recorded\":\(Self.value(recorded.value))}"
            case .difference(.extra(let now)):
                return
                    "{\"t\":\(ScenarioRecord.format(now.time)), \"type\":\"setExtra\", \"now\":\(Self.value(now.value))}"
            case .diagnostic(.missing(let recorded)):
                return
                    "{\"t\":\(ScenarioRecord.format(recorded.time)), \"type\":\"diagnosticMissing\", \(Self.fields(recorded.value))}"
            case .diagnostic(.extra(let now)):
                return
                    "{\"t\":\(ScenarioRecord.format(now.time)), \"type\":\"diagnosticExtra\", \(Self.fields(now.value))}"
            }
        }
        let match = eventsMatchRecording.map { "\($0)" } ?? "null"
        out.append(
            "{\"type\":\"summary\", \"source\":\"\(source.rawValue)\", \"events\":\(events.count), \"recordedEvents\":\(recordedEvents.map { "\($0.count)" } ?? "null"), \"eventsMatchRecording\":\(match), \"sets\":\(sets.count), \"recordedSets\":\(recordedSets.count), \"setDifferences\":\(setDifferences.count), \"muteChanges\":\(muteChanges.count), \"undeliveredInputs\":\(undeliveredInputs), \"startInferred\":\(startInferred), \"diagnostics\":\(diagnosticsNow.count), \"recordedDiagnostics\":\(recordedDiagnostics.map { "\($0.count)" } ?? "null"), \"diagnosticDifferences\":\(diagnosticDifferences.count)}"
        )
        return out
    }

    /// Lines for people.
    public var textLines: [String] {
        var out: [String] = lines.map { line in
            switch line {
            case .record(let time, let kind):
                return ScenarioRecord(time: time, kind: kind).text
            case .difference(.changed(let recorded, let now)):
                return Self.pad(recorded.time)
                    + "! set differs: recorded \(Self.value(recorded.value)), now \(Self.value(now.value)) at \(ScenarioRecord.format(now.time))"
            case .difference(.missing(let recorded)):
                return Self.pad(recorded.time) + "! set \(Self.value(recorded.value)) recorded, not made now"
            case .difference(.extra(let now)):
                return Self.pad(now.time) + "! set \(Self.value(now.value)) made now, not in the recording"
            case .diagnostic(.missing(let recorded)):
                return Self.pad(recorded.time)
                    + "! diagnostic \(Self.shown(recorded.value)) recorded, not raised now"
            case .diagnostic(.extra(let now)):
                return Self.pad(now.time)
                    + "! diagnostic \(Self.shown(now.value)) raised now, not in the recording"
            }
        }
        out.append("")
        out.append(
            "\(events.count) button events now"
                + (recordedEvents.map {
                    ", \($0.count) recorded: " + (eventsMatchRecording == true ? "the same" : "DIFFERENT")
                } ?? " (the trace recorded none)"))
        out.append(
            "\(sets.count) sets now, \(recordedSets.count) recorded: "
                + (setDifferences.isEmpty ? "the same" : "\(setDifferences.count) differences (marked !)"))
        out.append(
            "\(diagnosticsNow.count) \(diagnosticsNow.count == 1 ? "diagnostic" : "diagnostics") now"
                + (recordedDiagnostics.map {
                    ", \($0.count) recorded: "
                        + (diagnosticDifferences.isEmpty
                            ? "the same" : "\(diagnosticDifferences.count) differences (marked !)")
                } ?? " (none recorded to compare with: a trace of format 1, or no button engine replayed)"))
        if undeliveredInputs > 0 {
            out.append(
                "\(undeliveredInputs) recorded inputs found no subscriber now (VolumeKit subscribes differently)")
        }
        if startInferred {
            out.append("the trace has no app start/stop records: the engine was started at its first record")
        }
        if source == .simulator {
            out.append("this trace is synthetic (recorded by the simulator), not evidence of how iOS behaves")
        }
        for diagnostic in diagnostics { out.append("diagnostic: \(diagnostic)") }
        return out
    }

    private static func pad(_ time: Instant) -> String {
        // Widened, never cut: at a real trace's uptime clock (48213.7723) a cut column lost the milliseconds.
        let text = ScenarioRecord.format(time)
        return text.padded(toLength: max(8, text.count)) + " "
    }
}
