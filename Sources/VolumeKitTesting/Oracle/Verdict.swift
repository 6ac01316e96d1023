import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The oracle's judgment of one run: the violations left once each proven limit has excused what it explains,
/// and the excused failures with the limit and the diagnostic that prove each.
public struct Verdict: Sendable, Equatable {
    /// A failure a limit explains, with its proof.
    public struct Excused: Sendable, Equatable {
        /// The failure.
        public var violation: PressOracle.Violation
        /// The limit's name.
        public var limit: String
        /// The diagnostic that proves it (`nil` for a limit no app can observe).
        public var diagnostic: PressOracle.Diagnostic?
        /// Counted apart (an ambiguous step).
        public var countedApart: Bool
    }

    /// The failures no limit explains.
    public var violations: [PressOracle.Violation]
    /// The failures a limit explains.
    public var excused: [Excused]

    /// Whether the run is right: no violation.
    public var ok: Bool { violations.isEmpty }

    /// Each limit used, with how many failures it excused and the diagnostic that proved them.
    public var limitCounts: [(name: String, count: Int, diagnostic: String?)] {
        var counts = [(name: String, count: Int, diagnostic: String?)]()
        for item in excused {
            if let index = counts.firstIndex(where: { $0.name == item.limit }) {
                counts[index].count += 1
            } else {
                counts.append((item.limit, 1, item.diagnostic?.name))
            }
        }
        return counts
    }

    /// One JSON object: `{"type":"verdict", "ok":…, "violations":[{"kind":…, "t":…, "detail":…}], "limits":[{"name":…,
    /// "count":…, "diagnostic":…}]}`.
    public var json: String {
        let items = violations.map { violation in
            let t = violation.time.isFinite ? ScenarioRecord.format(violation.time) : "null"
            return
                "{\"kind\":\"\(violation.kind.rawValue)\", \"t\":\(t), \"detail\":\"\(ScenarioRecord.escape(violation.detail))\"}"
        }
        let limits = limitCounts.map { limit in
            let diagnostic = limit.diagnostic.map { "\"\($0)\"" } ?? "null"
            return "{\"name\":\"\(limit.name)\", \"count\":\(limit.count), \"diagnostic\":\(diagnostic)}"
        }
        return
            "{\"type\":\"verdict\", \"ok\":\(ok), \"violations\":[\(items.joined(separator: ", "))], \"limits\":[\(limits.joined(separator: ", "))]}"
    }

    /// Lines for people: "verdict  every press checked: right" or one line per violation.
    public var text: String {
        var lines = [String]()
        if ok {
            lines.append("verdict  every press checked against what you did: right")
        } else {
            lines.append("verdict  every press checked against what you did: \(violations.count) wrong")
            for violation in violations {
                let t = violation.time.isFinite ? ScenarioRecord.format(violation.time) : "end"
                lines.append("  wrong at \(t): \(violation.detail)")
            }
        }
        for limit in limitCounts {
            let proof = limit.diagnostic.map { "proved by VolumeKit's \($0) diagnostic" } ?? "no app can observe it"
            lines.append("  excused \(limit.count) by the limit '\(limit.name)' (\(proof))")
        }
        return lines.joined(separator: "\n")
    }
}

extension PressOracle {
    /// Sorts failures into violations and excused ones: a failure is excused by the first limit whose predicate
    /// holds at it and whose diagnostic (if it has one) fired within its window.
    func excuse(
        _ failures: [Violation], presses: [Press], truth: [TruthRecord], diagnostics: [Diagnostic], run: Run
    ) -> Verdict {
        var violations = [Violation]()
        var excused = [Verdict.Excused]()
        for failure in failures {
            let press = failure.press.flatMap { index in presses.first { $0.index == index } }
            let previous = press.flatMap { current in
                presses.last { $0.button == current.button && $0.down < current.down }
            }
            func routeAt(_ time: Instant) -> AudioRoute {
                for record in truth.reversed() where record.time <= time + 1e-6 {
                    if case .route(let route) = record.action { return route }
                }
                return .speaker
            }
            func lastRouteChange(before time: Instant) -> Instant? {
                truth.last {
                    if case .route = $0.action { return $0.time <= time + 1e-6 }
                    return false
                }?.time
            }
            let route = lastRouteChange(before: failure.time)
            let evidence = OracleLimit.Evidence(
                violation: failure, press: press.map { ($0.button, $0.down, $0.context) },
                pressRequired: press?.required ?? false, pressReadAsRepeat: press?.readAsRepeat ?? false,
                gapFromPreviousPress: press.flatMap { current in
                    previous.map { current.down - lastStep(of: $0, before: current.down, run.behaviour) }
                },
                sinceRouteChange: route.map { failure.time - $0 },
                pressSinceRouteChange: press.flatMap { current in
                    lastRouteChange(before: current.down).map { current.down - $0 }
                },
                pressRoute: press.map { current in routeAt(current.down) },
                sinceOtherSourceStep: run.otherSourceSteps.last { $0 <= failure.time + 1e-6 }.map { failure.time - $0 },
                chainSinceOtherSourceStep: press.flatMap { current in
                    current.readAsRepeat ? current.chainStart : nil
                }.flatMap { start in run.otherSourceSteps.last { $0 <= start + 1e-6 }.map { start - $0 } },
                pressRepeatedAtRail: press.map { current in
                    let steps = run.buttonSteps.filter {
                        $0.time >= current.down - 1e-6 && $0.time <= min(current.up, failure.time) + 1e-6
                    }
                    return zip(steps, steps.dropFirst()).contains { previous, step in
                        (step.value <= 0 || step.value >= 1) && abs(step.value - previous.value) < 1e-6
                    }
                } ?? false,
                otherSourceOnSetInFlight: run.otherSourceSteps.last { $0 <= failure.time + 1e-6 }.map { step in
                    guard let value = run.volumes.changes.last(where: { abs($0.time - step) < 1e-9 })?.value else {
                        return false
                    }
                    let window = run.behaviour.sliderLatency + run.behaviour.kvoLatency + 1e-6
                    return (run.landedSets + run.droppedSets).contains {
                        $0.time >= step - 1e-9 && $0.time - step <= window && abs($0.value - value) <= 1e-4
                    }
                } ?? false,
                pressLandedOnSetInFlight: press.map { current in
                    // A hold's later splits follow from its first (its repeats then come faster than taps can be
                    // told from): the cause is judged at the first.
                    let firstSplit = failures.first { $0.kind == .holdSplit && $0.press == failure.press }?.time
                    let at = failure.kind == .holdSplit ? min(firstSplit ?? failure.time, failure.time) : failure.time
                    return landedOnSetInFlight(current, before: at, run)
                } ?? false,
                strategy: run.strategy, behaviour: run.behaviour)
            var proof: Verdict.Excused?
            for limit in limits where limit.explains(evidence) {
                guard let name = limit.diagnostic else {
                    proof = Verdict.Excused(
                        violation: failure, limit: limit.name, diagnostic: nil, countedApart: limit.countedApart)
                    break
                }
                // A tap read as a repeat is one link of the chain the `pressed` before it began: the diagnostic
                // may come from any step of that chain.
                var at = press.map { current in min(current.chainStart ?? current.down, current.down) } ?? failure.time
                if limit.sinceRouteChange, let press, let change = lastRouteChange(before: press.down) {
                    at = min(at, change)
                }
                if let diagnostic = diagnostics.first(where: {
                    $0.name == name && $0.time >= at - limit.window.before
                        && $0.time <= failure.time + limit.window.after
                }) {
                    proof = Verdict.Excused(
                        violation: failure, limit: limit.name, diagnostic: diagnostic, countedApart: limit.countedApart)
                    break
                }
            }
            if let proof { excused.append(proof) } else { violations.append(failure) }
        }
        return Verdict(violations: violations, excused: excused)
    }
}

extension PressOracle {
    /// Whether a set of the app's reached the system on exactly the value one of `press`'s steps left, issued
    /// before the step's KVO reached the app and reaching the system after the step — landing (a change KVO reports once, the step's or the set's) or dropped
    /// there (refused during a down press, or equal to the slider's cache), its echo expected all the same: one
    /// KVO of that value, either the step's or the set's. The step is the press's first, or for a hold one of the
    /// last two before `failure` (the one so swallowed, then the one that read as a new press).
    func landedOnSetInFlight(_ press: Press, before failure: Instant, _ run: Run) -> Bool {
        // Issued before the step's KVO reached the app (`kvoLatency` after it), a set reaches the system at most
        // `sliderLatency` later: the app then sees one KVO of that value with a set of it on its way.
        let window = run.behaviour.sliderLatency + run.behaviour.kvoLatency + 1e-6
        func swallowed(_ time: Instant, _ value: Float) -> Bool {
            (run.landedSets + run.droppedSets).contains {
                $0.time >= time && $0.time - time <= window && abs($0.value - value) <= 1e-4
            }
        }
        if let value = press.context.landedOn, swallowed(press.down, value) { return true }
        let repeats = run.buttonSteps.filter {
            $0.time > press.down + 1e-6 && $0.time <= min(press.up, failure) + 1e-6
        }
        return repeats.suffix(2).contains { swallowed($0.time, $0.value) }
    }

    /// When `press` last stepped the volume before `time`: its going down, then its auto-repeats while held
    /// (``DeviceBehaviour/firstRepeatDelay``, then every ``DeviceBehaviour/repeatInterval``).
    func lastStep(of press: Press, before time: Instant, _ behaviour: DeviceBehaviour) -> Instant {
        let end = min(press.up, time)
        var step = press.down
        var next = press.down + behaviour.firstRepeatDelay
        while next < end {
            step = next
            next += max(behaviour.repeatInterval, 0.01)
        }
        return step
    }
}

extension VolumeButtonsDiagnostic {
    /// The case's name, as traces, `simulate --json` and the oracle's limits name it (e.g. `headroomExhausted`):
    /// the trace format's own name for it, so the two cannot drift apart.
    public var name: String { traceName }
}
