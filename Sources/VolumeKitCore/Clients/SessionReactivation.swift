#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// When VolumeKit may activate the app's audio session again — on returning to the foreground, after an
/// interruption, after a media-services reset — without stopping audio the user started meanwhile.
///
/// Activating a session that does not mix with others interrupts other apps' audio (AVAudioSession,
/// `mixWithOthers`: "If you clear this option, audio from your session interrupts other sessions"). So:
/// - a session that mixes (``AudioSessionConfiguration/mixesWithOthers``, VolumeKit's own `.playback` +
///   `.mixWithOthers` among them) is always activated again: it stops nothing;
/// - a session that does not mix (the app's own `.playback`, a player's or web view's) is activated again only
///   when no other app is playing (`isOtherAudioPlaying`, and the secondary-audio hint: another app's
///   non-mixable audio), and after an interruption only when its end says `.shouldResume` (Apple, "Responding
///   to audio session interruptions": without it, the app "should not resume playback"). Otherwise VolumeKit
///   waits for the next foreground and says why (``SessionReactivationHold``).
public enum SessionReactivation {
    /// What asks for the session to be live again.
    public enum Trigger: Sendable, Equatable {
        /// `willEnterForeground` or `didBecomeActive`.
        case foreground
        /// `AVAudioSession.interruptionNotification`, type `.ended`, with its `.shouldResume` option.
        case interruptionEnded(shouldResume: Bool)
        /// `mediaServicesWereResetNotification`: activation was lost with the category.
        case mediaServicesReset
    }

    /// What VolumeKit does.
    public enum Decision: Sendable, Equatable {
        /// Activate the session now.
        case activate
        /// Leave the session inactive for now, for this reason.
        case wait(SessionReactivationHold)
    }

    /// Decides for a session in `configuration`, with what the system says about other apps' audio.
    public static func decide(
        _ trigger: Trigger, configuration: AudioSessionConfiguration, isOtherAudioPlaying: Bool,
        secondaryAudioShouldBeSilenced: Bool
    ) -> Decision {
        if configuration.mixesWithOthers { return .activate }
        if case .interruptionEnded(shouldResume: false) = trigger {
            return .wait(.interruptionEndedWithoutResume(configuration.category))
        }
        if isOtherAudioPlaying || secondaryAudioShouldBeSilenced {
            return .wait(.otherAudioPlaying(configuration.category))
        }
        return .activate
    }

    /// Decides for the session `session` holds now; other audio is read only when the session does not mix.
    public static func decide(_ trigger: Trigger, session: AudioSessionClient) -> Decision {
        let configuration = session.configuration()
        if configuration.mixesWithOthers { return .activate }
        let resumes: Bool
        if case .interruptionEnded(let shouldResume) = trigger { resumes = shouldResume } else { resumes = true }
        return decide(
            trigger, configuration: configuration,
            isOtherAudioPlaying: resumes && session.isOtherAudioPlaying(),
            secondaryAudioShouldBeSilenced: resumes && session.secondaryAudioShouldBeSilencedHint())
    }
}

/// Why VolumeKit left the app's audio session inactive instead of activating it again.
public enum SessionReactivationHold: Sendable, Equatable, CustomStringConvertible {
    /// Another app is playing, and the session's category (given) does not mix: activating it would stop
    /// that audio.
    case otherAudioPlaying(AudioCategory)
    /// An interruption ended without `.shouldResume` (the user started audio in another app), and the
    /// session's category (given) does not mix.
    case interruptionEndedWithoutResume(AudioCategory)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .otherAudioPlaying(let category):
            "another app is playing audio and the session's category (\(category.rawValue), without mixWithOthers) would stop it, so it stays inactive until the app next comes to the foreground with nothing else playing (add .mixWithOthers to keep it live)"
        case .interruptionEndedWithoutResume(let category):
            "the interruption ended without shouldResume and the session's category (\(category.rawValue), without mixWithOthers) would stop the audio that interrupted it, so it stays inactive until the app next comes to the foreground (add .mixWithOthers to keep it live)"
        }
    }
}
