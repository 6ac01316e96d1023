import Foundation
import Testing
import VolumeKitCore

@testable import VolumeKitTesting

/// A trace at the size limits (hundreds of thousands of records) must replay in time linear in its records:
/// a trace of many `app` start/stop records once took hours (each scheduled call scanned every pending one).
/// The work is counted, not timed: ``TraceReplayWorld/schedulingSteps`` counts the comparisons scheduling takes.
// Serialized: each test holds a thread for a second or more, and the pool has as many threads as cores.
@Suite("Trace replay scales linearly with the trace's records", .serialized)
struct TraceReplayScalingTests {
    private static let header = """
        {"format":"volumekit-trace","version":1,"source":"simulator","device":{"model":"simulator","kind":"iphone",\
        "os":"17.4"},"volumeKit":"source","session":{"category":"playback","options":["mixWithOthers"],\
        "allowsSystemSoundsDuringRecording":false,"mode":"default"},"strategy":"outputVolume",\
        "buttonMode":"capture","headroomSteps":2,"clockOrigin":0}
        """

    /// `count` alternating `app` start/stop records of feature `buttons`, `spacing` seconds apart.
    private func appTrace(_ count: Int, spacing: Double = 0.5) throws -> Trace {
        let header = try Trace(jsonLines: Data(Self.header.utf8)).header
        let records = (0..<count).map { index in
            TraceRecord(
                time: Double(index) * spacing,
                event: .app(feature: "buttons", call: index.isMultiple(of: 2) ? "start" : "stop"),
                feature: "buttons")
        }
        return Trace(header: header, records: records)
    }

    @Test("200,000 app calls scheduled in file order take one comparison each and all run, in file order")
    func fileOrderIsLinear() throws {
        let count = 200_000
        let trace = try appTrace(count)
        let world = TraceReplayWorld(trace: trace, feature: "buttons")
        let ran = Locked([Int]())
        for (order, record) in trace.records.enumerated() {
            world.at(world.origin + record.time, order: order) { ran.withLock { $0.append(order) } }
        }
        world.run(until: world.endTime + 1)
        #expect(world.schedulingSteps <= count, "\(world.schedulingSteps) steps for \(count) calls")
        let orders = ran.current
        #expect(orders.count == count)
        #expect(orders == Array(0..<count))
    }

    @Test("calls scheduled out of order still run by time, equal times in file order, in n·log n comparisons")
    func outOfOrderIsOrdered() throws {
        let count = 4_096
        // Four records per instant: equal times, told apart by their place in the file.
        let trace = try appTrace(count, spacing: 0)
        let header = trace.header
        let records = trace.records.enumerated().map { index, record in
            TraceRecord(time: Double(index / 4), event: record.event, feature: record.feature)
        }
        let world = TraceReplayWorld(trace: Trace(header: header, records: records), feature: "buttons")
        let ran = Locked([Int]())
        // Scheduled back to front, and within each instant in a shuffled order.
        for base in stride(from: count - 4, through: 0, by: -4) {
            for order in [base + 2, base, base + 3, base + 1] {
                world.at(world.origin + records[order].time, order: order) { ran.withLock { $0.append(order) } }
            }
        }
        world.run(until: world.endTime + 1)
        #expect(ran.current == Array(0..<count))
        let bound = count * (Int(log2(Double(count))) + 2)
        #expect(world.schedulingSteps <= bound, "\(world.schedulingSteps) steps, bound \(bound)")
    }

    @Test("a whole replay of 20,000 app start/stop records finishes with nothing left over")
    func wholeReplay() throws {
        // 20,000, not 200,000: the engine's own start and stop cost most of a debug build's time (9 s there
        // for 200,000), and the scheduling work is checked above at full size.
        let count = 20_000
        let started = Date()
        let report = try TraceReplay.run(try appTrace(count))
        let seconds = Date().timeIntervalSince(started)
        #expect(!report.startInferred)
        #expect(report.events.isEmpty)
        #expect(report.undeliveredInputs == 0)
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics.prefix(3))")
        // A very generous wall-time bound (the counted work above is the real check): 0.27 s in a release
        // build on the project's 2-core box (0.49 s with the quadratic scheduling, 34 s at 200,000 records).
        #expect(seconds < 60, "\(seconds) s")
    }
}
