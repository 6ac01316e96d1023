#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a ``VolumeStepMachine`` behaves: its mode, headroom, and the delays of its sets and echoes — set from the
/// envelope of slider and KVO latencies and button rhythms (`shared/facts/envelope.md`).
extension VolumeStepMachine {
    /// How the machine behaves.
    public struct Configuration: Sendable, Equatable {
        /// Capture (hold the volume at the anchor) or passive (let presses change the volume).
        public var mode: ButtonCaptureMode
        /// How many 1/16 steps the anchor keeps from 0 and 1 while capturing.
        public var headroomSteps: Int
        /// Whether observations report presses that cannot move the volume (at 0 or 1).
        public var reportsPressesAtRails: Bool
        /// How long after the last step the exact anchor is set (longer than the auto-repeat interval, so a
        /// held button has ended its press cycle).
        public var settleDelay: TimeInterval
        /// How long to wait for a set to be confirmed before trying again.
        public var retryDelay: TimeInterval
        /// How many times a set is tried before the machine gives up and reports ``Action/setFailed(_:)``.
        public var maximumAttempts: Int
        /// How long an expected echo of our own set is remembered: longer than a set takes to land and be
        /// observed (slider ≤ 0.15 s plus KVO ≤ 0.03 s, `shared/facts/envelope.md`), short enough that a set
        /// that landed silently (on a volume already there: KVO reports only changes), was refused during a
        /// down press or was dropped cannot swallow a later press landing on the same value (CipherBit
        /// VolumeButtonHandler #4's fake echo).
        public var echoLifetime: TimeInterval
        /// How soon after a set its echo may come: 0 (any time) until this phone's round trip is known, then a
        /// margin below the shortest it shows (``VolumeStepMachine/expectEchoes(noSoonerThan:)``). An observation
        /// of a set's value sooner than that is no landing of it — a press landing on the value of a set in flight
        /// is then told from the set (`shared/facts/envelope.md`: `sliderLatency`, `kvoLatency`).
        public var echoSoonest: TimeInterval = 0
        /// The slowest set → KVO round trip of a phone shown refusing sets during a down press
        /// (``HeadroomPolicy/aimRoundTrip(_:refusing:)``), by which a reset in a burst of down presses near a rail is
        /// aimed below the press held when it lands (``aimResets(roundTrip:)``); `nil` (not measured, or not shown
        /// refusing): resets are aimed just below the anchor.
        public var burstRoundTrip: TimeInterval?

        /// Creates a configuration.
        public init(
            mode: ButtonCaptureMode = .capture,
            headroomSteps: Int = 2,
            reportsPressesAtRails: Bool = false,
            settleDelay: TimeInterval = 0.35,
            retryDelay: TimeInterval = 0.2,
            maximumAttempts: Int = 30,
            echoLifetime: TimeInterval = 0.2
        ) {
            self.mode = mode
            self.headroomSteps = headroomSteps
            self.reportsPressesAtRails = reportsPressesAtRails
            self.settleDelay = settleDelay
            self.retryDelay = retryDelay
            self.maximumAttempts = maximumAttempts
            self.echoLifetime = echoLifetime
        }
    }
}
