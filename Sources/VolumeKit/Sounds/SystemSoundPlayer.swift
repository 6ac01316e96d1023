#if os(iOS)
import Foundation
import VolumeKitCore

/// Plays built-in system sounds, short custom sound files and vibrations through AudioServices — with custom
/// files checked first, so a bad file fails with an error that says what is wrong instead of a bare `OSStatus`.
///
/// ```swift
/// let player = SystemSoundPlayer()
/// await player.play(.triTone)                                   // sound only
/// await player.vibrate()                                        // vibration only (4095)
/// try await player.play(contentsOf: pingURL, mode: .soundAndVibrate)
/// ```
///
/// Rules AudioServices applies (`shared/facts/system-sounds.md` §3): custom files must be .caf, .aif or .wav,
/// linear PCM or IMA4, at most 30 seconds; sounds play at the system's volume (no volume control), one at a
/// time, on the device speaker, and are silent when the Ring/Silent switch is on silent. The IDs of built-in
/// sounds are undocumented except `SystemSound.vibrate`; the Simulator plays none of them.
///
/// **Recording sessions:** while an `AVAudioSession` in the `.record` or `.playAndRecord` category is active,
/// iOS silences system sounds and vibrations unless the app calls
/// `setAllowHapticsAndSystemSoundsDuringRecording(true)` (iOS 13+) on the session.
///
/// Each created `SystemSoundID` is cached per file and disposed of by `dispose(_:)`, `disposeAll()` or when the
/// player is released. The logic lives in `SystemSoundPlayerCore` (tested on Linux); this class only supplies
/// the live AudioServices client.
@MainActor
public final class SystemSoundPlayer {
    /// The platform-free core doing the checking, caching and playing.
    public let core: SystemSoundPlayerCore

    /// Creates a player.
    /// - Parameters:
    ///   - isUISound: `true` (the system default) lets the user's "Sound Effects" setting silence custom sounds;
    ///     `false` sets `kAudioServicesPropertyIsUISound` to 0 so they play regardless of it.
    ///   - client: AudioServices; `.live` unless a test supplies another.
    public init(isUISound: Bool = true, client: SystemSoundClient = .live) {
        core = SystemSoundPlayerCore(client: client, isUISound: isUISound)
    }

    /// Plays a built-in sound (or `.vibrate`) and returns when it has finished.
    public func play(_ sound: SystemSound, mode: SystemSoundPlaybackMode = .soundOnly) async {
        try? await core.play(.system(sound), mode: mode)  // built-in sounds involve no file: nothing can throw
    }

    /// Checks a custom sound file, creates its sound (once), plays it and returns when it has finished.
    /// - Throws: `SystemSoundPlayerError`, without playing, when the file breaks AudioServices' rules or
    ///   AudioServices refuses it.
    public func play(contentsOf url: URL, mode: SystemSoundPlaybackMode = .soundOnly) async throws {
        try await core.play(.file(url), mode: mode)
    }

    /// Plays a sound and calls `completion` (on AudioServices' queue) when it has finished.
    /// - Throws: `SystemSoundPlayerError` when a file is invalid or cannot be created.
    public func play(
        _ source: SystemSoundSource, mode: SystemSoundPlaybackMode = .soundOnly,
        completion: @escaping @Sendable () -> Void = {}
    ) throws {
        try core.play(source, mode: mode, completion: completion)
    }

    /// A brief vibration through `PlaySystemSound(kSystemSoundID_Vibrate)`; does nothing on devices that
    /// cannot vibrate (iPad, iPod touch), where `PlayAlertSound` would beep instead.
    public func vibrate() async {
        await play(.vibrate, mode: .soundOnly)
    }

    /// Checks a file and creates its sound now, so that its first play starts at once.
    /// - Throws: `SystemSoundPlayerError` when the file is invalid or cannot be created.
    @discardableResult
    public func prepare(_ url: URL) throws -> VolumeKitCore.SystemSoundID {
        try core.prepare(url)
    }

    /// Disposes of the sound created for `url`.
    public func dispose(_ url: URL) {
        core.dispose(url)
    }

    /// Disposes of every sound this player created (for example on a memory warning).
    public func disposeAll() {
        core.disposeAll()
    }
}
#endif
