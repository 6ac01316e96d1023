import Foundation

/// The user's volume on one route, saved before VolumeKit first moves that route's volume, so that a crash
/// or a kill cannot lose it (seed 000: "处理不了APP crash或者人为杀掉情况下的系统音量恢复" — "a crash or a kill
/// cannot be handled"). Stored through ``KeyValueStoreClient`` (`UserDefaults` on iOS).
public struct PendingRestore: Sendable, Equatable, Codable {
    /// The user's own volume on the route: what to give back.
    public var userVolume: Float
    /// The value VolumeKit holds the route at (its anchor).
    public var heldVolume: Float
    /// The route's volume when the output moved to another route while VolumeKit held it away from the
    /// user's: a reset in flight then lands on the new route, leaving this one here (`nil` otherwise).
    public var leftVolume: Float?
    /// The device's uptime when the record was written; a smaller uptime later means the device rebooted.
    public var savedAtUptime: TimeInterval
    /// When the device had booted, in seconds since 1970 (``DeviceInfo/bootTime``), when known: another boot
    /// time later means the device rebooted, whatever the uptimes say. `nil` in records written before it
    /// was saved (they still decode, and are judged by uptime alone).
    public var bootTime: TimeInterval?

    /// Creates a record without a boot time.
    public init(userVolume: Float, heldVolume: Float, savedAtUptime: TimeInterval, leftVolume: Float? = nil) {
        self.init(
            userVolume: userVolume, heldVolume: heldVolume, savedAtUptime: savedAtUptime, bootTime: nil,
            leftVolume: leftVolume)
    }

    /// Creates a record with the boot time of the device it was written on.
    public init(
        userVolume: Float, heldVolume: Float, savedAtUptime: TimeInterval, bootTime: TimeInterval?,
        leftVolume: Float? = nil
    ) {
        self.userVolume = userVolume
        self.heldVolume = heldVolume
        self.leftVolume = leftVolume
        self.savedAtUptime = savedAtUptime
        self.bootTime = bootTime
    }
}

/// Every route's pending restore, read and written as one JSON value under ``key``.
public struct PendingRestores: Sendable, Equatable {
    /// The key-value store key.
    public static let key = "VolumeKit.pendingRestores.v1"

    /// The records by route.
    public var byRoute: [AudioRoute: PendingRestore]

    /// Creates a set of records.
    public init(_ byRoute: [AudioRoute: PendingRestore] = [:]) {
        self.byRoute = byRoute
    }

    /// Reads the records; unreadable data counts as none (and is replaced on the next write).
    public static func load(from store: KeyValueStoreClient) -> PendingRestores {
        guard let data = store.data(key),
            let decoded = try? JSONDecoder().decode([String: PendingRestore].self, from: data)
        else {
            return PendingRestores()
        }
        var byRoute = [AudioRoute: PendingRestore]()
        for (name, record) in decoded {
            guard let route = AudioRoute(rawValue: name),
                record.userVolume.isFinite, (0...1).contains(record.userVolume),
                record.heldVolume.isFinite, (0...1).contains(record.heldVolume)
            else { continue }
            byRoute[route] = record
        }
        return PendingRestores(byRoute)
    }

    /// Writes the records (removes the key when there are none).
    public func save(to store: KeyValueStoreClient) {
        guard !byRoute.isEmpty else {
            store.setData(nil, Self.key)
            return
        }
        let encoded = Dictionary(uniqueKeysWithValues: byRoute.map { ($0.key.rawValue, $0.value) })
        store.setData(try? JSONEncoder().encode(encoded), Self.key)
    }
}
