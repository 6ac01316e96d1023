import Foundation

/// Gives back a user volume that a run of VolumeKit which crashed or was killed could not restore.
///
/// Call it at launch (`VolumeKit.recoverVolumeIfNeeded()` on iOS); ``VolumeButtonsEngine/start(onReady:)``
/// does the same by itself. It applies ``RecoveryRule`` to the record saved for the current route: the
/// volume is set back through a volume view, and the record is cleared.
public enum VolumeRecovery {
    /// How a recovery ended.
    public enum Outcome: Sendable, Equatable {
        /// No record waited for the current route.
        case nothingPending
        /// The record was handled: the user's volume is back, or the rule discarded it.
        case handled
        /// The audio session could not be activated (e.g. during a call); the record is kept for next time.
        case failed(VolumeButtonsError)
    }

    /// Whether a record waits for the current route.
    public static func hasPendingRestore(_ clients: VolumeKitClients) -> Bool {
        PendingRestores.load(from: clients.keyValueStore)[clients.audioSession.currentOutput()] != nil
    }

    /// Restores the current route's saved user volume if the rule allows, then calls `completion`.
    /// `onDiagnostic` receives what the recovery run noticed (e.g. ``VolumeButtonsDiagnostic/railPressesUnseen(_:)``).
    public static func recoverIfNeeded(
        _ clients: VolumeKitClients,
        onDiagnostic: @escaping @Sendable (VolumeButtonsDiagnostic) -> Void = { _ in },
        completion: @escaping @Sendable (Outcome) -> Void
    ) {
        guard hasPendingRestore(clients) else {
            completion(.nothingPending)
            return
        }
        // A short capture run does exactly what is needed: it reads the live volume, applies the rule and
        // gives the user's volume back on stop, clearing the record.
        // No headroom: the recovery run holds the user's volume itself, never an anchor.
        let engine = VolumeButtonsEngine(
            configuration: .init(headroomSteps: 0), clients: clients, onEvent: { _ in }, onDiagnostic: onDiagnostic)
        do {
            try engine.start(onReady: {
                // A stop that could not make reads live (a call or an interruption took the session before the
                // view was ready) sets nothing and keeps the record: not handled, it waits for the next run.
                engine.stop(onStopped: {
                    let kept = hasPendingRestore(clients)
                    let reason = "The audio session could not be activated to give the volume back."
                    completion(kept ? .failed(.audioSession(reason)) : .handled)
                })
            })
        } catch let error as VolumeButtonsError {
            completion(.failed(error))
        } catch {
            completion(.failed(.audioSession(String(describing: error))))
        }
    }
}
