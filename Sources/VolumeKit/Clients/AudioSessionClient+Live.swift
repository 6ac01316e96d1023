#if os(iOS)
import AVFoundation
import Foundation

extension AudioSessionClient {
    /// `AVAudioSession.sharedInstance()`.
    public static let live: AudioSessionClient = {
        var client = liveOperations
        client.secondaryAudioShouldBeSilencedHint = {
            AVAudioSession.sharedInstance().secondaryAudioShouldBeSilencedHint
        }
        return client
    }()

    private static let liveOperations = AudioSessionClient(
        configuration: {
            let session = AVAudioSession.sharedInstance()
            let configuration = AudioSessionConfiguration(
                category: AudioCategory(session.category),
                options: AudioCategoryOptions(session.categoryOptions),
                allowsSystemSoundsDuringRecording: session.allowHapticsAndSystemSoundsDuringRecording)
            LiveSessionMemory.shared.read(configuration, options: session.categoryOptions)
            return configuration
        },
        setConfiguration: { configuration in
            try LiveSessionMemory.shared.apply(configuration)
        },
        setActive: { active, notifyOthers in
            try AVAudioSession.sharedInstance().setActive(
                active, options: notifyOthers ? .notifyOthersOnDeactivation : [])
        },
        isOtherAudioPlaying: { AVAudioSession.sharedInstance().isOtherAudioPlaying },
        currentRoute: { AudioRoute(AVAudioSession.sharedInstance().currentRoute) },
        primeOutput: { onMain { SilentPrimer.shared.play() } },
        currentOutputs: { AVAudioSession.sharedInstance().currentRoute.outputs.map(AudioPort.init) }
    )
}

/// What the live session client read and set.
///
/// - Restoring the app's configuration keeps every option it had, also those VolumeKit's
///   ``/VolumeKitCore/AudioCategoryOptions`` has no name for (e.g. `.overrideMutedMicrophoneInterruption`): the options
///   read with a configuration are the ones written back for an equal configuration.
/// - After a media-services reset the session's category is lost (`shared/facts/envelope.md`, Apple
///   "Responding to audio session interruptions"): the engines apply it again through
///   `AudioSessionLease.reapplyAfterMediaReset(on:)`, and the exact options read or set before are used.
final class LiveSessionMemory: Sendable {
    static let shared = LiveSessionMemory()

    private struct State {
        /// The last options read for each configuration (a handful at most).
        var reads: [(configuration: AudioSessionConfiguration, options: UInt)] = []
    }

    private let state = Locked(State())

    func read(_ configuration: AudioSessionConfiguration, options: AVAudioSession.CategoryOptions) {
        state.withLock { state in
            state.reads.removeAll { $0.configuration == configuration }
            state.reads.append((configuration, options.rawValue))
            if state.reads.count > 8 { state.reads.removeFirst() }
        }
    }

    func apply(_ configuration: AudioSessionConfiguration) throws {
        let raw = state.withLock { state in state.reads.last { $0.configuration == configuration }?.options }
        let options = raw.map(AVAudioSession.CategoryOptions.init(rawValue:)) ?? configuration.options.avOptions
        try set(configuration, options: options)
    }

    private func set(_ configuration: AudioSessionConfiguration, options: AVAudioSession.CategoryOptions) throws {
        let session = AVAudioSession.sharedInstance()
        // The app's mode (e.g. `.videoRecording` on a camera screen) is kept: only category and options change.
        try session.setCategory(configuration.category.avCategory, mode: session.mode, options: options)
        if session.allowHapticsAndSystemSoundsDuringRecording != configuration.allowsSystemSoundsDuringRecording {
            try session.setAllowHapticsAndSystemSoundsDuringRecording(configuration.allowsSystemSoundsDuringRecording)
        }
    }
}

/// Plays a short silent buffer once so `outputVolume` and its KVO become live (seed 001), mixing with
/// other audio: the app's session category decides whether it interrupts anything, and VolumeKit's default
/// (`.playback` + `.mixWithOthers`) does not.
@MainActor
final class SilentPrimer {
    static let shared = SilentPrimer()
    private var player: AVAudioPlayer?

    func play() {
        guard player?.isPlaying != true else { return }
        guard
            let silence = try? SoundFileWriter.silence(duration: AudioSessionClient.primerDuration, container: .wav),
            let player = try? AVAudioPlayer(data: silence)
        else { return }
        player.volume = 0
        player.play()
        self.player = player
    }
}

extension AudioCategory {
    init(_ category: AVAudioSession.Category) {
        switch category {
        case .ambient: self = .ambient
        case .playback: self = .playback
        case .record: self = .record
        case .playAndRecord: self = .playAndRecord
        case .multiRoute: self = .multiRoute
        default: self = .soloAmbient
        }
    }

    var avCategory: AVAudioSession.Category {
        switch self {
        case .ambient: .ambient
        case .soloAmbient: .soloAmbient
        case .playback: .playback
        case .record: .record
        case .playAndRecord: .playAndRecord
        case .multiRoute: .multiRoute
        }
    }
}

extension AudioCategoryOptions {
    private static let pairs: [(AudioCategoryOptions, AVAudioSession.CategoryOptions)] = [
        (.mixWithOthers, .mixWithOthers), (.duckOthers, .duckOthers), (.allowBluetooth, .allowBluetooth),
        (.defaultToSpeaker, .defaultToSpeaker), (.allowBluetoothA2DP, .allowBluetoothA2DP),
        (.allowAirPlay, .allowAirPlay), (.interruptSpokenAudioAndMixWithOthers, .interruptSpokenAudioAndMixWithOthers),
    ]

    init(_ options: AVAudioSession.CategoryOptions) {
        self = Self.pairs.reduce(into: []) { result, pair in if options.contains(pair.1) { result.insert(pair.0) } }
    }

    var avOptions: AVAudioSession.CategoryOptions {
        Self.pairs.reduce(into: []) { result, pair in if contains(pair.0) { result.insert(pair.1) } }
    }
}

extension AudioPort {
    init(_ port: AVAudioSessionPortDescription) {
        self.init(type: port.portType.rawValue, uid: port.uid)
    }
}

extension AudioRoute {
    init(_ route: AVAudioSessionRouteDescription) {
        switch route.outputs.first?.portType {
        // The earpiece keeps a volume of its own (a `.playAndRecord` session without `.defaultToSpeaker`).
        case .builtInReceiver?: self = .receiver
        case .headphones?, .usbAudio?: self = .headphones
        case .bluetoothA2DP?, .bluetoothHFP?, .bluetoothLE?: self = .bluetooth
        case .airPlay?, .HDMI?, .carAudio?, .lineOut?: self = .external
        default: self = .speaker
        }
    }
}
#endif
