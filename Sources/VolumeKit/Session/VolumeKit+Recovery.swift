#if os(iOS)
import Foundation

/// VolumeKit's app-wide entry points.
public enum VolumeKit {
    /// Gives back the user's volume if an earlier run of the app crashed or was killed while VolumeKit held
    /// it. Call it once at launch (e.g. in `application(_:didFinishLaunchingWithOptions:)` or your `App`'s
    /// `init`); `VolumeButtons.start()` also does it by itself.
    ///
    /// The rule (``RecoveryRule``): only on the route the saved volume belongs to, only if the device has not
    /// restarted since, and only if the volume is still where VolumeKit left it — a change the user made
    /// since always wins. If a call holds the audio session, the saved volume waits for the next launch.
    @MainActor
    @discardableResult
    public static func recoverVolumeIfNeeded() async -> VolumeRecovery.Outcome {
        await withCheckedContinuation { continuation in
            VolumeRecovery.recoverIfNeeded(.live()) { outcome in continuation.resume(returning: outcome) }
        }
    }
}
#endif
