import Foundation
import VolumeKitCore
import VolumeKitTesting

/// The envelope limits a randomized session's final volumes may fall under (README, "Limits"), each a
/// predicate over what the session's ground truth saw, with the diagnostic VolumeKit raised for it.
extension RandomSession {
    /// The first envelope limit a failing session's final volumes fall under, by name (README, "Limits"), if any.
    var finalVolumeLimit: String? {
        let limits: [(String, () -> Bool)] = [
            ("route change without a notification", { self.isUnderMissingRouteNotification }),
            ("press at a rail unseen", { self.isUnderUnseenRailPress }),
            ("set landed across a route change", { self.isUnderUncertainRouteVolume }),
            ("press after a crash onto a value of an unconfirmed set", { self.isUnderUnconfirmedAnchor }),
            ("another source moved the volume a press's step", { self.isUnderOtherSourceStep }),
            ("another source's change overwritten by a set in flight", { self.isUnderOverwrittenOtherSource }),
            ("Control Center value within a read of VolumeKit's", { self.isUnderCoincidentControlCenter }),
            ("Control Center value VolumeKit last saw there (unobservable)", { self.isUnderUnchangedControlCenter }),
            ("another source's change hidden by a set in flight (unobservable)", { self.isUnderUnseenOtherSource }),
        ]
        if let one = limits.first(where: { $0.1() })?.0 { return one }
        // Each route under a limit of its own: two routes may each meet one (held-out session outputVolume 84553: a
        // set landed across a route change on the receiver, a press after an unnotified change on the speaker).
        let routes = violatingRoutes()
        guard routes.count > 1 else { return nil }
        defer { judgedRoutes = nil }
        var names = [String]()
        for route in routes {
            judgedRoutes = [route]
            guard let name = limits.first(where: { $0.1() })?.0 else { return nil }
            names.append("\(route): \(name)")
        }
        return names.joined(separator: "; ")
    }

    /// Envelope limit (README): with `outputVolume` a press toward 0 or 1 while the volume is already there
    /// changes nothing iOS reports — with any strategy when the app was not running then (a crash) or its launch
    /// recovery was, since the recovery reads the volume with `outputVolume`. True when every violating route's
    /// user volume is such a rail, the user pressed toward it there unseen (``unseenRailPress``; not running or
    /// recovering, for strategies other than `outputVolume` — held-out session systemNotification 93397: a press
    /// up at 1 while the recovery waited for its view), and VolumeKit reported moving the volume off that rail
    /// (``VolumeButtonsDiagnostic/railPressesUnseen(_:)``).
    var isUnderUnseenRailPress: Bool {
        let routes = violatingRoutes()
        let reported = diagnostics.current
        return !routes.isEmpty
            && routes.allSatisfy { route in
                guard strategy == .outputVolume || unseenRailPressAppDown.contains(route),
                    let rail = unseenRailPress[route], abs(truth[route]! - rail) < 1e-4
                else { return false }
                return reported.contains(.railPressesUnseen(rail))
            }
    }

    /// Envelope limit (README): `routeNotification=missing` — presses made on a route just after a change to it
    /// with no notification are taken for the route's own volume. True when every violating route is off the
    /// user's volume by no more than those presses, and VolumeKit raised `routeChangeNotNotified` for that change
    /// (``FinalVolumeLimit/missingRouteNotification(route:off:truth:diagnostics:behaviour:startRoute:run:userVolume:)``).
    var isUnderMissingRouteNotification: Bool {
        let routes = violatingRoutes()
        let diagnostics = observed.current.diagnostics
        let run = PressOracle.Run(observing: device, strategy: strategy, captureWindows: [])
        return !routes.isEmpty
            && routes.allSatisfy { route in
                FinalVolumeLimit.missingRouteNotification(
                    route: route, off: endVolume(on: route) - truth[route]!, truth: device.truth,
                    diagnostics: diagnostics, behaviour: device.behaviour, run: run,
                    userVolume: { time in self.userVolume(on: route, at: time) })
            }
    }

    /// The user's volume on `route` just before `time` (``truth`` as it was then).
    func userVolume(on route: AudioRoute, at time: Instant) -> Float {
        truthHistory[route]?.last { $0.at < time }?.value ?? initialTruth[route]!
    }

    /// Envelope limit (README, "another source moved the volume a press's step"): a Bluetooth headset's stored
    /// volume synchronised, or Headphone Safety lowering the volume, moved it where a press of the phone's buttons
    /// could have while VolumeKit held it, and VolumeKit took it for a press: the user's volume stays as it was
    /// before. True when every violating route ends off the user's volume by exactly what such changes (the last
    /// changes of the user's there other than presses, which move both alike) took from it. No app can observe it
    /// (no diagnostic).
    var isUnderOtherSourceStep: Bool {
        let routes = violatingRoutes()
        return !routes.isEmpty
            && routes.allSatisfy { route in
                otherSourceOffset[route].map { abs(endVolume(on: route) - truth[route]! - $0) < 1e-4 } ?? false
            }
    }

    /// Envelope limit (README, "another source's change overwritten by a set in flight"): VolumeKit handed iOS a
    /// set (a restore as Siri or a call interrupts the session) and, before it landed, a Bluetooth headset's stored
    /// volume was synchronised (iOS does so when a headset connects, `shared/facts/envelope.md`; the delay is the
    /// rule `bluetoothSyncDelay`, 0.05–2 s, unmeasured) — so the set landed over it. The session was inactive, so
    /// the change showed no KVO (seed 001), and once the session is live again the volume reads as the set's value:
    /// no app can see it (no diagnostic). True when every violating route ends off the user's volume by exactly that set's value
    /// minus the change's (within a read), the user's later presses having moved both alike.
    var isUnderOverwrittenOtherSource: Bool {
        let routes = violatingRoutes()
        return !routes.isEmpty
            && routes.allSatisfy { route in
                overwrittenOtherSource[route].map { moved in
                    abs(endVolume(on: route) - truth[route]! - moved) <= VolumeStepMachine.readTolerance
                } ?? false
            }
    }

    /// Envelope limit (README): a set of VolumeKit's made on one route lands on a new one before the change is
    /// seen, over an own volume equal to the old route's, so the change shows no KVO: the value read there may
    /// be the route's own or that landing. True when VolumeKit reported it
    /// (``VolumeButtonsDiagnostic/routeVolumeUncertain``) and every violating route is one where the oracle saw
    /// such a landing (``landedAcrossRouteChange``).
    var isUnderUncertainRouteVolume: Bool {
        let routes = violatingRoutes()
        return !routes.isEmpty && diagnostics.current.contains(.routeVolumeUncertain)
            && routes.allSatisfy { landedAcrossRouteChange.contains($0) }
    }

    /// Envelope limit (README): a Control Center value that VolumeKit's own doing would give within rounded reads
    /// (``VolumeStepMachine/readTolerance``, ``VolumeStepMachine/pressTolerance``, `shared/facts/envelope.md`) is
    /// taken for it — (a) a value within a read of a set of VolumeKit's still on its way (it landed after the
    /// change, less than `sliderLatency` later), taken for that set's landing; or (b) a value within two reads
    /// of whole steps from a value a set of VolumeKit's left on the route since the user's last change there, a
    /// few nudges off the user's (less than ``VolumeStepMachine/stepTolerance``), taken for presses from there, so
    /// the user's volume comes back off by that nudge. True when every violating route had such a change as the
    /// user's last there (later Control Center samples of the same drag, within 0.5 s, aside; no press after it)
    /// and is off the user's volume by no more than it explains: (a) a step's nudges (1e-3), (b) that nudge,
    /// within two reads.
    var isUnderCoincidentControlCenter: Bool {
        let routes = violatingRoutes()
        let step = VolumeStepMachine.step
        return !routes.isEmpty
            && routes.allSatisfy { route in
                let off = abs(endVolume(on: route) - truth[route]!)
                return controlCenterChanges.contains { change in
                    guard change.route == route,
                        !userPressTimes.contains(where: { $0.route == route && $0.at > change.at }),
                        !controlCenterChanges.contains(where: { $0.route == route && $0.at > change.at + 0.5 })
                    else { return false }
                    let inFlight = appSets.contains { set in
                        set.at > change.at && set.at - change.at < device.behaviour.sliderLatency
                            && abs(set.value - change.value) < VolumeStepMachine.readTolerance
                    }
                    if inFlight, off < 1e-3 { return true }
                    return change.left.contains { left in
                        let steps = ((change.value - left) / step).rounded()
                        let nudge = abs(left - change.before)
                        return nudge > VolumeStepMachine.readTolerance && nudge < VolumeStepMachine.stepTolerance
                            && steps != 0 && abs(change.value - left - steps * step) < VolumeStepMachine.pressTolerance
                            && abs(off - nudge) < VolumeStepMachine.pressTolerance
                    }
                }
            }
    }

    /// Envelope limit (README): a crashed run's last set was never seen to land, and the user's presses since
    /// ended on a value that set may or may not have left, which the recovery takes for VolumeKit's. Either the
    /// run set its anchor again after a nudge below it and iOS refused the set (a held down press, seed 000) — on
    /// a grid-snapping device the user's press from the nudge ended on the anchor — or it was moving its anchor
    /// and the presses from the new one ended on the old. True when VolumeKit reported it
    /// (``VolumeButtonsDiagnostic/recoveredAtUnconfirmedSet``) and every violating route's user volume was last
    /// set by a press onto a set iOS had refused there (``pressedOntoRefusedSet``), off by that press undone (one
    /// step, within ``VolumeStepMachine/stepTolerance``), or by presses VolumeKit could not see (the app not
    /// running, or its session not live until the app ended: ``unreadUntilCrash(_:)``) that ended on such a refused
    /// set after a crash that came after the set (``pressRun``: the anchor set at a start that a volume view not
    /// ready dropped — sweep session outputVolume 1337, three presses up from 0 onto the anchor 0.1875; held-out
    /// 91817, presses during an interruption that never ended, then a crash, ending on the held value of a start
    /// whose sets the view dropped), or on a value VolumeKit's sets — or a press it captured, its reset landing
    /// only after a crash — had left there before its last (``pressedOntoEarlierLeft``; held-out 90791: the user's
    /// press back onto the captured value); in both, the recovery's diagnostic after the presses, the route ending
    /// at the user's volume from before them.
    var isUnderUnconfirmedAnchor: Bool {
        let routes = violatingRoutes()
        return !routes.isEmpty && diagnostics.current.contains(.recoveredAtUnconfirmedSet)
            && routes.allSatisfy { route in
                let off = abs(endVolume(on: route) - truth[route]!)
                if pressedOntoRefusedSet.contains(route),
                    abs(off - VolumeStepMachine.step) < VolumeStepMachine.stepTolerance
                {
                    return true
                }
                // Presses after a crash that came after the set, and the recovery's diagnostic after them.
                if pressedOntoRefusedSet.contains(route), let run = pressRun[route], run.unseen,
                    unreadUntilCrash(run),
                    let set = refusedSetPressedOnto[route], appEnds.contains(where: { set < $0 && $0 < run.at }),
                    recoveryReportedUnconfirmedSet(after: run.at),
                    abs(endVolume(on: route) - userVolume(on: route, at: run.at)) <= VolumeStepMachine.readTolerance
                {
                    return true
                }
                guard let began = pressedOntoEarlierLeft[route], recoveryReportedUnconfirmedSet(after: began) else {
                    return false
                }
                return abs(endVolume(on: route) - userVolume(on: route, at: began)) <= VolumeStepMachine.readTolerance
            }
    }

    /// Whether a launch recovery said it gave the user's volume back from a value of an unconfirmed set
    /// (``VolumeButtonsDiagnostic/recoveredAtUnconfirmedSet``) after `time`.
    func recoveryReportedUnconfirmedSet(after time: Instant) -> Bool {
        recoveryDiagnostics.current.contains { $0.name == "recoveredAtUnconfirmedSet" && $0.time > time }
    }

    /// Whether the presses of `run` made while the app was running stayed unread until the app ended: a crash came
    /// after the last of them with the session not made live in between (VolumeKit would have read the volume they
    /// left). True for a run made with the app down throughout.
    func unreadUntilCrash(_ run: PressRun) -> Bool {
        guard let last = run.lastWhileRunning else { return true }
        guard let end = appEnds.first(where: { $0 > last }) else { return false }
        return !sessionLiveAgain.contains { $0 > last && $0 < end }
    }

    /// Unobservable limit (README): the user's last choice on a route was a Control Center value equal to the
    /// last VolumeKit could see there — a value it held (its anchor, say) — so, to VolumeKit, nothing changed, and
    /// it gives back the user's volume from before (no diagnostic is possible). Either the value the route already
    /// had, with KVO (`outputVolume`, passive: KVO reports only changes; the simulated private notification does
    /// fire, so `systemNotification` is not excused here), or the end of changes all made while the app's session
    /// was inactive (no KVO, no notification: a call), with any strategy. True when every violating route's user
    /// volume was last set so, with no press of the user's there after it, and the route ends at the user's volume
    /// from before that choice (within a read, ``VolumeStepMachine/readTolerance``).
    var isUnderUnchangedControlCenter: Bool {
        let routes = violatingRoutes()
        return !routes.isEmpty
            && routes.allSatisfy { route in
                let unchanged = strategy == .systemNotification ? nil : unchangedControlCenter[route]
                guard let choice = unchanged ?? unobservedReturn[route],
                    !userPressTimes.contains(where: { $0.route == route && $0.at > choice.at })
                else { return false }
                return abs(endVolume(on: route) - choice.before) <= VolumeStepMachine.readTolerance
            }
    }

    /// Unobservable limit (README, "another source's change hidden by a set in flight"): a Bluetooth headset's
    /// stored volume synchronised (iOS does so when a headset connects, `shared/facts/envelope.md`; the delay is
    /// the rule `bluetoothSyncDelay`) or Headphone Safety lowered the volume while a set of VolumeKit's was on its
    /// way, and the set landed less than `sliderLatency` after it — on that very value with KVO (one KVO shows both:
    /// the change reads as the set's landing; the system notification posts for each, so not with it), or over it
    /// while the app could not read it (not running; with KVO its session inactive, with the notification suspended:
    /// the volume then reads as the set's value). To VolumeKit nothing changed: it gives back the user's
    /// volume from before (no diagnostic is possible). True when every violating route's user volume was last set
    /// so, with no press of the user's or Control Center change there after it, and the route ends at the user's
    /// volume from before that change (within a read, ``VolumeStepMachine/readTolerance``).
    var isUnderUnseenOtherSource: Bool {
        let routes = violatingRoutes()
        return !routes.isEmpty
            && routes.allSatisfy { route in
                unseenOtherSource[route].map { change in
                    abs(endVolume(on: route) - change.before) <= VolumeStepMachine.readTolerance
                } ?? false
            }
    }
}
