import Foundation

/// The timing rules that turn volume steps into presses, repeats and releases.
///
/// Defaults come from iOS's auto-repeat while a button is held: the first repeat ≈ 650 ms after the press,
/// then one every ≈ 200 ms (SLVolumeButtonListener's timeouts, `shared/facts/volume-buttons.md` §1.2, §7).
public struct ButtonTiming: Sendable, Equatable {
    /// When the first auto-repeat arrives after a press.
    public var firstRepeatDelay: TimeInterval
    /// The interval between later auto-repeats.
    public var repeatInterval: TimeInterval
    /// How far an observed step may stray from the repeat rhythm and still count as a repeat.
    public var tolerance: TimeInterval
    /// With no release reported, the button counts as released when nothing more arrives this long after the
    /// last event (the next repeat's time plus ``tolerance``).
    public var releaseAfterPress: TimeInterval { firstRepeatDelay + tolerance }
    /// See ``releaseAfterPress``; after a repeat.
    public var releaseAfterRepeat: TimeInterval { repeatInterval + tolerance }

    /// Creates timing rules. Values are kept sensible: delays of at least 50 ms, and a tolerance below half
    /// the repeat interval (so one step can never count as two repeats).
    ///
    /// The default tolerance is 50 ms: taps made exactly on iOS's repeat rhythm (0.65 s apart, then 0.2 s)
    /// cannot be told from a hold without real press and release events (``ButtonStrategy/captureEvents``).
    public init(firstRepeatDelay: TimeInterval = 0.65, repeatInterval: TimeInterval = 0.2, tolerance: TimeInterval = 0.05) {
        let first = firstRepeatDelay.isFinite ? max(0.05, firstRepeatDelay) : 0.65
        let interval = repeatInterval.isFinite ? max(0.05, repeatInterval) : 0.2
        self.firstRepeatDelay = first
        self.repeatInterval = interval
        self.tolerance = tolerance.isFinite ? min(max(0, tolerance), interval / 2 - 0.001) : 0.05
    }

    /// iOS's own rhythm.
    public static let standard = ButtonTiming()
}
