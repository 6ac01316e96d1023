#if os(iOS)
import UIKit

extension DeviceInfo {
    /// This device: its iOS version and idiom.
    @MainActor
    public static var current: DeviceInfo {
        let parts = UIDevice.current.systemVersion.split(separator: ".").compactMap { Int($0) }
        let version = OSVersion(parts.first ?? 15, parts.count > 1 ? parts[1] : 0)
        return DeviceInfo(
            osVersion: version, kind: UIDevice.current.userInterfaceIdiom == .pad ? .ipad : .iphone,
            bootTime: DeviceInfo.bootTime(
                wallClock: Date().timeIntervalSince1970, uptime: ProcessInfo.processInfo.systemUptime))
    }
}

extension VolumeKitClients {
    /// The real system. `captureView` hosts the `AVCaptureEventInteraction` for
    /// ``ButtonStrategy/captureEvents`` (a view of the camera screen).
    @MainActor
    public static func live(captureView: UIView? = nil) -> VolumeKitClients {
        VolumeKitClients(
            device: .current,
            clock: .live,
            systemVolume: .live,
            audioSession: .live,
            lifecycle: .live,
            systemSounds: .live,
            keyValueStore: .live,
            captureEvents: .live(attachingTo: captureView),
            sessionLease: sharedSessionLease,
            holdBoard: sharedHoldBoard
        )
    }

    /// The app has one audio session, so every live bundle shares one lease.
    private static let sharedSessionLease = AudioSessionLease()
    /// And one system volume, so every live bundle shares one hold board.
    private static let sharedHoldBoard = VolumeHoldBoard()
}
#endif
