import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The run's trace (``ScenarioRunner/traceOptions``): the recorder, kept within what a reader accepts, and the
/// clients each feature runs on.
extension ScenarioRunner {
    func makeRecorder(_ options: ScenarioTraceOptions, _ device: SimulatedDevice) -> TraceRecorder {
        traceSize.withLock { $0 = (0, 0, false) }
        let limits = options.limits
        let size = traceSize
        let onLine = options.onLine
        let note = options.note ?? "volumekit simulate; rules: " + behaviour.assignments.joined(separator: " ")
        // Lines past the reader's limits are dropped and the run stops at the next check with
        // ``ScenarioTraceLimitError``: the file keeps only what `volumekit trace` can read back.
        return TraceRecorder(
            header: .simulator(device, strategy: strategy, note: note), clock: device.clock,
            keepsRecords: options.keepsRecords,
            onLine: { line in
                let kept = size.withLock { size -> Bool in
                    guard !size.full else { return false }
                    // The header is not a record: the reader counts records only.
                    if size.bytes + line.utf8.count + 1 > limits.maxFileBytes || size.lines > limits.maxRecords {
                        size.full = true
                        return false
                    }
                    size.lines += 1
                    size.bytes += line.utf8.count + 1
                    return true
                }
                if kept { onLine?(line) }
            })
    }

    func checkTraceSize() throws {
        guard traceRecorder != nil, let limits = traceOptions?.limits else { return }
        let size = traceSize.current
        guard size.full else { return }
        throw ScenarioTraceLimitError(records: size.lines - 1, bytes: size.bytes, limits: limits)
    }

    func clients(of device: SimulatedDevice, feature: String) -> VolumeKitClients {
        guard let traceRecorder else { return device.clients }
        return device.clients.recording(to: traceRecorder, feature: feature)
    }

    func appCalled(_ call: String, on feature: String) {
        if call == "start" { runningFeatures.append(feature) }
        traceRecorder?.appCalled(call, on: feature)
    }
}
