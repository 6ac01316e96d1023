import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The rules a trace's interruption details show (trace format 3: `interruptionDetails` records).
extension TraceFit {
    /// ``DeviceBehaviour/lateInterruptionBegan``: whether iOS's "began" for the time the app was suspended
    /// (``InterruptionDetails/wasSuspended``, delivered or withheld) arrives on a return to the foreground
    /// before `didBecomeActive` (`onResume`) or after it (`afterActive`). Each return counts once (the first
    /// such "began" after its `willEnterForeground`, whichever subscription recorded it); the variant most
    /// returns show wins, `onResume` on a tie.
    ///
    /// A trace cannot show `none`: iOS sends the late "began" only when it deactivated the session of a
    /// suspended app, and suspension is not in a trace — nor is any "began" sent from iOS 16 on. A trace with
    /// returns but no such "began" leaves the rule not observed, and says why.
    static func lateInterruptionBegan(_ trace: Trace) -> RuleEstimate {
        let rule = "lateInterruptionBegan"
        guard trace.formatVersion >= 3 else {
            return .notObserved(
                rule, "needs interruption details (trace format 3); this trace is format \(trace.formatVersion)")
        }
        // Every subscription records the same events, one after another: a return begins at the first
        // `willEnterForeground` after the app was away, not at each subscription's record of it.
        enum Phase { case away, returning, active }
        var phase = Phase.away
        var returns = 0
        var seen = false
        var onResume = 0
        var afterActive = 0
        for record in trace.records {
            switch record.event {
            case .lifecycle(.willEnterForeground, _):
                if phase != .returning {
                    returns += 1
                    seen = false
                }
                phase = .returning
            case .lifecycle(.didBecomeActive, _):
                if phase == .returning { phase = .active }
            case .lifecycle(.didEnterBackground, _):
                phase = .away
            case .interruptionDetails(let details, _) where details.kind == .began && details.wasSuspended:
                guard returns > 0, phase != .away, !seen else { break }
                seen = true
                if phase == .returning { onResume += 1 } else { afterActive += 1 }
            default:
                break
            }
        }
        guard onResume + afterActive > 0 else {
            let returnsSeen = returns == 1 ? "the return" : "any of the \(returns) returns"
            let why =
                returns == 0
                ? "the trace has no return to the foreground"
                : "no interruption \"began\" for the time suspended on \(returnsSeen) to the foreground: iOS sends one only when it deactivated the session of the suspended app, which a trace cannot see, and none from iOS 16"
            return .notObserved(rule, why)
        }
        return RuleEstimate(
            rule: rule, value: .variant(onResume >= afterActive ? "onResume" : "afterActive"),
            samples: onResume + afterActive,
            how:
                "\(returns) return\(returns == 1 ? "" : "s") to the foreground: \(onResume) late \"began\" (for the time suspended) before didBecomeActive, \(afterActive) after it"
        )
    }
}
