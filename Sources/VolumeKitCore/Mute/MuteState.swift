#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What VolumeKit knows about the Ring/Silent switch: an answer only when it can know.
///
/// iOS has no API for the switch (openradar 40873275, 19685345; `shared/facts/mute-switch.md` §3); VolumeKit
/// infers it from how fast a silent system sound completes (seeds 001/004). When that inference cannot be
/// trusted the state says so instead of guessing "silent" the way every anchor library does (§2).
public enum MuteState: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The switch is on silent: system sounds and switch-respecting audio (`.ambient`, `.soloAmbient`) are muted.
    case silent
    /// The switch is on ring.
    case ringing
    /// VolumeKit cannot tell now, for the reason given.
    case unknown(MuteUnknownReason)
    /// The device has no silent mode a probe can see. iPhones have the switch and iPads Silent mode in
    /// Control Center, both probed (`shared/facts/envelope.md`, MAME4iOS #62): kept for conditions built
    /// with ``MuteProbeConditions/hasSwitch`` false.
    case unavailable

    /// `silent`, `ringing`, `unknown` or `unavailable`: the name scripts and JSON use.
    public var name: String {
        switch self {
        case .silent: "silent"
        case .ringing: "ringing"
        case .unknown: "unknown"
        case .unavailable: "unavailable"
        }
    }

    /// `true` for silent, `false` for ringing, `nil` when VolumeKit cannot say (the seed's `muteBlock` answer).
    public var isSilent: Bool? {
        switch self {
        case .silent: true
        case .ringing: false
        case .unknown, .unavailable: nil
        }
    }

    /// "silent", "ringing", "unknown(systemSoundsSuppressed)", "unavailable".
    public var description: String {
        if case .unknown(let reason) = self { return "unknown(\(reason.rawValue))" }
        return name
    }
}

/// Why the switch's position cannot be known.
public enum MuteUnknownReason: String, Sendable, Equatable, Hashable, CaseIterable {
    /// The app's audio session records (`.record`, `.playAndRecord`) without
    /// `allowHapticsAndSystemSoundsDuringRecording`, so iOS mutes system sounds and every probe would look
    /// "silent" (sindresorhus/Actions #158, akramhussein/Mute #7, Apple forums 672371;
    /// `shared/facts/mute-switch.md` §2). VolumeKit does not probe then.
    case systemSoundsSuppressed
    /// The probe's sound never completed within the timeout.
    case noCompletion
    /// The probe's sound could not be created (missing or unreadable resource).
    case soundUnavailable
}

/// A reported change of ``MuteState``.
public struct MuteStateChange: Sendable, Equatable {
    /// The state reported before, `nil` for the first report.
    public var old: MuteState?
    /// The state now.
    public var new: MuteState
    /// Whether this is the first state reported since the monitor started (not a change the user made).
    public var isInitial: Bool

    /// Creates a change.
    public init(old: MuteState?, new: MuteState, isInitial: Bool) {
        self.old = old
        self.new = new
        self.isInitial = isInitial
    }
}
