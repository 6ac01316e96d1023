import BenchSupport
import Foundation

/// Timing and allocation counting shared by the benchmarks.
enum Measure {
    /// Nanoseconds on the monotonic clock.
    static func nanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Heap allocations so far (Linux), or `nil` where they are not counted.
    static func allocations() -> UInt64? {
        bench_allocation_counting() == 1 ? bench_allocation_count() : nil
    }

    /// Runs `body` `iterations` times after a warm-up; returns nanoseconds and allocations per iteration.
    static func perIteration(_ iterations: Int, warmUp: Int = 10_000, _ body: (Int) -> Void) -> (
        ns: Double, allocations: Double?
    ) {
        for index in 0..<warmUp { body(index) }
        let allocationsBefore = allocations()
        let start = nanoseconds()
        for index in 0..<iterations { body(warmUp + index) }
        let elapsed = nanoseconds() - start
        let allocationsAfter = allocations()
        let perAllocation = zip(allocationsBefore, allocationsAfter).map { Double($1 - $0) / Double(iterations) }
        return (Double(elapsed) / Double(iterations), perAllocation)
    }

    /// "12.3".
    static func format(_ value: Double, decimals: Int = 1) -> String { String(format: "%.\(decimals)f", value) }
}

private func zip(_ a: UInt64?, _ b: UInt64?) -> (UInt64, UInt64)? {
    guard let a, let b else { return nil }
    return (a, b)
}

/// Keeps a value alive so the optimiser cannot drop the work that produced it.
@inline(never)
func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }
