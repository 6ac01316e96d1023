import Foundation

/// Runs CPU-heavy, synchronous test work (the envelope sweeps, the random sessions) on a thread of its own
/// instead of Swift's cooperative pool. On a 2-core machine the pool has 2 threads: a sweep that holds one for
/// many seconds starves the continuations of the real-time loopback tests running beside it (seen: MPD and
/// SSDP tests resumed 10–20 s late). The work returns its findings; the test asserts on them afterwards.
///
/// The thread also runs at the lowest priority: the sweeps' results do not depend on how fast they run, the
/// loopback tests' 1–5 s windows do (seen: with the sweeps at normal priority, SSDP and MPD loopback tests
/// missed their windows on 2 cores). On Linux `setpriority(PRIO_PROCESS, 0, …)` sets the calling thread's
/// nice value alone (threads are tasks there). Work that only waits — for a process, a socket — uses
/// ``onOwnThread(_:)`` instead: a child spawned from here would inherit the low priority.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread {
            #if os(Linux)
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
            #endif
            continuation.resume(returning: work())
        }
        thread.qualityOfService = .background
        thread.stackSize = 8 << 20
        thread.start()
    }
}
