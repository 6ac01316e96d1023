import Foundation
import RemoteVolume

/// Lets the controller's unstructured tasks run until `condition` holds (bounded; no sleeping).
func settle(_ condition: @Sendable () async -> Bool) async -> Bool {
    for _ in 0..<10_000 {
        if await condition() { return true }
        await Task.yield()
    }
    return await condition()
}

/// Lets every pending task run for a while (bounded; for checking that something does *not* happen).
func drain() async {
    for _ in 0..<2_000 { await Task.yield() }
}

/// The first element of `stream` that satisfies `predicate`, or `nil` after `seconds`.
func first<T: Sendable>(
    of stream: AsyncStream<T>, within seconds: Double, where predicate: @escaping @Sendable (T) -> Bool
) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask {
            for await element in stream where predicate(element) { return element }
            return nil
        }
        group.addTask {
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
            return nil
        }
        let result = await group.next() ?? nil
        group.cancelAll()
        return result
    }
}

/// Waits (at most `seconds`) until the controller has nothing pending.
func waitUntilIdle(_ controller: RemoteVolumeController, seconds: Double = 5) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if await !controller.isBusy { return true }
        try? await Task.sleep(nanoseconds: 20_000_000)
    }
    return false
}
