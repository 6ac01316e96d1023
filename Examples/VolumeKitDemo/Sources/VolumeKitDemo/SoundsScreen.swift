#if os(iOS)
import SwiftUI
import VolumeKit

/// System sounds and vibration through ``SystemSoundPlayer``: pick a sound and how to play it.
@MainActor
struct SoundsScreen: View {
    private static let sounds: [(String, SystemSound)] = [
        ("Tri-tone", .triTone), ("Chime", .chime), ("Glass", .glass), ("Horn", .horn), ("Bell", .bell),
        ("Electronic", .electronic), ("New mail", .newMail), ("Mail sent", .mailSent), ("Received message", .receivedMessage),
    ]

    @State private var player = SystemSoundPlayer()
    @State private var mode = SystemSoundPlaybackMode.soundOnly
    @State private var playing: SystemSound?

    var body: some View {
        List {
            Section("How") {
                Picker("Mode", selection: $mode) {
                    Text("Sound").tag(SystemSoundPlaybackMode.soundOnly)
                    Text("Vibrate").tag(SystemSoundPlaybackMode.vibrateOnly)
                    Text("Both").tag(SystemSoundPlaybackMode.soundAndVibrate)
                    Text("Alert").tag(SystemSoundPlaybackMode.alert)
                }
                .pickerStyle(.segmented)
            }
            Section("Sounds") {
                ForEach(Self.sounds, id: \.1) { name, sound in
                    Button {
                        play(sound)
                    } label: {
                        HStack {
                            Text(name)
                            Spacer()
                            if playing == sound { Image(systemName: "speaker.wave.2.fill") }
                        }
                    }
                }
            }
            Section("Vibration") {
                Button("Vibrate") { Task { await player.vibrate() } }
            }
            Section {
                Text("With the switch on Silent, sounds are skipped; vibration follows the user's settings.")
                    .font(.footnote).foregroundColor(.secondary)
            }
        }
        .navigationTitle("Sounds")
    }

    private func play(_ sound: SystemSound) {
        playing = sound
        Task {
            await player.play(sound, mode: mode)
            if playing == sound { playing = nil }
        }
    }
}
#endif
