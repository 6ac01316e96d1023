#if os(iOS)
import Foundation

/// Runs `body` on the main actor: at once when already on the main thread, else on the next main-queue turn.
/// The live clients deliver everything on the main thread, so VolumeKit's engines run there.
func onMain(_ body: @escaping @MainActor @Sendable () -> Void) {
    if Thread.isMainThread {
        MainActor.assumeIsolated(body)
    } else {
        DispatchQueue.main.async(execute: body)
    }
}
#endif
