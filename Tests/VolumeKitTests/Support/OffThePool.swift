import Foundation

/// Runs CPU-heavy, synchronous test work (the envelope sweeps, the random sessions) on a thread of its own
/// instead of Swift's cooperative pool. On a 2-core machine the pool has 2 threads: a sweep that holds one for
/// many seconds starves the continuations of the real-time loopback tests running beside it (seen: MPD and
/// SSDP tests resumed 10–20 s late). The work returns its findings; the test asserts on them afterwards.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: work()) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}
