import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The latencies a trace shows, attributed across the route gap: `routeNotificationGap`, `kvoLatency` and
/// `sliderLatency`, as `volumekit profiles` names them.
///
/// A route change notified *after* its KVO (`afterKVO`) shows the gap alone: the KVO comes the KVO delay after the
/// change, the notification the gap after that. One notified *before* (`beforeKVO`) shows only their sum: the
/// notification comes at the change, the KVO the KVO delay plus the gap later — a trace cannot split it. Then each
/// is bounded by the sum less the other's envelope range (gap 0–20 ms, KVO 0–30 ms), and the slider by the round
/// trip less the KVO delay's bounds: estimates marked ``RuleEstimate/isBound``, judged inside only when every value
/// the bounds allow is. A route change never notified (`missing`) has nothing to time the KVO against.
extension TraceFit {
    /// The three latencies, and the bounds of the KVO delay (`nil` where the trace gives none).
    struct Latencies {
        var gap: RuleEstimate
        var kvo: RuleEstimate
        var slider: RuleEstimate
        var kvoBounds: ClosedRange<Double>?
    }

    static func latencies(_ route: TraceObservations.RouteFit, roundTrip: RuleEstimate) -> Latencies {
        let gapRange = seconds("routeNotificationGap")
        let kvoRange = seconds("kvoLatency")
        switch route.order.value {
        case .variant("afterKVO")? where !route.afterKVO.isEmpty:
            let why =
                "the route changes were notified after their KVO, which shows only the gap after it; nothing else in a trace separates the KVO delay from the slider's"
            return Latencies(
                gap: .seconds(
                    "routeNotificationGap", route.afterKVO,
                    how: "each route change's KVO to its notification (notified after the KVO)"),
                kvo: .notObserved("kvoLatency", why),
                slider: .notObserved("sliderLatency", why), kvoBounds: nil)
        case .variant("beforeKVO")? where !route.beforeKVO.isEmpty:
            let sum = RuleEstimate.seconds("sum", route.beforeKVO, how: "")
            let total = sum.value?.number ?? 0
            let spread = sum.tolerance ?? 0
            let count = route.beforeKVO.count
            let shown =
                "\(count) route change\(count == 1 ? "" : "s") notified before the KVO show\(count == 1 ? "s" : "")"
                + cFormat(" kvoLatency + routeNotificationGap = %.1f ± %.1f ms", total * 1000, spread * 1000)
            let kvo = max(0, total - spread - gapRange.upperBound)...(total + spread)
            let gap = max(0, total - spread - kvoRange.upperBound)...(total + spread)
            let samples = route.beforeKVO.count
            let slider: RuleEstimate
            if let trip = roundTrip.value?.number {
                let tripSpread = roundTrip.tolerance ?? 0
                slider = .bound(
                    "sliderLatency", (trip - tripSpread - kvo.upperBound)...(trip + tripSpread - kvo.lowerBound),
                    samples: min(samples, roundTrip.samples),
                    how: "roundTrip less the bounds of kvoLatency (\(shown))")
            } else {
                slider = .notObserved("sliderLatency", "needs roundTrip: no set was followed by the KVO of its value")
            }
            return Latencies(
                gap: .bound(
                    "routeNotificationGap", gap, samples: samples,
                    how: "\(shown), and kvoLatency is within the envelope's 0–30 ms"),
                kvo: .bound(
                    "kvoLatency", kvo, samples: samples,
                    how: "\(shown), and routeNotificationGap is within the envelope's 0–20 ms"),
                slider: slider, kvoBounds: kvo)
        case .variant("missing")?:
            let why = "the route changes were never notified: there is no notification to time the KVO against"
            return Latencies(
                gap: .notObserved("routeNotificationGap", why), kvo: .notObserved("kvoLatency", why),
                slider: .notObserved("sliderLatency", why), kvoBounds: nil)
        default:
            let why = "needs a route change that moved the volume and was notified: \(route.order.how)"
            return Latencies(
                gap: .notObserved("routeNotificationGap", why), kvo: .notObserved("kvoLatency", why),
                slider: .notObserved("sliderLatency", why), kvoBounds: nil)
        }
    }
}
