import Foundation

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

    /// Creates device facts.
    public init(osVersion: OSVersion, kind: DeviceKind) {
        self.osVersion = osVersion
        self.kind = kind
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

    /// Creates the bundle.
    public init(
        device: DeviceInfo,
        clock: ClockClient,
        systemVolume: SystemVolumeClient,
        audioSession: AudioSessionClient,
        lifecycle: AppLifecycleClient,
        systemSounds: SystemSoundClient,
        keyValueStore: KeyValueStoreClient,
        captureEvents: CaptureEventClient,
        sessionLease: AudioSessionLease
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
    }
}
