import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The device's system-sound state: created sound IDs, the Ring/Silent switch and completion timing.
struct SimulatedSounds {
    var nextID: SystemSoundID = 4096
    var created: [SystemSoundID: URL] = [:]
    var durations: [URL: TimeInterval] = [:]
    var isMuteSwitchOn = false
    var isSilentModeOn = false
    var latency = SoundCompletionLatency.documented
    var random = SeededRandom(seed: 0x5EED_0001)
    var dropsCompletions = false
}

/// How long after `AudioServicesPlaySystemSoundWithCompletion` the completion arrives on the simulated
/// device: a seeded, jittered draw from one of two ranges, each log-uniform (most completions fast, a
/// long tail), so that every draw stays inside the documented range.
///
/// Sources (`shared/facts/mute-switch.md` §4):
/// - **Skipped sound** (switch on silent, or system sounds suppressed while recording): under 1 ms on recent
///   iPhones ("takes less than a millisecond", sindresorhus/Actions), 10 ms enough on modern phones but up
///   to **50 ms** on an iPhone 8 (Actions #101, c4412aa). Range: 0.2 ms … 50 ms.
/// - **Played sound**: the completion comes once the sound has played, i.e. never before its length
///   (AudioServices.h: the completion runs when the sound finishes), plus output latency: Sharkfood saw
///   "0.3something" s for its 0.2 s file. No published measurement exists (§4), so the extra is taken
///   as 1 ms … 200 ms.
public struct SoundCompletionLatency: Sendable, Equatable {
    /// Completion delay of a skipped sound, in seconds.
    public var skipped: ClosedRange<TimeInterval>
    /// Delay past the sound's length of a played sound's completion, in seconds.
    public var playedExtra: ClosedRange<TimeInterval>

    /// Creates a latency model; both ranges must be positive.
    public init(skipped: ClosedRange<TimeInterval>, playedExtra: ClosedRange<TimeInterval>) {
        self.skipped = skipped
        self.playedExtra = playedExtra
    }

    /// The documented ranges, recent and older iPhones together (see the type's sources).
    public static let documented = SoundCompletionLatency(skipped: 0.0002...0.05, playedExtra: 0.001...0.2)
    /// Recent iPhones: skipped sounds complete within 10 ms (Actions' 10 ms threshold worked there).
    public static let recentPhone = SoundCompletionLatency(skipped: 0.0002...0.01, playedExtra: 0.001...0.2)
    /// **Outside** the documented assumptions: skipped-sound completions up to 150 ms, as when a completion
    /// is delivered through a busy main run loop (`AudioServicesAddSystemSoundCompletion` on
    /// `CFRunLoopGetMain()`, `shared/facts/mute-switch.md` §2). For stress figures only.
    public static let stalledCallbacks = SoundCompletionLatency(skipped: 0.001...0.15, playedExtra: 0.001...0.2)

    /// A skipped sound's completion delay.
    public func skippedDelay(using random: inout SeededRandom) -> TimeInterval {
        Self.logUniform(skipped, using: &random)
    }

    /// A played sound's completion delay, for a sound `duration` seconds long.
    public func playedDelay(duration: TimeInterval, using random: inout SeededRandom) -> TimeInterval {
        duration + Self.logUniform(playedExtra, using: &random)
    }

    static func logUniform(_ range: ClosedRange<TimeInterval>, using random: inout SeededRandom) -> TimeInterval {
        let low = log(max(range.lowerBound, 1e-9))
        let high = log(max(range.upperBound, 1e-9))
        let value = exp(Double.random(in: low...high, using: &random))
        return min(range.upperBound, max(range.lowerBound, value))
    }
}

extension SimulatedDevice {
    /// How long a created system sound plays when nothing stops it, unless set with ``setSoundDuration(_:for:)``.
    static let defaultSoundDuration: TimeInterval = 0.2

    /// The Ring/Silent switch: `true` on silent. iPads have none (setting it changes nothing there). Moving
    /// it does not change `outputVolume`: the two are independent (react-native-system-setting #73).
    public var isMuteSwitchOn: Bool {
        get { locked { sounds.isMuteSwitchOn } }
        set { locked { sounds.isMuteSwitchOn = newValue } }
    }

    /// The user moves the Ring/Silent switch (`mute on|off` in scripts). An iPad has none: nothing changes there.
    public func setMuteSwitch(on: Bool) { isMuteSwitchOn = on }

    /// The user turns Silent mode on or off in Control Center (`silent on|off` in scripts): on an iPad it
    /// silences system sounds under ``DeviceBehaviour/IPadSilent/controlCenterToggle`` (MAME4iOS #62,
    /// `shared/facts/envelope.md`); on an iPhone it is the same state as the switch.
    public func setSilentMode(on: Bool) {
        locked {
            if configuration.kind == .iphone { sounds.isMuteSwitchOn = on } else { sounds.isSilentModeOn = on }
        }
    }

    /// How long system-sound completions take (default ``SoundCompletionLatency/documented``).
    public var soundLatency: SoundCompletionLatency {
        get { locked { sounds.latency } }
        set { locked { sounds.latency = newValue } }
    }

    /// Restarts the completion jitter from `seed`.
    public func seedSoundJitter(_ seed: UInt64) { locked { sounds.random = SeededRandom(seed: seed) } }

    /// When `true`, played sounds never complete (a lost completion; no source reports it, but nothing
    /// promises it either, and the anchors stop polling for good when it happens).
    public var dropsSoundCompletions: Bool {
        get { locked { sounds.dropsCompletions } }
        set { locked { sounds.dropsCompletions = newValue } }
    }

    /// Sets how long the sound file at `url` plays.
    public func setSoundDuration(_ duration: TimeInterval, for url: URL) { locked { sounds.durations[url] = duration } }

    /// The system sounds the app played: when, and whether they were heard (`false` when skipped).
    public var systemSoundPlays: [(time: Instant, played: Bool)] {
        log.compactMap { entry in
            if case .systemSound(let time, _, let played) = entry { return (time, played) }
            return nil
        }
    }

    /// Whether iOS skips a system sound now: the switch on silent (iPhone) or Silent mode on (iPad, see
    /// ``setSilentMode(on:)``), or the app's session records
    /// without `allowHapticsAndSystemSoundsDuringRecording` (Apple forums 672371; Actions #158, Mute #7;
    /// `shared/facts/mute-switch.md` §2). Either way the completion still comes, fast: AudioServices runs it
    /// "for every attempt to play a system sound irrespective of success or failure" (AudioServices.h).
    var skipsSystemSounds: Bool {
        if app?.configuration.suppressesSystemSounds == true { return true }
        switch configuration.kind {
        case .iphone: return sounds.isMuteSwitchOn
        case .ipad: return behaviour.iPadSilent == .controlCenterToggle && sounds.isSilentModeOn
        }
    }

    func systemSoundClient(_ launched: Int) -> SystemSoundClient {
        SystemSoundClient(
            create: { [unowned self] url in
                try self.locked {
                    guard self.isCurrent(launched) else { throw SimulatedDeviceError.appNotRunning }
                    let id = self.sounds.nextID
                    self.sounds.nextID += 1
                    self.sounds.created[id] = url
                    return id
                }
            },
            play: { [unowned self] id, _, completion in
                self.locked {
                    guard self.isCurrent(launched), let url = self.sounds.created[id] else { return }
                    // Playing any sound makes outputVolume live for the app (seed 001).
                    self.app?.hasPlayedAudio = true
                    let skipped = self.skipsSystemSounds
                    self.record(.systemSound(self.now, id, played: !skipped))
                    guard !self.sounds.dropsCompletions else { return }
                    let duration = self.sounds.durations[url] ?? Self.defaultSoundDuration
                    let delay =
                        skipped
                        ? self.sounds.latency.skippedDelay(using: &self.sounds.random)
                        : self.sounds.latency.playedDelay(duration: duration, using: &self.sounds.random)
                    self.inApp(after: delay) { completion() }
                }
            },
            setIsUISound: { _, _ in },
            dispose: { [unowned self] id in self.locked { _ = self.sounds.created.removeValue(forKey: id) } }
        )
    }
}
