import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a run hands its records on: held back ``ScenarioRunner/deliveryLookback`` seconds so that they go out in
/// time order, delivered a minute of virtual time at a time, and stopped at ``ScenarioRunner/recordLimit``.
extension ScenarioRunner {
    /// Delivers what is final once a minute of virtual time has passed or many records wait.
    func flushIfDue(_ device: SimulatedDevice) throws {
        try checkTraceSize()
        if device.now - lastFlush >= 60 || records.withLock({ $0.count }) >= 4_096 { try flush(device, all: false) }
    }

    /// Delivers, in order, the records older than ``deliveryLookback`` (all of them at the end).
    func flush(_ device: SimulatedDevice, all: Bool) throws {
        for record in records.withLock({ taken in
            defer { taken.removeAll() }; return taken
        }) {
            pending.append((record.time ?? 0, 0, recordOrder, record))
            recordOrder += 1
        }
        let log = device.log
        for index in logIndex..<log.count {
            if case .systemHUD(let time, _) = log[index] {
                pending.append((time, 1, index, ScenarioRecord(time: time, kind: .systemHUD)))
            }
        }
        logIndex = log.count
        // What the user did, each press once it is released (its duration known), or all of it at the end.
        let truth = device.truth
        while truthIndex < truth.count {
            if !all, case .press(_, nil, _) = truth[truthIndex].action { break }
            let record = truth[truthIndex]
            pending.append((record.time, -1, truthIndex, ScenarioRecord(time: record.time, kind: .truth(record))))
            truthIndex += 1
        }
        pending.sort { ($0.time, $0.group, $0.order) < ($1.time, $1.group, $1.order) }
        let watermark = device.now - Self.deliveryLookback
        let ready = all ? pending.count : (pending.firstIndex { $0.time >= watermark } ?? pending.count)
        for item in pending[..<ready] {
            // The ground truth is bounded by the script's own limits (``Scenario/maximumPresses``), not counted here.
            if case .truth = item.record.kind {
                onRecord?(item.record)
                continue
            }
            guard delivered < recordLimit else { throw ScenarioLimitError(records: recordLimit) }
            onRecord?(item.record)
            delivered += 1
        }
        pending.removeFirst(ready)
        lastFlush = device.now
    }

    /// Lets `seconds` of virtual time pass, a minute at most at a time, delivering records on the way.
    func pass(_ seconds: TimeInterval, on device: SimulatedDevice) throws {
        let end = device.now + seconds
        while device.now < end {
            device.advance(to: min(end, device.now + 60))
            try flushIfDue(device)
        }
    }
}
