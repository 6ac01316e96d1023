#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What decides, before any sound plays, whether a probe can answer at all.
public struct MuteProbeConditions: Sendable, Equatable {
    /// Whether the device has a silent mode a probe can see: the Ring/Silent switch (or Action button) on an
    /// iPhone, Silent mode in Control Center on an iPad (MAME4iOS #62 is an iPad muted that way;
    /// `shared/facts/envelope.md`).
    public var hasSwitch: Bool
    /// Whether iOS mutes system sounds for the app now (recording without the opt-in; see
    /// ``AudioSessionConfiguration/suppressesSystemSounds``).
    public var suppressesSystemSounds: Bool
    /// Whether the probe's sound could be created.
    public var isSoundAvailable: Bool

    /// Creates conditions.
    public init(hasSwitch: Bool, suppressesSystemSounds: Bool = false, isSoundAvailable: Bool = true) {
        self.hasSwitch = hasSwitch
        self.suppressesSystemSounds = suppressesSystemSounds
        self.isSoundAvailable = isSoundAvailable
    }

    /// Conditions for a device and the app's session configuration.
    public init(device: DeviceKind, session: AudioSessionConfiguration, isSoundAvailable: Bool = true) {
        self.init(
            // iPads have Silent mode in Control Center: the probe sees it as it sees the iPhone's switch.
            hasSwitch: device == .iphone || device == .ipad,
            suppressesSystemSounds: session.suppressesSystemSounds,
            isSoundAvailable: isSoundAvailable
        )
    }

    /// The answer that needs no probe, or `nil` when a probe can tell: ``MuteState/unavailable`` without a
    /// switch; ``MuteUnknownReason/systemSoundsSuppressed`` while recording, because a muted sound completes
    /// at once and would read as "silent" (sindresorhus/Actions #158, #209); ``MuteUnknownReason/soundUnavailable``
    /// without a sound.
    public var answerWithoutProbe: MuteState? {
        if !hasSwitch { return .unavailable }
        if suppressesSystemSounds { return .unknown(.systemSoundsSuppressed) }
        if !isSoundAvailable { return .unknown(.soundUnavailable) }
        return nil
    }
}
