#if os(iOS)
import Foundation

/// VolumeKit's app-wide entry points.
public enum VolumeKit {
    /// Gives back the user's volume if an earlier run of the app crashed or was killed while VolumeKit held
    /// it. Call it once at launch (e.g. in `application(_:didFinishLaunchingWithOptions:)` or your `App`'s
    /// `init`); `VolumeButtons.start()` also does it by itself.
    ///
    /// The rule (``/VolumeKitCore/RecoveryRule``): only on the route the saved volume belongs to, only if the device
    /// has not restarted since, and only if the volume is still where VolumeKit left it — a change the user made
    /// since always wins. If a call holds the audio session, the saved volume waits until the app is active
    /// again after it (or, if the app set an audio session category of its own or a `VolumeButtons` runs, for
    /// the next run). A volume saved for another route (headphones unplugged since) is given back when that
    /// route is current again while the app is active and no `VolumeButtons` runs — unless the app set an audio
    /// session category of its own; then it waits for the next run. A `VolumeButtons` started while a recovery
    /// runs becomes ready once it has ended.
    ///
    /// Always returns within `timeout`: the volume view needs a window of the app's foreground scene, which
    /// may not exist yet (a launch into the background, a permission alert). It then returns
    /// ``/VolumeKitCore/VolumeRecovery/Outcome/failed(_:)`` and the restore finishes by itself as soon as a window
    /// appears; the saved volume is kept until it does.
    /// - Parameters:
    ///   - clients: the system to run against (live by default).
    ///   - timeout: the longest wait, in seconds (default 3).
    @available(
        iOSApplicationExtension, unavailable, message: "needs the app (UIApplication): see the App extensions article"
    )
    @MainActor
    @discardableResult
    public static func recoverVolumeIfNeeded(clients: VolumeKitClients? = nil, timeout: TimeInterval = 3) async
        -> VolumeRecovery.Outcome
    {
        let clients = clients ?? .live()
        return await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            let timer = clients.clock.schedule(max(0, timeout)) {
                once.resume(
                    .failed(
                        .audioSession(
                            "The volume view was not ready within \(timeout) s (no window of the app's foreground scene yet); the user's volume is given back as soon as one appears."
                        )))
            }
            VolumeRecovery.recoverIfNeeded(clients) { outcome in
                timer.cancel()
                once.resume(outcome)
            }
        }
    }
}

/// Resumes a continuation exactly once, whichever of the recovery and its timeout comes first.
private final class ResumeOnce: Sendable {
    private let continuation: Locked<CheckedContinuation<VolumeRecovery.Outcome, Never>?>

    init(_ continuation: CheckedContinuation<VolumeRecovery.Outcome, Never>) {
        self.continuation = Locked(continuation)
    }

    func resume(_ outcome: VolumeRecovery.Outcome) {
        let pending = continuation.withLock { value in
            defer { value = nil }
            return value
        }
        pending?.resume(returning: outcome)
    }
}
#endif
