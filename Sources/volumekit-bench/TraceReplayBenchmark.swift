import Foundation
import VolumeKitCore
import VolumeKitTesting

/// Replaying a long trace: a trace of only `app` start/stop records (the engine started and stopped for each
/// pair) at two sizes, so the figures show the replay stays linear in the trace's records.
enum TraceReplayBenchmark {
    static func run() {
        print("")
        print("trace replay: app start/stop records, 0.5 s apart, outputVolume capture")
        for count in [20_000, 200_000] {
            let trace = appTrace(count)
            let start = Measure.nanoseconds()
            let report = try? TraceReplay.run(trace)
            let seconds = Double(Measure.nanoseconds() - start) / 1e9
            blackHole(report)
            print(
                "  \(count) records: \(Measure.format(seconds, decimals: 2)) s, "
                    + "\(Measure.format(seconds / Double(count) * 1e6)) µs per record")
        }
    }

    private static func appTrace(_ count: Int) -> Trace {
        let header = TraceHeader(
            source: .simulator, deviceModel: "simulator", deviceKind: .iphone, osVersion: OSVersion(17, 4),
            volumeKitVersion: "bench")
        let records = (0..<count).map { index in
            TraceRecord(
                time: Double(index) * 0.5,
                event: .app(feature: "buttons", call: index.isMultiple(of: 2) ? "start" : "stop"),
                feature: "buttons")
        }
        return Trace(header: header, records: records)
    }
}
