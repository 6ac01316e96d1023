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

    /// Creates timing rules.
    public init(firstRepeatDelay: TimeInterval = 0.65, repeatInterval: TimeInterval = 0.2, tolerance: TimeInterval = 0.1) {
        self.firstRepeatDelay = firstRepeatDelay
        self.repeatInterval = repeatInterval
        self.tolerance = tolerance
    }

    /// iOS's own rhythm.
    public static let standard = ButtonTiming()
}
