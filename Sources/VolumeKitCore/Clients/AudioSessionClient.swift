import Foundation

/// The app's audio session (`AVAudioSession`): category, options, activation, route.
public struct AudioSessionClient: Sendable {
    /// The session's current category and options.
    public var configuration: @Sendable () -> AudioSessionConfiguration
    /// Sets the session's category and options.
    public var setConfiguration: @Sendable (AudioSessionConfiguration) throws -> Void
    /// Activates or deactivates the session. Deactivation passes `.notifyOthersOnDeactivation` when asked.
    public var setActive: @Sendable (_ active: Bool, _ notifyOthersOnDeactivation: Bool) throws -> Void
    /// Whether another app is playing audio (`isOtherAudioPlaying`).
    public var isOtherAudioPlaying: @Sendable () -> Bool
    /// The output route audio goes to now.
    public var currentRoute: @Sendable () -> AudioRoute
    /// Plays a tiny silent sound without interrupting other audio, so that `outputVolume` and its
    /// observation become live: before an app has played any audio, both are stale (seed 001).
    public var primeOutput: @Sendable () -> Void

    /// Creates a client from its operations.
    public init(
        configuration: @escaping @Sendable () -> AudioSessionConfiguration,
        setConfiguration: @escaping @Sendable (AudioSessionConfiguration) throws -> Void,
        setActive: @escaping @Sendable (_ active: Bool, _ notifyOthersOnDeactivation: Bool) throws -> Void,
        isOtherAudioPlaying: @escaping @Sendable () -> Bool,
        currentRoute: @escaping @Sendable () -> AudioRoute,
        primeOutput: @escaping @Sendable () -> Void
    ) {
        self.configuration = configuration
        self.setConfiguration = setConfiguration
        self.setActive = setActive
        self.isOtherAudioPlaying = isOtherAudioPlaying
        self.currentRoute = currentRoute
        self.primeOutput = primeOutput
    }
}

/// An audio session category (`AVAudioSession.Category`).
public enum AudioCategory: String, Sendable, Equatable, CaseIterable, Codable {
    /// `.ambient`: mixes with others, silenced by the Ring/Silent switch.
    case ambient
    /// `.soloAmbient`, the default: silenced by the switch, interrupts others.
    case soloAmbient
    /// `.playback`: not silenced by the switch.
    case playback
    /// `.record`.
    case record
    /// `.playAndRecord`.
    case playAndRecord
    /// `.multiRoute`.
    case multiRoute

    /// Whether the category records, which makes iOS mute system sounds unless
    /// ``AudioSessionConfiguration/allowsSystemSoundsDuringRecording`` is set.
    public var records: Bool { self == .record || self == .playAndRecord }
}

/// Audio session category options (`AVAudioSession.CategoryOptions`).
public struct AudioCategoryOptions: OptionSet, Sendable, Hashable, Codable {
    /// The raw bits.
    public var rawValue: UInt
    /// Creates options from raw bits.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// `.mixWithOthers`: other apps keep playing.
    public static let mixWithOthers = AudioCategoryOptions(rawValue: 1 << 0)
    /// `.duckOthers`.
    public static let duckOthers = AudioCategoryOptions(rawValue: 1 << 1)
    /// `.allowBluetooth` (HFP).
    public static let allowBluetooth = AudioCategoryOptions(rawValue: 1 << 2)
    /// `.defaultToSpeaker`.
    public static let defaultToSpeaker = AudioCategoryOptions(rawValue: 1 << 3)
    /// `.allowBluetoothA2DP`.
    public static let allowBluetoothA2DP = AudioCategoryOptions(rawValue: 1 << 5)
    /// `.allowAirPlay`.
    public static let allowAirPlay = AudioCategoryOptions(rawValue: 1 << 6)
    /// `.interruptSpokenAudioAndMixWithOthers`.
    public static let interruptSpokenAudioAndMixWithOthers = AudioCategoryOptions(rawValue: 1 << 4)
}

/// A category with its options.
public struct AudioSessionConfiguration: Sendable, Equatable, Codable {
    /// The category.
    public var category: AudioCategory
    /// The options.
    public var options: AudioCategoryOptions
    /// `AVAudioSession.allowHapticsAndSystemSoundsDuringRecording` (iOS 13+): without it, a recording
    /// session silences system sounds and haptics.
    public var allowsSystemSoundsDuringRecording: Bool

    /// Creates a configuration.
    public init(
        category: AudioCategory, options: AudioCategoryOptions = [], allowsSystemSoundsDuringRecording: Bool = false
    ) {
        self.category = category
        self.options = options
        self.allowsSystemSoundsDuringRecording = allowsSystemSoundsDuringRecording
    }

    /// `.playback` + `.mixWithOthers`: VolumeKit's default, so other apps' audio keeps playing
    /// (JPSVolumeButtonHandler's final choice after #22/#39/#46; `shared/facts/volume-buttons.md` §1.1).
    public static let playbackMixing = AudioSessionConfiguration(category: .playback, options: .mixWithOthers)
    /// iOS's default for an app that never sets one.
    public static let systemDefault = AudioSessionConfiguration(category: .soloAmbient)

    /// Whether iOS mutes system sounds under this configuration (recording without the opt-in).
    public var suppressesSystemSounds: Bool {
        category.records && !allowsSystemSoundsDuringRecording
    }
}

/// Where audio goes. Each route keeps its own volume.
public enum AudioRoute: String, Sendable, Equatable, Hashable, CaseIterable, Codable {
    /// The built-in speaker.
    case speaker
    /// Wired headphones.
    case headphones
    /// A Bluetooth device.
    case bluetooth
    /// AirPlay, HDMI or another external output; such routes may have no volume control
    /// (openradar 42881405).
    case external
    /// The built-in receiver (earpiece), used by `.playAndRecord` without `.defaultToSpeaker`.
    case receiver
}
