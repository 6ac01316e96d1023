#if os(iOS)
import AudioToolbox
import Foundation
import VolumeKitCore

extension SystemSoundClient {
    /// AudioServices on this device: `AudioServicesCreateSystemSoundID`, the `…WithCompletion` play functions
    /// (iOS 9+), `kAudioServicesPropertyIsUISound` and `AudioServicesDisposeSystemSoundID`
    /// (`shared/facts/system-sounds.md` §3).
    ///
    /// The completion runs on AudioServices' own serial queue, "for every attempt to play a system sound
    /// irrespective of success or failure" (AudioServices.h).
    public static let live = SystemSoundClient(
        create: { url in
            var id: VolumeKitCore.SystemSoundID = 0
            let status = AudioServicesCreateSystemSoundID(url as CFURL, &id)
            guard status == noErr else { throw SystemSoundError(status: status) }
            return id
        },
        play: { id, alert, completion in
            if alert {
                AudioServicesPlayAlertSoundWithCompletion(id) { completion() }
            } else {
                AudioServicesPlaySystemSoundWithCompletion(id) { completion() }
            }
        },
        setIsUISound: { id, isUISound in
            var specifier = id
            var value: UInt32 = isUISound ? 1 : 0
            _ = AudioServicesSetProperty(
                kAudioServicesPropertyIsUISound, UInt32(MemoryLayout<VolumeKitCore.SystemSoundID>.size), &specifier,
                UInt32(MemoryLayout<UInt32>.size), &value
            )
        },
        dispose: { id in
            _ = AudioServicesDisposeSystemSoundID(id)
        }
    )
}
#endif
