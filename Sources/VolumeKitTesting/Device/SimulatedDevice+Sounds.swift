import Foundation
import VolumeKitCore

/// The device's system-sound state: created sound IDs.
struct SimulatedSounds {
    var nextID: SystemSoundID = 4096
    var created: [SystemSoundID: URL] = [:]
}

extension SimulatedDevice {
    /// How long a created system sound plays when nothing stops it.
    static let defaultSoundDuration: TimeInterval = 0.2

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
                    guard self.isCurrent(launched) else { return }
                    // Playing any sound makes outputVolume live for the app (seed 001).
                    self.app?.hasPlayedAudio = true
                    self.record(.systemSound(self.now, id, played: true))
                    self.inApp(after: Self.defaultSoundDuration) { completion() }
                }
            },
            setIsUISound: { _, _ in },
            dispose: { [unowned self] id in self.locked { _ = self.sounds.created.removeValue(forKey: id) } }
        )
    }
}
