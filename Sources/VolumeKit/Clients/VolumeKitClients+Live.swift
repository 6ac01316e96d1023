#if os(iOS)
import UIKit

extension DeviceInfo {
    /// This device: its iOS version and idiom.
    @MainActor
    public static var current: DeviceInfo {
        let parts = UIDevice.current.systemVersion.split(separator: ".").compactMap { Int($0) }
        let version = OSVersion(parts.first ?? 15, parts.count > 1 ? parts[1] : 0)
        var device = DeviceInfo(
            osVersion: version, kind: UIDevice.current.userInterfaceIdiom == .pad ? .ipad : .iphone,
            bootTime: kernelBootTime
                ?? DeviceInfo.bootTime(
                    wallClock: Date().timeIntervalSince1970, uptime: ProcessInfo.processInfo.systemUptime))
        device.modelIdentifier = machineName
        return device
    }

    /// The model identifier (`utsname.machine`, e.g. `iPhone15,2`): the calibration is kept per model.
    private static var machineName: String? {
        var system = utsname()
        guard uname(&system) == 0 else { return nil }
        let name = withUnsafeBytes(of: &system.machine) { bytes in
            String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return name.isEmpty ? nil : name
    }

    /// The kernel's record of when this boot began (`sysctl` `KERN_BOOTTIME`, seconds since 1970).
    ///
    /// Not the wall clock minus `ProcessInfo.systemUptime`: that uptime is "the amount of time the system has
    /// been awake" (Apple's documentation of `systemUptime`), so the difference moves later by every period
    /// the phone slept, and a record saved before the phone was locked for a minute would look like it came
    /// from another boot — the user's volume would not come back after a crash. The kernel's value does not
    /// move with sleep; it does move when the wall clock is set (network time corrections are within
    /// ``/VolumeKitCore/RecoveryRule/bootTimeTolerance``; a manual change of the time between a crash and the next
    /// launch makes the record look stale, and the volume stays where VolumeKit held it — a documented limit).
    /// It is the boot time the privacy manifest declares (`NSPrivacyAccessedAPICategorySystemBootTime`).
    private static var kernelBootTime: TimeInterval? {
        var mib: [Int32] = [CTL_KERN, KERN_BOOTTIME]
        var boot = timeval()
        var size = MemoryLayout<timeval>.size
        guard sysctl(&mib, 2, &boot, &size, nil, 0) == 0, size == MemoryLayout<timeval>.size, boot.tv_sec > 0 else {
            return nil
        }
        return TimeInterval(boot.tv_sec) + TimeInterval(boot.tv_usec) / 1_000_000
    }
}

extension VolumeKitClients {
    /// The real system. `captureView` hosts the `AVCaptureEventInteraction` for
    /// ``/VolumeKitCore/ButtonStrategy/captureEvents`` (a view of the camera screen).
    @available(
        iOSApplicationExtension, unavailable, message: "needs the app (UIApplication): see the App extensions article"
    )
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
