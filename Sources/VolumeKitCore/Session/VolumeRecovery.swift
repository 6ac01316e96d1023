import Foundation

/// Gives back a user volume that a run of VolumeKit which crashed or was killed could not restore.
///
/// Call it at launch (`VolumeKit.recoverVolumeIfNeeded()` on iOS); ``VolumeButtonsEngine/start(onReady:)``
/// does the same by itself. It applies ``RecoveryRule`` to the record saved for the current route: the
/// volume is set back through a volume view, and the record is cleared. Records for other routes wait: while
/// any is stored, it watches route changes and activations and runs again when one of their routes is current
/// (the app active, no VolumeKit feature holding the audio session).
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
            awaitOtherRoutes(clients, onDiagnostic: onDiagnostic)
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
                    awaitOtherRoutes(clients, onDiagnostic: onDiagnostic)
                    let reason = "The audio session could not be activated to give the volume back."
                    completion(kept ? .failed(.audioSession(reason)) : .handled)
                })
            })
        } catch let error as VolumeButtonsError {
            awaitOtherRoutes(clients, onDiagnostic: onDiagnostic)
            completion(.failed(error))
        } catch {
            awaitOtherRoutes(clients, onDiagnostic: onDiagnostic)
            completion(.failed(.audioSession(String(describing: error))))
        }
    }

    /// While a record waits for another route, watches the route: the moment that route becomes current
    /// (`routeChangeNotification`), its record is judged as at launch — before the user presses there, so
    /// presses that happen to end back on the held value are never taken for VolumeKit's (issue 11, ov-2360,
    /// ov-3908). Only while the app is active (as a launch recovery), and not while a VolumeKit feature holds
    /// the audio session (a running engine follows routes and judges records itself); ends once no record is
    /// left. A route change while the app is not active (a call, Control Center, the background) is judged
    /// when the app becomes active again (`didBecomeActiveNotification`), before the user presses there
    /// (ov-12041). A route change without its notification is judged at the next activation, if the app has
    /// one; else the record waits for the next run, as before (`shared/facts/envelope.md`: the notification
    /// may be missing).
    static func awaitOtherRoutes(
        _ clients: VolumeKitClients, onDiagnostic: @escaping @Sendable (VolumeButtonsDiagnostic) -> Void
    ) {
        let records = PendingRestores.load(from: clients.keyValueStore)
        guard !records.byRoute.isEmpty || !records.otherHeadsets.isEmpty else { return }
        let observation = Locked<CancellationHandle?>(nil)
        let handle = clients.lifecycle.observe { event in
            switch event {
            case .routeChanged, .didBecomeActive: break
            default: return
            }
            guard clients.lifecycle.state() == .active, clients.sessionLease.users == 0 else { return }
            let records = PendingRestores.load(from: clients.keyValueStore)
            let none = records.byRoute.isEmpty && records.otherHeadsets.isEmpty
            guard none || records[clients.audioSession.currentOutput()] != nil else { return }
            observation.withLock { $0 }?.cancel()
            // The recovery watches again when it ends, if other records are still waiting.
            if !none { recoverIfNeeded(clients, onDiagnostic: onDiagnostic, completion: { _ in }) }
        }
        observation.withLock { $0 = handle }
    }
}
