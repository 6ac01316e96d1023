#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A value guarded by a lock, so that a `Sendable` type can keep mutable state.
///
/// `Synchronization.Mutex` needs iOS 18; VolumeKit supports iOS 15, so this small wrapper (over a POSIX mutex)
/// stands in for it.
public final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = PosixLock()

    /// Wraps `value`.
    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value. Do not call back into the same lock from `body`.
    @discardableResult
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the current value.
    public var current: Value { withLock { $0 } }
}
