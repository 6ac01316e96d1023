#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX mutex on the heap: the lock behind ``Locked``, and a recursive one for the simulated device's
/// timers, which may run code that takes it again.
///
/// `NSLock` and `NSRecursiveLock` would do the same, but on Linux they come with swift-corelibs-foundation,
/// which VolumeKit's Linux builds leave out (docs/decisions/cli.md, "On Linux VolumeKit builds on FoundationEssentials"); `Synchronization.Mutex`
/// needs iOS 18.
package final class PosixLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// A lock; `recursive` lets the thread that holds it take it again (each `lock` then needs its `unlock`).
    package init(recursive: Bool = false) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        if recursive { pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE)) }
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Waits for the lock and takes it.
    package func lock() { pthread_mutex_lock(mutex) }

    /// Gives the lock back.
    package func unlock() { pthread_mutex_unlock(mutex) }
}
