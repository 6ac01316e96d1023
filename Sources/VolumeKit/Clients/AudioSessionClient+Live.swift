#if os(iOS)
import AVFoundation
import Foundation

extension AudioSessionClient {
    /// `AVAudioSession.sharedInstance()`.
    public static let live = AudioSessionClient(
        configuration: {
            let session = AVAudioSession.sharedInstance()
            return AudioSessionConfiguration(
                category: AudioCategory(session.category),
                options: AudioCategoryOptions(session.categoryOptions),
                allowsSystemSoundsDuringRecording: session.allowHapticsAndSystemSoundsDuringRecording)
        },
        setConfiguration: { configuration in
            let session = AVAudioSession.sharedInstance()
            // The app's mode (e.g. `.videoRecording` on a camera screen) is kept: only category and options change.
            try session.setCategory(configuration.category.avCategory, mode: session.mode, options: configuration.options.avOptions)
            if session.allowHapticsAndSystemSoundsDuringRecording != configuration.allowsSystemSoundsDuringRecording {
                try session.setAllowHapticsAndSystemSoundsDuringRecording(configuration.allowsSystemSoundsDuringRecording)
            }
        },
        setActive: { active, notifyOthers in
            try AVAudioSession.sharedInstance().setActive(active, options: notifyOthers ? .notifyOthersOnDeactivation : [])
        },
        isOtherAudioPlaying: { AVAudioSession.sharedInstance().isOtherAudioPlaying },
        currentRoute: { AudioRoute(AVAudioSession.sharedInstance().currentRoute) },
        primeOutput: { onMain { SilentPrimer.shared.play() } }
    )
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
        guard let player = try? AVAudioPlayer(data: SoundFileWriter.silence(duration: 0.05, container: .wav)) else { return }
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

extension AudioRoute {
    init(_ route: AVAudioSessionRouteDescription) {
        switch route.outputs.first?.portType {
        case .headphones?, .usbAudio?: self = .headphones
        case .bluetoothA2DP?, .bluetoothHFP?, .bluetoothLE?: self = .bluetooth
        case .airPlay?, .HDMI?, .carAudio?, .lineOut?: self = .external
        default: self = .speaker
        }
    }
}
#endif
