#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    /// `secondaryAudioShouldBeSilencedHint`: whether another app with a non-mixable session is playing. `false`
    /// unless set (the live client reads it); ``SessionReactivation`` takes it with ``isOtherAudioPlaying``.
    public var secondaryAudioShouldBeSilencedHint: @Sendable () -> Bool = { false }
    /// The output route audio goes to now.
    public var currentRoute: @Sendable () -> AudioRoute
    /// Plays a tiny silent sound without interrupting other audio, so that `outputVolume` and its
    /// observation become live: before an app has played any audio, both are stale (seed 001).
    ///
    /// The primer plays for ``primerDuration``; while it plays, deactivating the session fails
    /// (`AVAudioSession.ErrorCode.isBusy`: "Deactivating an audio session that has running I/O"), so
    /// ``AudioSessionLease`` retries a failed deactivation after it (see
    /// ``AudioSessionLease/deactivationRetryDelay``).
    public var primeOutput: @Sendable () -> Void
    /// The output ports of the current route (type and UID), when the platform knows them; empty otherwise.
    /// VolumeKit keys a Bluetooth or external route's saved volume by its first port's UID
    /// (``currentOutput()``), so two headsets, or two AirPlay speakers, keep their own.
    public var currentOutputs: @Sendable () -> [AudioPort]

    /// How long the silent sound of ``primeOutput`` plays (the live primer's buffer is 50 ms).
    public static let primerDuration: TimeInterval = 0.05

    /// Creates a client from its operations, with the current route's output ports (none by default: no port
    /// details).
    public init(
        configuration: @escaping @Sendable () -> AudioSessionConfiguration,
        setConfiguration: @escaping @Sendable (AudioSessionConfiguration) throws -> Void,
        setActive: @escaping @Sendable (_ active: Bool, _ notifyOthersOnDeactivation: Bool) throws -> Void,
        isOtherAudioPlaying: @escaping @Sendable () -> Bool,
        currentRoute: @escaping @Sendable () -> AudioRoute,
        primeOutput: @escaping @Sendable () -> Void,
        currentOutputs: @escaping @Sendable () -> [AudioPort] = { [] }
    ) {
        self.configuration = configuration
        self.setConfiguration = setConfiguration
        self.setActive = setActive
        self.isOtherAudioPlaying = isOtherAudioPlaying
        self.currentRoute = currentRoute
        self.primeOutput = primeOutput
        self.currentOutputs = currentOutputs
    }

    /// The identity of the current output for saved volumes: the route, and for a Bluetooth or external route
    /// (AirPlay, HDMI, CarPlay, line-out) the UID of its first output port, as ``AudioOutput/portKey(_:)`` keeps
    /// it (`nil` when unknown).
    public func currentOutput() -> AudioOutput {
        let route = currentRoute()
        let port = route.keepsVolumePerDevice ? currentOutputs().first.flatMap { AudioOutput.portKey($0.uid) } : nil
        return AudioOutput(route: route, portUID: port)
    }
}

/// An output port of a route (`AVAudioSessionPortDescription`).
public struct AudioPort: Sendable, Equatable, Hashable, Codable {
    /// `portType`'s raw value, e.g. `Speaker`, `Receiver`, `Headphones`, `BluetoothA2DPOutput`.
    public var type: String
    /// `uid`: stable for one device (a Bluetooth headset's UID is its address).
    public var uid: String

    /// Creates a port.
    public init(type: String, uid: String) {
        self.type = type
        self.uid = uid
    }
}

/// One output as far as its volume goes: a route, and for Bluetooth and external routes the device's port UID.
/// iOS keeps a volume per output: each Bluetooth device keeps its own (absolute volume), and so does each
/// AirPlay speaker, TV or car — a volume saved on one is never given to another.
public struct AudioOutput: Sendable, Equatable, Hashable {
    /// The route.
    public var route: AudioRoute
    /// The port UID of a Bluetooth headset or an external device (AirPlay, HDMI, CarPlay, line-out), when
    /// known; `nil` for other routes.
    public var portUID: String?

    /// Creates an output.
    public init(route: AudioRoute, portUID: String? = nil) {
        self.route = route
        self.portUID = portUID
    }

    /// The most characters of a port UID kept in a key: a Bluetooth address or an AirPlay UID is a few dozen.
    public static let portUIDLimit = 128

    /// A port UID as saved volumes are keyed by it: control characters shown as escapes (`\u{1B}`, the rule of
    /// every echo of input, `EchoedText`), then cut to ``portUIDLimit`` Unicode scalars and "…", so that a hostile
    /// or broken name can neither grow the store nor reach a trace or a terminal as it is. A key is its own key.
    /// `nil` for an empty UID (the port is unknown).
    public static func portKey(_ uid: String) -> String? {
        guard !uid.isEmpty else { return nil }
        let head = String(String.UnicodeScalarView(uid.unicodeScalars.prefix(portUIDLimit + 1)))
        let cleaned = EchoedText.clean(head, limit: .max).unicodeScalars
        guard cleaned.count > portUIDLimit else { return String(cleaned) }
        return String(String.UnicodeScalarView(cleaned.prefix(portUIDLimit))) + "…"
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

    /// Whether activating a session in this configuration leaves other apps' audio playing: `.ambient`, or
    /// `.mixWithOthers` (which `.duckOthers` and `.interruptSpokenAudioAndMixWithOthers` imply, AVAudioSession docs).
    public var mixesWithOthers: Bool {
        category == .ambient
            || !options.isDisjoint(with: [.mixWithOthers, .duckOthers, .interruptSpokenAudioAndMixWithOthers])
    }

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
    /// The built-in receiver (earpiece, `.builtInReceiver`), used by `.playAndRecord` without
    /// `.defaultToSpeaker`. It keeps a volume of its own, apart from the speaker's.
    case receiver

    /// Whether each device on this route keeps a volume of its own, told apart by its port UID
    /// (``AudioOutput/portUID``): ``bluetooth`` and ``external``.
    public var keepsVolumePerDevice: Bool { self == .bluetooth || self == .external }
}
