#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The kind of device, as far as volume hardware goes.
public enum DeviceKind: String, Sendable, Equatable, CaseIterable, Codable {
    /// An iPhone: volume buttons and a Ring/Silent switch (or Action button).
    case iphone
    /// An iPad: volume buttons, no Ring/Silent switch on modern models, but Silent mode in Control Center,
    /// which a mute probe detects like the switch (`shared/facts/envelope.md`; MAME4iOS #62).
    case ipad
}

/// What VolumeKit needs to know of the device it runs on.
public struct DeviceInfo: Sendable, Equatable {
    /// The iOS version, e.g. `OSVersion(17, 4)`.
    public var osVersion: OSVersion
    /// iPhone or iPad.
    public var kind: DeviceKind
    /// When the device last booted, in seconds since 1970, read when the clients were made (`nil` when
    /// unknown); the live value is the kernel's (`KERN_BOOTTIME`), which does not move while the phone sleeps. A saved volume from an earlier boot is stale
    /// (``RecoveryRule``); uptimes alone cannot tell, as a new boot's uptime may already exceed the saved one.
    public var bootTime: TimeInterval?
    /// The model identifier, e.g. `iPhone15,2` (`utsname.machine` on iOS): the calibration is kept per model
    /// (``CalibrationStore``). `nil` when unknown.
    public var modelIdentifier: String?

    /// Creates device facts, with the boot time unknown.
    public init(osVersion: OSVersion, kind: DeviceKind) {
        self.init(osVersion: osVersion, kind: kind, bootTime: nil)
    }

    /// Creates device facts with the time the device booted (seconds since 1970).
    public init(osVersion: OSVersion, kind: DeviceKind, bootTime: TimeInterval?) {
        self.osVersion = osVersion
        self.kind = kind
        self.bootTime = bootTime
    }

    /// The boot time from a wall-clock reading and the uptime at the same moment: `wallClock - uptime`.
    /// It moves with the wall clock (network time corrections), which ``RecoveryRule/bootTimeTolerance``
    /// allows for — and, when the uptime excludes sleep (Apple's `ProcessInfo.systemUptime` is the time the
    /// system has been *awake*), by every sleep: the live clients use it only when the kernel's boot time
    /// cannot be read.
    public static func bootTime(wallClock: TimeInterval, uptime: TimeInterval) -> TimeInterval {
        wallClock - uptime
    }
}

/// An iOS version, compared by major then minor.
public struct OSVersion: Sendable, Equatable, Comparable, Hashable, CustomStringConvertible {
    /// The major version (15 in 15.4).
    public var major: Int
    /// The minor version (4 in 15.4).
    public var minor: Int

    /// Creates a version.
    public init(_ major: Int, _ minor: Int = 0) {
        self.major = major
        self.minor = minor
    }

    /// Parses "17", "17.2" or "17.2.1" (the patch is ignored); `nil` for anything else.
    public init?(parsing text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), let major = Int(parts[0]), major > 0 else { return nil }
        let minor = parts.count > 1 ? Int(parts[1]) : 0
        guard let minor, minor >= 0 else { return nil }
        self.init(major, minor)
    }

    /// Orders versions.
    public static func < (lhs: OSVersion, rhs: OSVersion) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }

    /// "17.4".
    public var description: String { "\(major).\(minor)" }
}

/// Every client VolumeKit reaches the system through, in one value.
///
/// The live value lives in the `VolumeKit` module (iOS); `SimulatedDevice.clients` in `VolumeKitTesting`
/// gives one backed by a simulated iPhone or iPad in virtual time.
public struct VolumeKitClients: Sendable {
    /// Device facts.
    public var device: DeviceInfo
    /// Time.
    public var clock: ClockClient
    /// The output volume and the volume view.
    public var systemVolume: SystemVolumeClient
    /// The audio session.
    public var audioSession: AudioSessionClient
    /// App lifecycle, interruptions, routes.
    public var lifecycle: AppLifecycleClient
    /// AudioServices sounds.
    public var systemSounds: SystemSoundClient
    /// Persistent values.
    public var keyValueStore: KeyValueStoreClient
    /// Camera capture events (iOS 17.2+).
    public var captureEvents: CaptureEventClient
    /// VolumeKit's shared hold on the audio session (one per app process).
    public var sessionLease: AudioSessionLease
    /// Where button capture tells the HUD it holds the volume (one per app process, like the lease): a
    /// ``VolumeButtonsEngine`` and a ``VolumeHUDEngine`` made from the same clients share it.
    public var holdBoard: VolumeHoldBoard
    /// Told of every diagnostic a ``VolumeButtonsEngine`` on these clients raises, just before the engine's own
    /// `onDiagnostic` (the app's) is called: nothing by default. ``recording(to:feature:)`` records each one in
    /// the trace (a `diagnostic` record, `docs/trace.md`), so a device and the simulator trace diagnostics
    /// through the same path, with no code in the app.
    public var diagnosticObserver: @Sendable (VolumeButtonsDiagnostic) -> Void = { _ in }

    /// Creates the bundle. Give every bundle of one app process the same `holdBoard` (as the live clients and
    /// `SimulatedDevice` do), like the same `sessionLease`, so that its features meet; by default the bundle has a
    /// hold board of its own, and features on it meet only if they share this bundle.
    public init(
        device: DeviceInfo,
        clock: ClockClient,
        systemVolume: SystemVolumeClient,
        audioSession: AudioSessionClient,
        lifecycle: AppLifecycleClient,
        systemSounds: SystemSoundClient,
        keyValueStore: KeyValueStoreClient,
        captureEvents: CaptureEventClient,
        sessionLease: AudioSessionLease,
        holdBoard: VolumeHoldBoard = VolumeHoldBoard()
    ) {
        self.device = device
        self.clock = clock
        self.systemVolume = systemVolume
        self.audioSession = audioSession
        self.lifecycle = lifecycle
        self.systemSounds = systemSounds
        self.keyValueStore = keyValueStore
        self.captureEvents = captureEvents
        self.sessionLease = sessionLease
        self.holdBoard = holdBoard
    }
}
