import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The values `search` yields, as a stream, with the search on a thread of its own named `name`: the stream
/// ends when `search` returns, or throws what it throws. `search` looks at its `stopped` flag to end early:
/// it turns true once the consumer stops listening (or cancels).
func searchStream<Value: Sendable>(
    named name: String,
    _ search: @escaping @Sendable (_ stopped: Locked<Bool>, _ yield: (Value) -> Void) throws -> Void
) -> AsyncThrowingStream<Value, any Error> {
    let (stream, continuation) = AsyncThrowingStream<Value, any Error>.makeStream()
    let stopped = Locked(false)
    continuation.onTermination = { _ in stopped.withLock { $0 = true } }
    DetachedThread.run(named: name) {
        do {
            try search(stopped) { continuation.yield($0) }
            continuation.finish()
        } catch {
            continuation.finish(throwing: error)
        }
    }
    return stream
}
