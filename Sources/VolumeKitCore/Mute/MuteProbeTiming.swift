#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The three times a mute probe runs on: the silent sound's length, the threshold that separates a skipped
/// sound from a played one, and the timeout for a completion that never comes.
///
/// How the standard values are chosen (`shared/facts/mute-switch.md` §4):
/// - On silent, iOS skips the sound and its completion arrives in under 1 ms on recent iPhones and in up to
///   **50 ms** on older ones (iPhone 8: sindresorhus/Actions #101, fixed by raising its threshold from
///   10 to 50 ms in c4412aa). The threshold sits at **100 ms**: a 50 ms margin (2×) above the slowest
///   silent completion measured.
/// - On ring, the completion comes once the sound has played, so never before its length. The sound lasts
///   **200 ms**: a 100 ms margin below the earliest ringing completion. The anchors used a 0.099 s sound
///   against a 0.1 s threshold (akramhussein/Mute), or a threshold equal to the length, i.e. no margin.
/// - "Ringing" is decided *at* the threshold, without waiting for the sound to finish, so a longer sound
///   costs no decision time; it is all-zero samples, so it cannot be heard (Mute #1, PR #8).
/// - A completion that arrives after the threshold but before ``lateSilentBound`` (150 ms, half-way to the
///   sound's end) cannot come from a sound that played: the probe revises its "ringing" to "silent".
/// - No completion within ``timeout`` (1 s: the sound plus Sharkfood's observed ~0.1–0.2 s of extra
///   latency, with room to spare) → ``MuteState/unknown(_:)`` with ``MuteUnknownReason/noCompletion``
///   (no anchor has one; their polling stops for good when a completion is lost, §1 "Extra").
public struct MuteProbeTiming: Sendable, Equatable, Hashable {
    /// The silent sound's length, in seconds.
    public let soundDuration: TimeInterval
    /// Completions earlier than this are "silent"; at this time without a completion the probe says "ringing".
    public let threshold: TimeInterval
    /// Without a completion by this time the probe says "unknown".
    public let timeout: TimeInterval

    /// The slowest silent completion measured on a real device: 50 ms (iPhone 8, sindresorhus/Actions #101).
    public static let measuredSilentMaximum: TimeInterval = 0.05
    /// The longest sound AudioServices plays (AudioServices.h: "The maximum supported duration for a system
    /// sound is 30 secs"; `shared/facts/system-sounds.md` §3).
    public static let maximumSoundDuration: TimeInterval = 30

    /// 200 ms sound, 100 ms threshold, 1 s timeout: see the type's discussion.
    public static let standard = MuteProbeTiming(uncheckedSound: 0.2, threshold: 0.1, timeout: 1)

    /// Creates a timing, or throws a ``MuteTimingError`` when the values cannot classify anything: the threshold must lie strictly
    /// between 0 and the sound's length, the sound must be at most 30 s, and the timeout must exceed the sound.
    public init(soundDuration: TimeInterval, threshold: TimeInterval, timeout: TimeInterval) throws {
        guard soundDuration.isFinite, threshold.isFinite, timeout.isFinite else { throw MuteTimingError.notFinite }
        guard threshold > 0, threshold < soundDuration else { throw MuteTimingError.thresholdOutsideSound }
        guard soundDuration <= Self.maximumSoundDuration else { throw MuteTimingError.soundTooLong }
        guard timeout > soundDuration else { throw MuteTimingError.timeoutTooShort }
        self.init(uncheckedSound: soundDuration, threshold: threshold, timeout: timeout)
    }

    private init(uncheckedSound soundDuration: TimeInterval, threshold: TimeInterval, timeout: TimeInterval) {
        self.soundDuration = soundDuration
        self.threshold = threshold
        self.timeout = timeout
    }

    /// Completions after a "ringing" decision but before this cannot come from a played sound (half-way
    /// between the threshold and the sound's end): the probe then revises its answer to "silent".
    public var lateSilentBound: TimeInterval { (threshold + soundDuration) / 2 }
    /// The margin between the slowest measured silent completion and the threshold (50 ms for ``standard``).
    public var silentMargin: TimeInterval { threshold - Self.measuredSilentMaximum }
    /// The margin between the threshold and the earliest possible ringing completion (100 ms for ``standard``).
    public var ringingMargin: TimeInterval { soundDuration - threshold }
}

/// Probe times that cannot classify anything.
public enum MuteTimingError: Error, Sendable, Equatable {
    /// A value is NaN or infinite.
    case notFinite
    /// The threshold is not strictly between 0 and the sound's length.
    case thresholdOutsideSound
    /// The sound is longer than AudioServices plays (30 s).
    case soundTooLong
    /// The timeout does not exceed the sound's length.
    case timeoutTooShort
}
