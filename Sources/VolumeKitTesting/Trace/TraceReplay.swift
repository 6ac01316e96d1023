import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
            return "the recorded device failed this call: \(EchoedText.clean(message, limit: 200))"
        case .unsupportedStrategy(let strategy):
            return "the trace's strategy \"\(EchoedText.clean(strategy))\" is not one of VolumeKit's engines ("
                + ButtonStrategy.allCases.map(\.rawValue).joined(separator: ", ")
                + "), so there is nothing to replay it with."
        }
    }
}

/// Replays a trace on Linux: the trace's recorded inputs go, in virtual time, to the same
/// ``/VolumeKitCore/VolumeButtonsEngine`` an iPhone runs, configured as the header says; the report lists the button
/// events it produces now and every place where its sets differ from the recorded ones.
///
/// The engine is started and stopped where the trace's `app` records say (`feature` `buttons`); a trace
/// without them starts it at its first `buttons` record (or its first record) and never stops it.
public enum TraceReplay {
    /// Replays `trace`, letting `settle` seconds of virtual time pass after its last record.
    ///
    /// The button engine replays the records of feature `buttons` (and untagged ones); when the trace has
    /// `app` records for feature `mute`, a ``/VolumeKitCore/MuteSwitchEngine`` replays that feature's records too, observing
    /// the volume if the recorded one subscribed to it.
    ///
    /// A trace whose times reach ``/VolumeKitCore/Trace/latestTime`` is refused with a
    /// ``/VolumeKitCore/TraceError``, as the decoder refuses such a file: its timers could not be told apart.
    public static func run(_ trace: Trace, settle: TimeInterval = 2) throws -> TraceReplayReport {
        try trace.checkTimes()
        return try replay(trace, settle: settle)
    }

    /// ``run(_:settle:)`` without the check of the trace's times: the tests replay times beyond the bound
    /// with it, to show that the replay still ends.
    static func replay(_ trace: Trace, settle: TimeInterval) throws -> TraceReplayReport {
        let header = trace.header
        let hasMute = trace.records.contains { if case .app("mute", _) = $0.event { true } else { false } }
        let strategy = ButtonStrategy(rawValue: header.strategy)
        guard strategy != nil || hasMute else { throw TraceReplayError.unsupportedStrategy(header.strategy) }
        let diagnostics = Locked([String]())
        var buttons = ButtonsReplay(events: [], sets: [], diagnostics: [], undelivered: 0, inferred: false)
        let hasButtons = !hasMute || trace.records.contains { $0.feature == "buttons" }
        if let strategy, hasButtons {
            buttons = replayButtons(trace, strategy: strategy, settle: settle, diagnostics: diagnostics)
        }
        let mute = hasMute ? replayMute(trace, settle: settle, diagnostics: diagnostics) : (changes: [], undelivered: 0)
        let feature = "buttons"
        let origin = header.clockOrigin
        let mine = trace.records.filter { $0.feature == nil || $0.feature == feature }
        let recordedEvents: [VolumeButtonEvent] = mine.compactMap {
            if case .buttonEvent(let button, let phase) = $0.event {
                return VolumeButtonEvent(button: button, phase: phase, time: origin + $0.time)
            }
            return nil
        }
        let recordedSets: [TraceReplayReport.TimedSet] = mine.compactMap {
            if case .setVolume(let value, _) = $0.event { return .init(time: origin + $0.time, value: value) }
            return nil
        }
        let hasRecordedEvents = mine.contains { if case .buttonEvent = $0.event { true } else { false } }
        // Format 1 had no diagnostic records: nothing to compare with. A recovery at launch (`recovery`) is not
        // replayed, so only the button engine's diagnostics are compared.
        let recordedDiagnostics: [TraceReplayReport.TimedDiagnostic]? =
            trace.formatVersion < 2 || strategy == nil
            ? nil
            : mine.compactMap {
                if case .diagnostic(let diagnostic) = $0.event {
                    return .init(time: origin + $0.time, value: diagnostic)
                }
                return nil
            }
        var report = TraceReplayReport(
            source: header.source,
            events: buttons.events,
            recordedEvents: hasRecordedEvents ? recordedEvents : nil,
            sets: buttons.sets,
            recordedSets: strategy == nil ? [] : recordedSets,
            undeliveredInputs: buttons.undelivered + mute.undelivered,
            startInferred: buttons.inferred,
            diagnostics: diagnostics.current
        )
        report.muteChanges = mute.changes
        report.compareDiagnostics(now: buttons.diagnostics, recorded: recordedDiagnostics)
        return report
    }

    private struct ButtonsReplay {
        var events: [VolumeButtonEvent]
        var sets: [TraceReplayReport.TimedSet]
        var diagnostics: [TraceReplayReport.TimedDiagnostic]
        var undelivered: Int
        var inferred: Bool
    }

    private static func replayButtons(
        _ trace: Trace, strategy: ButtonStrategy, settle: TimeInterval, diagnostics: Locked<[String]>
    ) -> ButtonsReplay {
        let header = trace.header
        var configuration = VolumeButtonsConfiguration(
            strategy: strategy, mode: header.buttonMode, session: header.session,
            headroomSteps: header.headroomSteps, allowsPrivateAPI: strategy == .systemNotification
        )
        // The recording's own headroom policy (a fixed headroom stays fixed); the default for older traces.
        if let policy = header.headroomPolicy { configuration.headroomPolicy = policy }
        let feature = "buttons"
        let world = TraceReplayWorld(trace: trace, feature: feature)
        let events = Locked([VolumeButtonEvent]())
        let raised = Locked([TraceReplayReport.TimedDiagnostic]())
        let engine = VolumeButtonsEngine(
            configuration: configuration,
            clients: world.makeClients(),
            onEvent: { event in events.withLock { $0.append(event) } },
            onDiagnostic: { [unowned world] diagnostic in
                diagnostics.withLock { $0.append(String(describing: diagnostic)) }
                raised.withLock { $0.append(.init(time: world.now, value: diagnostic)) }
            }
        )
        var calls = appCalls(trace, feature)
        let inferred = calls.isEmpty
        if inferred,
            let first = trace.records.firstIndex(where: { $0.feature == feature })
                ?? (trace.records.isEmpty ? nil : 0)
        {
            calls = [(trace.records[first].time, first, "start")]
        }
        for (time, order, call) in calls {
            world.at(world.origin + time, order: order) {
                if call == "start" {
                    do {
                        try engine.start()
                    } catch {
                        diagnostics.withLock {
                            $0.append("start failed: " + EchoedText.clean(String(describing: error), limit: 300))
                        }
                    }
                } else {
                    engine.stop()
                }
            }
        }
        world.run(until: world.endTime + settle)
        noteStall(of: world, in: diagnostics)
        return ButtonsReplay(
            events: events.current, sets: world.sets.map { .init(time: $0.time, value: $0.value) },
            diagnostics: raised.current, undelivered: world.undelivered, inferred: inferred)
    }

    private static func replayMute(_ trace: Trace, settle: TimeInterval, diagnostics: Locked<[String]>) -> (
        changes: [TraceReplayReport.MuteChange], undelivered: Int
    ) {
        let feature = "mute"
        let world = TraceReplayWorld(trace: trace, feature: feature)
        let mine = trace.records.filter { $0.feature == feature }
        let observesVolume = mine.contains { if case .subscribed(.outputVolume, _) = $0.event { true } else { false } }
        let file =
            mine.lazy.compactMap { record -> String? in
                if case .soundCreated(let file, _, _) = record.event { return file }
                return nil
            }.first ?? "mute-probe.caf"
        let changes = Locked([TraceReplayReport.MuteChange]())
        let engine = MuteSwitchEngine(
            observesVolume: observesVolume,
            soundURL: URL(fileURLWithPath: "/replay/" + file),
            clients: world.makeClients(),
            onChange: { [unowned world] change in
                changes.withLock { $0.append(.init(time: world.now, value: change.new)) }
            }
        )
        for (time, order, call) in appCalls(trace, feature) {
            world.at(world.origin + time, order: order) { if call == "start" { engine.start() } else { engine.stop() } }
        }
        world.run(until: world.endTime + settle)
        noteStall(of: world, in: diagnostics)
        return (changes.current, world.undelivered)
    }

    /// Says in the report's diagnostics where `world` stopped, if its timers kept firing at one instant.
    private static func noteStall(of world: TraceReplayWorld, in diagnostics: Locked<[String]>) {
        guard let stalled = world.stalledAt else { return }
        diagnostics.withLock {
            $0.append(
                "the replay stopped at t = \(stalled - world.origin) s: timers fired \(TraceReplayWorld.maximumTimersPerInstant) times in a row at that clock time without it moving on, so the rest of the trace was not replayed"
            )
        }
    }

    /// The `app` records of `feature`: time, place in the file, call.
    private static func appCalls(_ trace: Trace, _ feature: String) -> [(Double, Int, String)] {
        trace.records.enumerated().compactMap { order, record in
            if case .app(feature, let call) = record.event { return (record.time, order, call) }
            return nil
        }
    }
}
