import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Estimates, from a trace alone, the device-behaviour rules a trace can show — named as `volumekit profiles`
/// names them (``DeviceBehaviour/rules``), plus `roundTrip` for set → KVO as the live calibration names it
/// (``/VolumeKitCore/CalibrationRule``): one set of names for the simulator, the calibration and the fit — and
/// judges each against the envelope's range: inside, outside, or undetermined where the data supports neither.
///
/// Only what crossed the clients is used: the KVO (or private-notification) volume stream, the app's sets and
/// reads, view installs and readiness, lifecycle, route and interruption events and their details, capture
/// events, and the `gesture` records that say where a hold began (their exact time is not trusted). The live
/// calibration the trace carries (``TraceFitReport/live``) is shown beside the fit, never used by it.
public enum TraceFit {
    /// A rule the fitter estimates.
    public struct Rule: Sendable, Equatable {
        /// Its name, as estimates and JSON carry it: `volumekit profiles`' name, or `roundTrip`.
        public var name: String
        /// The envelope's range (`nil`: the envelope gives none).
        public var range: EnvelopeRange?
        /// What it is, in a phrase.
        public var meaning: String
        /// The fewest observations a verdict rests on: 2 for a time (one delivery's jitter must not decide), 1
        /// for a variant (one observation shows it).
        public var minimumSamples: Int

        init(_ name: String, _ range: EnvelopeRange?, _ meaning: String, minimumSamples: Int? = nil) {
            self.name = name
            self.range = range
            self.meaning = meaning
            if let minimumSamples {
                self.minimumSamples = minimumSamples
            } else if case .variants? = range?.kind {
                self.minimumSamples = 1
            } else {
                self.minimumSamples = 2
            }
        }

        /// A rule of ``DeviceBehaviour/rules``, with its range, variants and sources.
        init(profile name: String, _ meaning: String, minimumSamples: Int? = nil) {
            let rule = DeviceBehaviour.rule(named: name)!
            let kind: EnvelopeRange.Kind
            switch rule.values {
            case .seconds(let range), .level(let range): kind = .range(range)
            case .variants(let names): kind = .variants(names)
            }
            self.init(
                name, EnvelopeRange(kind, source: rule.sources.joined(separator: "; ")), meaning,
                minimumSamples: minimumSamples)
        }
    }

    /// Every rule the fitter estimates, in the order of its report.
    public static let rules: [Rule] = [
        Rule(
            profile: "stepQuantization",
            "a press moves exactly one 1/16 step from any value, snaps to the 1/16 grid, or reads rounded"),
        Rule(
            "roundTrip",
            EnvelopeRange(
                .range(CalibrationRule.roundTrip.range),
                source: "envelope.md: slider 5–150 ms plus KVO 0–30 ms (CalibrationRule.roundTrip)"),
            "from the app's set to the KVO of the value set: sliderLatency + kvoLatency"),
        Rule(profile: "sliderLatency", "from the app's set to the change: roundTrip less kvoLatency"),
        Rule(
            profile: "kvoLatency",
            "from a change to its KVO: bounded by a route change notified before its KVO, less the gap after it"),
        // One view a run, its readiness one event: a single measurement decides (the range spans 50–1000 ms).
        Rule(profile: "volumeViewReadyDelay", "from installing the volume view to its readiness", minimumSamples: 1),
        Rule(profile: "firstRepeatDelay", "from a held press to its first auto-repeat"),
        Rule(profile: "repeatInterval", "between later auto-repeats"),
        Rule(profile: "tapLength", "how long a single press is held (capture events only)"),
        Rule(
            profile: "routeNotification",
            "whether a route change's notification comes before the new route's KVO, after it, or never"),
        Rule(profile: "routeNotificationGap", "between a route change's notification and its KVO (less the KVO delay)"),
        Rule(
            profile: "downPressRefusal",
            "which of the app's sets iOS drops: during a down press, equal to the cache, or none"),
        Rule(profile: "volumeCacheDelay", "how long the slider's cached volume lags a change (cachedEqualSetDrop)"),
        Rule(
            "soundSkippedDelay",
            EnvelopeRange(
                .interval(0.0002, 0.05),
                source: "mute-switch.md §4: < 1 ms (sindresorhus/Actions) to 50 ms (iPhone 8, Actions #101)"),
            "a skipped system sound's completion delay (switch on silent)"),
        Rule(
            "soundPlayedDelay", nil,
            "a played system sound's completion delay: its length plus 1–200 ms (mute-switch.md §4; the length is not in the trace)"
        ),
        Rule(
            profile: "lateInterruptionBegan",
            "whether the interruption \"began\" for the time suspended arrives on a return to the foreground before didBecomeActive or after it (trace format 3)"
        ),
    ]

    /// The rule named `name`.
    public static func rule(named name: String) -> Rule? { rules.first { $0.name == name } }

    /// The envelope range of `rule`.
    public static func range(of rule: String) -> EnvelopeRange? { self.rule(named: rule)?.range }

    /// Every rule's range, keyed by rule name: the default `ranges` of ``fit(_:ranges:)``.
    public static var envelope: [String: EnvelopeRange] {
        Dictionary(uniqueKeysWithValues: rules.compactMap { rule in rule.range.map { (rule.name, $0) } })
    }

    /// The envelope's range of a time rule of ``rules``.
    static func seconds(_ name: String) -> ClosedRange<Double> {
        guard case .interval(let lower, let upper)? = range(of: name)?.kind else { return 0...0 }
        return lower...upper
    }

    /// Fits every rule to `trace` and judges each estimate against `ranges` (rule name → range; a rule
    /// without one is undetermined). The last calibration the trace stored comes beside it (``TraceFitReport/live``).
    public static func fit(_ trace: Trace, ranges: [String: EnvelopeRange] = envelope) -> TraceFitReport {
        let observations = TraceObservations(trace)
        var estimates: [RuleEstimate] = []
        let sets = observations.matchSets()
        estimates.append(sets.latency)
        let moves = observations.buttonMoves(claimed: sets.claimed)
        estimates.append(observations.quantization(moves))
        let route = observations.routeOrder(claimed: sets.claimed)
        estimates.append(route.order)
        let latencies = latencies(route, roundTrip: sets.latency)
        estimates += [latencies.gap, latencies.kvo, latencies.slider]
        estimates.append(observations.viewReadyDelay(sets))
        estimates += observations.holdRhythm(moves)
        estimates += refusal(observations, sets, moves: moves, kvo: latencies.kvoBounds)
        estimates.append(observations.tapLength())
        estimates += observations.soundCompletions()
        estimates.append(lateInterruptionBegan(trace))
        let order = rules.map(\.name)
        estimates.sort { (order.firstIndex(of: $0.rule) ?? 99) < (order.firstIndex(of: $1.rule) ?? 99) }
        let counts = sets.dropCount
        return TraceFitReport(
            source: trace.header.source, estimates: estimates, ranges: ranges,
            droppedSets: sets.unjudged == nil ? counts : nil, live: LiveCalibration(trace))
    }
}
