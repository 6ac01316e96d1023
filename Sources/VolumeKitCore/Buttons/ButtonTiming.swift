#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The timing rules that turn volume steps into presses, repeats and releases.
///
/// iOS's auto-repeat rhythm is unmeasured: SLVolumeButtonListener's 650 ms and 200 ms are *release
/// timeouts* chosen longer than the real gaps (`shared/facts/envelope.md`: first repeat ≈ 0.3–0.7 s, then
/// ≈ 0.06–0.2 s). So the delays here are upper bounds: a step of the same button arriving no sooner than
/// ``firstRepeatMinimum`` and no later than ``firstRepeatDelay`` (plus ``tolerance``) after a press is its
/// first repeat, and any later step within ``repeatInterval`` (plus ``tolerance``) of the previous one is a
/// repeat. Steps sooner than ``firstRepeatMinimum`` are new presses (taps, bursts).
public struct ButtonTiming: Sendable, Equatable {
    /// The latest the first auto-repeat arrives after a press (an upper bound); also the rhythm of repeats
    /// made up for a button really held (capture events).
    public var firstRepeatDelay: TimeInterval
    /// The soonest the first auto-repeat arrives after a press: a same-button step sooner is a new press.
    public var firstRepeatMinimum: TimeInterval
    /// The longest interval between later auto-repeats (an upper bound).
    public var repeatInterval: TimeInterval
    /// How far an observed step may stray from the repeat rhythm and still count as a repeat.
    public var tolerance: TimeInterval
    /// How late an observation of a step may be (KVO latency, up to 0.03 s in `shared/facts/envelope.md`):
    /// added to the timeouts, so a repeat on the slowest rhythm still arrives before the release is inferred.
    public static let observationLatency: TimeInterval = 0.05
    /// With no release reported, the button counts as released when nothing more arrives this long after the
    /// last event (the latest first repeat plus ``tolerance`` and ``observationLatency``).
    public var releaseAfterPress: TimeInterval { firstRepeatDelay + tolerance + Self.observationLatency }
    /// See ``releaseAfterPress``; after a repeat.
    public var releaseAfterRepeat: TimeInterval { repeatInterval + tolerance }

    /// Creates timing rules. Values are kept sensible: delays of at least 50 ms, and a tolerance below half
    /// the repeat interval (so one step can never count as two repeats).
    ///
    /// The default tolerance is 50 ms. Taps of one button 0.25–0.7 s apart, then faster than 0.25 s, cannot be
    /// told from a hold without real press and release events (``ButtonStrategy/captureEvents``): they are
    /// reported as one press and its repeats.
    public init(
        firstRepeatDelay: TimeInterval = 0.65,
        repeatInterval: TimeInterval = 0.2,
        tolerance: TimeInterval = 0.05,
        firstRepeatMinimum: TimeInterval = 0.3
    ) {
        let first = firstRepeatDelay.isFinite ? max(0.05, firstRepeatDelay) : 0.65
        let interval = repeatInterval.isFinite ? max(0.05, repeatInterval) : 0.2
        self.firstRepeatDelay = first
        self.firstRepeatMinimum = firstRepeatMinimum.isFinite ? min(max(0, firstRepeatMinimum), first) : min(0.3, first)
        self.repeatInterval = interval
        self.tolerance = tolerance.isFinite ? min(max(0, tolerance), interval / 2 - 0.001) : 0.05
    }

    /// iOS's own rhythm.
    public static let standard = ButtonTiming()

    /// How far from the first repeat this phone showed (``CalibrationRule/firstRepeatDelay``) a step may come and
    /// still be that first repeat, besides twice the estimate's spread: the estimate's own error (within 20 ms on
    /// the simulated envelope) and the main thread's delivery jitter.
    public static let learnedWindow: TimeInterval = 0.04
    /// How many holds must have shown the phone's first repeat before the window narrows: one run of regular quick
    /// taps after a pause has a hold's shape, and one such run taken for a hold split every later hold into presses
    /// (randomized sessions); a second measurement that disagrees widens the window by its spread instead.
    public static let holdsToNarrow = 2

    /// The first-repeat window narrowed to the rhythm this phone showed: a step `firstRepeat` ± `window` after a
    /// press is its first repeat, one sooner or later a new press — so taps at a natural pace (0.3–0.7 s apart)
    /// are presses once holds have been seen (``holdsToNarrow``), unless they fall on the phone's own rhythm (then they stay
    /// ``VolumeButtonsDiagnostic/ambiguousStep``). Never wider than this timing's own window; unchanged when
    /// the two do not meet (a learned rhythm outside it).
    public func narrowed(toFirstRepeat firstRepeat: TimeInterval, window: TimeInterval) -> ButtonTiming {
        guard firstRepeat.isFinite, window.isFinite, window >= 0 else { return self }
        let earliest = max(firstRepeatMinimum - tolerance, firstRepeat - window)
        let latest = min(releaseAfterPress, firstRepeat + window)
        guard earliest < latest else { return self }
        var timing = self
        timing.firstRepeatMinimum = earliest + tolerance
        timing.firstRepeatDelay = max(0.05, latest - tolerance - Self.observationLatency)
        return timing
    }
}
