import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Envelope limits on a route's volume at the end of a run, as proofs over the ground truth (``TruthRecord``)
/// and the diagnostics VolumeKit raised, each with its time: a final volume off the user's is excused only
/// when the predicate holds for that route and the limit's diagnostic names the event concerned.
public enum FinalVolumeLimit {
    /// How long after a route change a press may still be taken for the new route's own volume: the press's
    /// change is the first one VolumeKit sees there. The route is read with every input and every 50 ms
    /// (`VolumeButtonsEngine.routePollInterval`); a read that may be a set of VolumeKit's landing waits up to 50 ms
    /// more for the route's KVO (`routeKVODelay`), and the press's own KVO takes up to 30 ms (`kvoLatency`): 0.15 s.
    /// (It was 1.5 s while the route was read only with inputs.)
    public static let pressesAfterRouteChange: TimeInterval = 0.15

    /// `routeNotification=missing` (RBVolumeButtons #18, openradar 35432156; `shared/facts/envelope.md`): a route
    /// change is seen only with a later volume change, so a press made on the new route just after it may be
    /// taken for the route's own volume: VolumeKit reads the value the press left as the route's, and the user's
    /// volume there moves by the difference. True when `route` is off the user's volume by `off` and, after a
    /// route change to it for which VolumeKit raised `routeChangeNotNotified` (between the change and 1 s after
    /// ``pressesAfterRouteChange``), the user made a press on it within ``pressesAfterRouteChange`` that
    /// explains `off`: the value its first step left minus the user's volume then, within two rounded reads (the
    /// value taken for the route's own); or, counting every such press toward `off`, no more than a step each
    /// (presses snapped to the 1/16 grid move less). A press later than that counts as the first when, given `run`,
    /// the route change left the volume where it was and nothing changed it since (no KVO marked the change, so
    /// nothing tells when it happened: the event oracle's clause), with `routeChangeNotNotified` raised within 1 s
    /// after the press and none between the change and the press (one then would say VolumeKit had read the change
    /// before the press: held-out session outputVolume 74339, the first press 1.56 s after such a change).
    ///
    /// - Parameters:
    ///   - route: the route whose final volume is off.
    ///   - off: its final volume minus the user's.
    ///   - truth: what the user did (``SimulatedDevice/truth``).
    ///   - diagnostics: VolumeKit's diagnostics with when each came.
    ///   - behaviour: the device's behaviour.
    ///   - startRoute: the route the run began on.
    ///   - userVolume: the user's own volume on `route` just before a time.
    ///   - run: the run's device record, to tell a later press that made the first change since the route change.
    public static func missingRouteNotification(
        route: AudioRoute, off: Float, truth: [TruthRecord], diagnostics: [PressOracle.Diagnostic],
        behaviour: DeviceBehaviour, startRoute: AudioRoute = .speaker, run: PressOracle.Run? = nil,
        userVolume: (Instant) -> Float
    ) -> Bool {
        guard behaviour.routeNotification == .missing, abs(off) > VolumeStepMachine.readTolerance else { return false }
        let window = pressesAfterRouteChange
        let diagnosed = { (change: Instant) in
            diagnostics.contains {
                $0.name == "routeChangeNotNotified" && $0.time >= change - 1e-6 && $0.time <= change + window + 1
            }
        }
        // A press long after the change that made the first change since: the diagnostic comes with it, and none
        // before it since the change.
        let diagnosedWith = { (press: Instant, change: Instant) in
            let raised = diagnostics.filter { $0.name == "routeChangeNotNotified" }
            return raised.contains { $0.time >= press - 1e-6 && $0.time <= press + 1 }
                && !raised.contains { $0.time >= change - 1e-6 && $0.time < press - 1e-6 }
        }
        var current = startRoute
        var previous = startRoute
        var changedAt = -Double.infinity
        var counts = false
        var toward = 0
        for record in truth {
            switch record.action {
            case .route(let new):
                previous = current
                current = new
                changedAt = record.time
                counts = new == route && diagnosed(record.time)
            case .press(let button, _, let context) where current == route:
                let soon = counts && record.time - changedAt <= window
                let first =
                    !soon && changedAt.isFinite && diagnosedWith(record.time, changedAt)
                    && run?.quietSinceRouteChange(at: changedAt, from: previous, to: route, until: record.time) == true
                guard soon || first else { break }
                if let left = context.landedOn,
                    abs(left - userVolume(record.time) - off) <= 2 * VolumeStepMachine.readTolerance
                {
                    return true
                }
                if soon, button.sign == (off > 0 ? 1 : -1) { toward += 1 }
            default: break
            }
        }
        return toward > 0 && abs(off) <= Float(toward) * VolumeStepMachine.step + VolumeStepMachine.stepTolerance
    }
}
