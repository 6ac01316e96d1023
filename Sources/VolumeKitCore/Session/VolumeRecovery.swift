import Foundation

/// Gives back a user volume that a run of VolumeKit which crashed or was killed could not restore.
///
/// Call it at launch (`VolumeKit.recoverVolumeIfNeeded()` on iOS); ``VolumeButtonsEngine/start(onReady:)``
/// does the same by itself. It applies ``RecoveryRule`` to the record saved for the current route: the
/// volume is set back through a volume view, and the record is cleared.
public enum VolumeRecovery {
    /// How a recovery ended.
    public enum Outcome: Sendable, Equatable {
        /// No earlier run's record waited for the current route (or a running capture has judged it already).
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
    ///
    /// Runs meet button capture on the clients' ``VolumeKitClients/holdBoard``: a capture that holds the volume
    /// has judged the record itself (at its start, and on each route), so nothing runs then
    /// (``Outcome/nothingPending``); a second call while a run is under way waits for it, then looks again;
    /// and a capture started meanwhile becomes ready only once the run has ended (each would take the other's
    /// sets for presses).
    public static func recoverIfNeeded(
        _ clients: VolumeKitClients,
        onDiagnostic: @escaping @Sendable (VolumeButtonsDiagnostic) -> Void = { _ in },
        completion: @escaping @Sendable (Outcome) -> Void
    ) {
        let board = clients.holdBoard
        let waiting = board.afterRecovery {
            recoverIfNeeded(clients, onDiagnostic: onDiagnostic, completion: completion)
        }
        guard waiting == nil else { return }
        guard hasPendingRestore(clients), !board.isHeld else {
            completion(.nothingPending)
            return
        }
        board.recoveryBegan()
        // The run's last sets may still be landing when it has torn down (it takes a landing for its own as soon
        // as it reads the value): an engine waiting for the run reads the volume only once they are in.
        let finish: @Sendable (Outcome) -> Void = { outcome in
            _ = clients.clock.schedule(VolumeStepMachine.landingWindow) { board.recoveryEnded() }
            completion(outcome)
        }
        // A short capture run does exactly what is needed: it reads the live volume, applies the rule and
        // gives the user's volume back on stop, clearing the record.
        // No headroom: the recovery run holds the user's volume itself, never an anchor.
        let engine = VolumeButtonsEngine(
            configuration: .init(headroomSteps: 0), clients: clients, onEvent: { _ in }, onDiagnostic: onDiagnostic)
        engine.markAsRecoveryRun()
        do {
            try engine.start(onReady: {
                // A stop that could not make reads live (a call or an interruption took the session before the
                // view was ready) sets nothing and keeps the record: not handled, it waits for the next run.
                engine.stop(onStopped: {
                    let kept = hasPendingRestore(clients)
                    let reason = "The audio session could not be activated to give the volume back."
                    finish(kept ? .failed(.audioSession(reason)) : .handled)
                })
            })
        } catch let error as VolumeButtonsError {
            board.recoveryEnded()
            completion(.failed(error))
        } catch {
            board.recoveryEnded()
            completion(.failed(.audioSession(String(describing: error))))
        }
    }
}
