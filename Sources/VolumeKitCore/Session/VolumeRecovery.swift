#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Gives back a user volume that a run of VolumeKit which crashed or was killed could not restore.
///
/// Call it at launch (`VolumeKit.recoverVolumeIfNeeded()` on iOS); ``VolumeButtonsEngine/start(onReady:)``
/// does the same by itself. It applies ``RecoveryRule`` to the record saved for the current route: the
/// volume is set back through a volume view, and the record is cleared.
///
/// Records for other routes wait. While any is stored after a recovery or a capture has run, the process keeps
/// one watch (``VolumeHoldBoard/armRecoveryWatch(_:)``): when such a route is current at a route change or an
/// activation, the app active and no button engine running, its record is judged at once, as at launch — before
/// the user presses there.
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
            watchWaitingRoutes(clients, onDiagnostic: onDiagnostic)
            completion(.nothingPending)
            return
        }
        board.recoveryBegan()
        let output = clients.audioSession.currentOutput()
        // Once only: the run's own end, or the watchdog below. The run's last sets may still be landing when it has
        // torn down (it takes a landing for its own as soon as it reads the value): an engine waiting for the run
        // reads the volume only once they are in.
        let finished = Locked(false)
        let finish: @Sendable (Outcome) -> Void = { outcome in
            guard
                !finished.withLock({ done in
                    defer { done = true }; return done
                })
            else { return }
            _ = clients.clock.schedule(VolumeStepMachine.landingWindow) { board.recoveryEnded() }
            completion(outcome)
        }
        // A short capture run does exactly what is needed: it reads the live volume, applies the rule and
        // gives the user's volume back on stop, clearing the record.
        let engine = VolumeButtonsEngine(
            configuration: runConfiguration, clients: clients, isRecoveryRun: true, onEvent: { _ in },
            onDiagnostic: onDiagnostic)
        do {
            try engine.start(onReady: {
                // Captures wait for the run: it must end even if its stop never calls back — torn down, setting
                // nothing more, so no set of its lands under a capture that stops waiting.
                _ = clients.clock.schedule(watchdog) {
                    finish(.failed(.recoveryIncomplete("the restore was not confirmed within \(Int(watchdog)) s")))
                    engine.abandon()
                }
                // A stop that could not make reads live (a call or an interruption took the session before the
                // view was ready) sets nothing and keeps the record: not handled, it waits for the next run. So
                // does a record whose route was left before the view was ready.
                // (The engine's teardown has armed the watch for records left waiting.)
                engine.stop(onStopped: {
                    let kept = PendingRestores.load(from: clients.keyValueStore)[output] != nil
                    // Left in the background before any set was seen to land (a volume view slow to take sets), the
                    // restore is not known to have landed: the record waits for the next run too.
                    let error: VolumeButtonsError =
                        clients.audioSession.currentOutput() != output
                        ? .recoveryIncomplete("the audio route changed before it could be")
                        : clients.lifecycle.state() == .background
                            ? .recoveryIncomplete("the app went to the background before the restore was seen to land")
                            : .audioSession("a call or another app holds it")
                    finish(kept ? .failed(error) : .handled)
                })
            })
        } catch {
            // Nothing started, so nothing to land: the run ends at once.
            board.recoveryEnded()
            watchWaitingRoutes(clients, onDiagnostic: onDiagnostic)
            completion(.failed(error as? VolumeButtonsError ?? .audioSession(String(describing: error))))
        }
    }

    /// The longest a recovery run may take from its view being ready until it has stopped (a restore's sets and
    /// their retries take well under a second): past it, the run is torn down, setting nothing more, and counts
    /// as ended for the captures waiting on it.
    static let watchdog: TimeInterval = 5

    /// A recovery run's capture: no headroom — it holds the user's volume itself, never an anchor.
    static let runConfiguration = VolumeButtonsConfiguration(headroomSteps: 0)

    /// While a record waits for a route that is not current (headphones unplugged since, the app alive), the
    /// user may go there and press away from, and back onto, the value VolumeKit left — which the next run would
    /// then take for VolumeKit's and undo (docs/decisions/hud-and-session.md). So the process's one watch
    /// judges such a record as soon as its route is current: at `routeChangeNotification` (either order with its
    /// KVO), or at `didBecomeActive` when the route changed while the app was not active (a call, Control Center,
    /// the background). It runs only when a launch recovery could: the app active, and no button engine running
    /// (a capture follows routes and judges their records itself; any engine would read the run's sets
    /// as presses). And only when VolumeKit holds the audio session already or the app left its category at the
    /// system default (``AudioSessionLease/ownsSessionIfJoined(on:)``): an app that set a category of its own
    /// (`.playback`, `.ambient`…) keeps its record for the next run rather than have VolumeKit leave
    /// its session active or deactivate it under the app's own audio. A capture
    /// started meanwhile waits for the run (``VolumeHoldBoard/afterRecovery(_:)``). A route change without a
    /// notification is judged at the next activation, or by the next run. The watch ends once no record is left.
    static func watchWaitingRoutes(
        _ clients: VolumeKitClients, onDiagnostic: @escaping @Sendable (VolumeButtonsDiagnostic) -> Void
    ) {
        guard !PendingRestores.load(from: clients.keyValueStore).isEmpty else { return }
        let board = clients.holdBoard
        board.armRecoveryWatch {
            clients.lifecycle.observe { event in
                switch event {
                case .routeChanged, .didBecomeActive: break
                default: return
                }
                let records = PendingRestores.load(from: clients.keyValueStore)
                guard !records.isEmpty else {
                    board.endRecoveryWatch()
                    return
                }
                guard clients.lifecycle.state() == .active, !board.hasButtonEngine, !board.isRecovering,
                    records[clients.audioSession.currentOutput()] != nil,
                    clients.sessionLease.ownsSessionIfJoined(on: clients.audioSession)
                else { return }
                recoverIfNeeded(clients, onDiagnostic: onDiagnostic, completion: { _ in })
            }
        }
    }
}
