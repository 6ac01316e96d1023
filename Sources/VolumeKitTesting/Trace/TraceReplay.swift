import Foundation
import VolumeKitCore

/// Why a trace cannot be replayed.
public enum TraceReplayError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A call the trace recorded as failing fails again in the replay, with the recorded message.
    case recordedFailure(String)
    /// The header's strategy is not one of VolumeKit's engines (e.g. `baseline`, `none`).
    case unsupportedStrategy(String)

    /// A sentence.
    public var description: String {
        switch self {
        case .recordedFailure(let message):
            return "the recorded device failed this call: \(message)"
        case .unsupportedStrategy(let strategy):
            return "the trace's strategy \"\(strategy)\" is not one of VolumeKit's engines ("
                + ButtonStrategy.allCases.map(\.rawValue).joined(separator: ", ") + "), so there is nothing to replay it with."
        }
    }
}

/// Replays a trace on Linux: the trace's recorded inputs go, in virtual time, to the same
/// ``VolumeButtonsEngine`` an iPhone runs, configured as the header says; the report lists the button
/// events it produces now and every place where its sets differ from the recorded ones.
///
/// The engine is started and stopped where the trace's `app` records say (`feature` `buttons`); a trace
/// without them starts it at its first `buttons` record (or its first record) and never stops it.
public enum TraceReplay {
    /// Replays `trace`, letting `settle` seconds of virtual time pass after its last record.
    public static func run(_ trace: Trace, settle: TimeInterval = 2) throws -> TraceReplayReport {
        let header = trace.header
        guard let strategy = ButtonStrategy(rawValue: header.strategy) else { throw TraceReplayError.unsupportedStrategy(header.strategy) }
        let configuration = VolumeButtonsConfiguration(
            strategy: strategy, mode: header.buttonMode, session: header.session,
            headroomSteps: header.headroomSteps, allowsPrivateAPI: strategy == .systemNotification
        )
        let feature = "buttons"
        let world = TraceReplayWorld(trace: trace, feature: feature)
        let clients = world.clients
        let events = Locked([VolumeButtonEvent]())
        let diagnostics = Locked([String]())
        let engine = VolumeButtonsEngine(
            configuration: configuration,
            clients: clients,
            onEvent: { event in events.withLock { $0.append(event) } },
            onDiagnostic: { diagnostic in diagnostics.withLock { $0.append(String(describing: diagnostic)) } }
        )
        let mine = trace.records.filter { $0.feature == nil || $0.feature == feature }
        var calls: [(Double, String)] = mine.compactMap {
            if case .app(feature, let call) = $0.event { return ($0.time, call) }
            return nil
        }
        let inferred = calls.isEmpty
        if inferred, let first = trace.records.first(where: { $0.feature == feature }) ?? trace.records.first {
            calls = [(first.time, "start")]
        }
        for (time, call) in calls {
            world.at(world.origin + time) {
                if call == "start" {
                    do {
                        try engine.start()
                    } catch {
                        diagnostics.withLock { $0.append("start failed: \(error)") }
                    }
                } else {
                    engine.stop()
                }
            }
        }
        world.run(until: world.endTime + settle)

        let recordedEvents: [VolumeButtonEvent] = mine.compactMap {
            if case .buttonEvent(let button, let phase) = $0.event {
                return VolumeButtonEvent(button: button, phase: phase, time: world.origin + $0.time)
            }
            return nil
        }
        let recordedSets: [TraceReplayReport.TimedSet] = mine.compactMap {
            if case .setVolume(let value, _) = $0.event { return .init(time: world.origin + $0.time, value: value) }
            return nil
        }
        let hasRecordedEvents = mine.contains { if case .buttonEvent = $0.event { true } else { false } }
        return TraceReplayReport(
            source: header.source,
            events: events.current,
            recordedEvents: hasRecordedEvents ? recordedEvents : nil,
            sets: world.sets.map { .init(time: $0.time, value: $0.value) },
            recordedSets: recordedSets,
            undeliveredInputs: world.undelivered,
            startInferred: inferred,
            diagnostics: diagnostics.current
        )
    }
}
