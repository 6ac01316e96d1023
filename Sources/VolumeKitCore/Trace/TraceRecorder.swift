#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Collects a trace as it happens: thread-safe, so the clients' callbacks may record from any thread.
///
/// Wrap the clients with ``VolumeKitClients/recording(to:feature:)`` and everything that crosses them is
/// recorded; add what only the app or a person knows with ``mark(_:answer:)``, ``gesture(_:)``,
/// ``appCalled(_:on:)`` and ``buttonEvent(_:)``. Times come from the clock given at creation, relative to
/// its reading then, and never decrease in the file.
///
/// Audio ports are named by ``portNaming``: by default each port UID (a Bluetooth headset's is its
/// address) is written as a stable alias, `port-1`, `port-2`…, wherever the trace would carry it.
public final class TraceRecorder: Sendable {
    private struct State {
        var records: [TraceRecord] = []
        var lastTime = 0.0
        var nextObserver = 0
        var nextView = 0
        var nextPlay = 0
        /// Installed volume views not removed yet, oldest first.
        var views: [Int] = []
        /// The alias of each port UID seen so far.
        var portAliases: [String: String] = [:]
        /// The last record written.
        var last: TraceRecord?
        /// A repeat of the last record left out (``recordUnlessRepeat(_:feature:)``), and when.
        var leftOut: TraceRecord?
    }

    /// The header, with the clock origin filled in.
    public let header: TraceHeader
    /// How the trace names audio ports.
    public let portNaming: TracePortNaming
    private let now: @Sendable () -> Instant
    private let onLine: (@Sendable (String) -> Void)?
    private let keepsRecords: Bool
    private let state = Locked(State())

    /// Creates a recorder. `clock` timestamps every record (on a device the uptime clock; in the simulator
    /// the virtual one); its reading now becomes the header's ``TraceHeader/clockOrigin``. `onLine`, if
    /// given, receives each line of JSON Lines as it is recorded, the header first (to stream to a file).
    public convenience init(header: TraceHeader, clock: ClockClient, onLine: (@Sendable (String) -> Void)? = nil) {
        self.init(header: header, clock: clock, keepsRecords: true, onLine: onLine)
    }

    /// Creates a recorder that keeps its records in memory (``records``, ``trace``) only if `keepsRecords`:
    /// a long recording streamed to a file through `onLine` then takes no memory per record.
    public convenience init(
        header: TraceHeader, clock: ClockClient, keepsRecords: Bool, onLine: (@Sendable (String) -> Void)? = nil
    ) {
        self.init(header: header, clock: clock, keepsRecords: keepsRecords, portNaming: .aliases, onLine: onLine)
    }

    /// Creates a recorder that names audio ports by `portNaming`: ``TracePortNaming/aliases`` (what the
    /// other initializers do) or ``TracePortNaming/uids`` (the system's UIDs, for a trace that stays on
    /// the machine that made it).
    public init(
        header: TraceHeader, clock: ClockClient, keepsRecords: Bool, portNaming: TracePortNaming,
        onLine: (@Sendable (String) -> Void)? = nil
    ) {
        var header = header
        header.clockOrigin = clock.now()
        self.header = header
        self.portNaming = portNaming
        now = clock.now
        self.onLine = onLine
        self.keepsRecords = keepsRecords
        onLine?(header.json.text)
    }

    /// Records `event` now. `feature` tags the record with the VolumeKit feature whose clients it crossed.
    public func record(_ event: TraceEvent, feature: String? = nil) {
        write(event, feature: feature, unlessRepeat: false)
    }

    /// Records `event` unless it repeats the last record exactly (the route read by a button engine's poll every
    /// 50 ms, with nothing between: a replay answers a read with the last one recorded before it, so nothing is
    /// lost). A repeat left out at the instant of the next record is written before it after all: a replay answers
    /// the reads of one instant with that instant's records in turn.
    func recordUnlessRepeat(_ event: TraceEvent, feature: String?) {
        write(event, feature: feature, unlessRepeat: true)
    }

    private func write(_ event: TraceEvent, feature: String?, unlessRepeat: Bool) {
        // Read the clock outside the lock: a simulated clock takes the device's lock.
        let time = now() - header.clockOrigin
        let written = state.withLock { state -> [TraceRecord] in
            let record = TraceRecord(time: max(time, state.lastTime), event: event, feature: feature)
            if unlessRepeat, let last = state.last, last.event == event, last.feature == feature {
                state.leftOut = record
                return []
            }
            var written = [TraceRecord]()
            if let leftOut = state.leftOut, leftOut.time == record.time { written.append(leftOut) }
            state.leftOut = nil
            written.append(record)
            state.lastTime = record.time
            state.last = record
            if keepsRecords { state.records += written }
            return written
        }
        for record in written { onLine?(record.json.text) }
    }

    /// A free-form note; `answer` is a person's yes/no where only a person can see ("did the system HUD
    /// appear?").
    public func mark(_ text: String, answer: Bool? = nil) { record(.mark(text, answer: answer)) }

    /// What the person or the script does, as it starts.
    public func gesture(_ gesture: TraceGesture) { record(.gesture(gesture)) }

    /// The app calls `start` or `stop` on a feature (`buttons`, `mute`).
    public func appCalled(_ call: String, on feature: String) {
        record(.app(feature: feature, call: call), feature: feature)
    }

    /// A button event VolumeKit delivered to the app.
    public func buttonEvent(_ event: VolumeButtonEvent) {
        record(.buttonEvent(event.button, event.phase), feature: "buttons")
    }

    /// Everything recorded so far (nothing when created with `keepsRecords: false`).
    public var records: [TraceRecord] { state.withLock { $0.records } }

    /// The trace so far.
    public var trace: Trace { Trace(header: header, records: records) }

    // MARK: - Numbering, for the recording clients

    func newObserver() -> Int {
        state.withLock {
            $0.nextObserver += 1; return $0.nextObserver
        }
    }

    func newPlay() -> Int {
        state.withLock {
            $0.nextPlay += 1; return $0.nextPlay
        }
    }

    func installView() -> Int {
        state.withLock {
            $0.nextView += 1
            $0.views.append($0.nextView)
            return $0.nextView
        }
    }

    func removeView(_ id: Int) { state.withLock { $0.views.removeAll { $0 == id } } }

    /// The view a set goes through: the newest installed one.
    var currentView: Int? { state.withLock { $0.views.last } }

    // MARK: - Port names, for the recording clients

    /// How the trace names the port `uid`: its alias (made on first sight), or the UID itself.
    func portName(_ uid: String) -> String {
        guard portNaming == .aliases else { return uid }
        return state.withLock { state in
            if let alias = state.portAliases[uid] { return alias }
            let alias = "port-\(state.portAliases.count + 1)"
            state.portAliases[uid] = alias
            return alias
        }
    }

    /// Stored `data` as the trace carries it: pending-restore JSON (``PendingRestores``) with each port's
    /// UID — the `bluetooth:<UID>` and `external:<UID>` keys and the `portUID` values — replaced by its port
    /// name, re-encoded with sorted keys as ``PendingRestores/save(to:)`` writes it. Other data is unchanged.
    func storedData(_ data: Data?) -> Data? {
        guard portNaming == .aliases, let data else { return data }
        return PendingRestores.renamingPorts(in: data, portName) ?? data
    }
}

/// How a trace names audio ports (``AudioPort/uid`` in a ``TracePort``, and the headsets in stored pending restores).
public enum TracePortNaming: Sendable, Equatable {
    /// Each UID replaced by an alias, `port-1`, `port-2`… in the order first seen; the same UID always
    /// gets the same alias within a trace, so records per port still match (and replay) while the trace
    /// carries no Bluetooth address (`docs/trace.md`, privacy).
    case aliases
    /// The UIDs as the system gives them.
    case uids
}
