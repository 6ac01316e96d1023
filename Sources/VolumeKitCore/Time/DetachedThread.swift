import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The threads VolumeKit's blocking loops run on: socket searches, listeners and watchers, and the command
/// line's reader of piped input.
package enum DetachedThread {
    /// Starts `body` on a new, detached POSIX thread, named `name` on Apple platforms (for a debugger; Glibc's
    /// Swift module does not offer `pthread_setname_np`).
    /// VolumeKit's blocking loops each run on one, off the Swift concurrency pool and Dispatch's queues (a
    /// blocked pool thread would stall every task). A POSIX thread rather than
    /// Foundation's `Thread`, which on Linux comes with swift-corelibs-foundation
    /// (docs/decisions/cli.md, "On Linux VolumeKit builds on FoundationEssentials").
    package static func run(named name: String, _ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread = pthread_t()
        #endif
        guard pthread_create(&thread, nil, DetachedThread.main, context) == 0 else {
            // No thread could be made (the process is at its thread limit): the work runs on one of
            // Dispatch's rather than never, and never on the caller's, which a listener's loop would hold.
            Unmanaged<Start>.fromOpaque(context).release()
            DispatchQueue.global().async(execute: body)
            return
        }
        #if canImport(Darwin)
        if let thread { pthread_detach(thread) }
        #else
        pthread_detach(thread)
        #endif
    }

    private final class Start {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    #if canImport(Darwin)
    private static let main: @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? = { context in
        let start = Unmanaged<Start>.fromOpaque(context).takeRetainedValue()
        pthread_setname_np(String(decoding: start.name.utf8.prefix(15), as: UTF8.self))
        start.body()
        return nil
    }
    #else
    private static let main: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { context in
        guard let context else { return nil }
        let start = Unmanaged<Start>.fromOpaque(context).takeRetainedValue()
        start.body()
        return nil
    }
    #endif
}
