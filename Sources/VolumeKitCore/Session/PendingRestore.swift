import Foundation

/// The user's volume on one route, saved before VolumeKit first moves that route's volume, so that a crash
/// or a kill cannot lose it (seed 000: "处理不了APP crash或者人为杀掉情况下的系统音量恢复" — "a crash or a kill
/// cannot be handled"). Stored through ``KeyValueStoreClient`` (`UserDefaults` on iOS).
public struct PendingRestore: Sendable, Equatable, Codable {
    /// The user's own volume on the route: what to give back.
    public var userVolume: Float
    /// The value VolumeKit holds the route at (its anchor).
    public var heldVolume: Float
    /// Where VolumeKit left the route's volume away from ``heldVolume``: when the output moved to another route
    /// while VolumeKit held it away from the user's (a reset in flight then lands on the new route, leaving this
    /// one here), or while capturing, where presses faster than its resets took it (more than one press from the
    /// held value, up to a rail); `nil` otherwise.
    public var leftVolume: Float?
    /// `true` when VolumeKit had set a nudge below ``heldVolume`` after a down press and not set the held value
    /// itself since (it does once the buttons are quiet): the held value exactly is then not where VolumeKit
    /// left the route, and a press snapped onto it (the 1/16 grid) is the user's. `nil` otherwise, and in
    /// records written before it was saved.
    public var nudgedBelowHeld: Bool?
    /// `true` when VolumeKit had set the held value again after a nudge below it and not yet seen it land (iOS
    /// 11+ refuses sets during a held down press, seed 000): the volume may be at the nudge or at the held value,
    /// and on a device whose presses snap to the 1/16 grid a press from the nudge ends on the held value too.
    /// ``RecoveryRule`` still takes the held value for VolumeKit's (the commoner case: the set landed); a recovery
    /// that gives the user's volume back from exactly there reports
    /// ``VolumeButtonsDiagnostic/recoveredAtUnconfirmedSet``. `nil` otherwise, and in records written before it
    /// was saved.
    public var heldSetUnconfirmed: Bool?
    /// At most the lowest value VolumeKit set on the route while holding it at ``heldVolume`` (its nudges
    /// below it after down presses), other than the user's own volume and values more than
    /// ``RecoveryRule/tolerance`` below it and ``leftVolume`` (the rule never looks there): ``RecoveryRule``
    /// takes nothing lower (by more than a rounded read) for where VolumeKit left it — a Control Center value a
    /// little below the held one is the user's. `nil` in records written before it was saved (they keep the
    /// rule's ``RecoveryRule/tolerance``).
    public var lowestVolume: Float?
    /// The device's uptime when the record was written; a smaller uptime later means the device rebooted.
    public var savedAtUptime: TimeInterval
    /// When the device had booted, in seconds since 1970 (``DeviceInfo/bootTime``), when known: another boot
    /// time later means the device rebooted, whatever the uptimes say. `nil` in records written before it
    /// was saved (they still decode, and are judged by uptime alone).
    public var bootTime: TimeInterval?
    /// The Bluetooth headset the record is for (its port UID), set by ``PendingRestores/subscript(_:)``;
    /// `nil` for other routes, and in Bluetooth records written before headsets were told apart (those
    /// apply to whichever headset is current).
    public var portUID: String?

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

/// Every output's pending restore, read and written as one JSON value under ``key``.
///
/// Each Bluetooth headset keeps its own volume, so each has its own record, keyed by its port UID: the
/// last one written is ``byRoute``'s `.bluetooth` entry, the others wait in ``otherHeadsets``. Read and write
/// through ``subscript(_:)`` with the current ``AudioOutput``.
public struct PendingRestores: Sendable, Equatable {
    /// The key-value store key.
    public static let key = "VolumeKit.pendingRestores.v1"
    /// The prefix of the stored keys of ``otherHeadsets`` (followed by the port UID).
    static let headsetPrefix = "bluetooth:"

    /// The records by route; `.bluetooth` holds the last Bluetooth headset's (its ``PendingRestore/portUID``).
    public var byRoute: [AudioRoute: PendingRestore]
    /// The records of the other Bluetooth headsets, by port UID.
    public var otherHeadsets: [String: PendingRestore]

    /// Creates a set of records by route.
    public init(_ byRoute: [AudioRoute: PendingRestore] = [:]) {
        self.init(byRoute, otherHeadsets: [:])
    }

    /// Creates a set of records by route, and the other Bluetooth headsets' by port UID.
    public init(_ byRoute: [AudioRoute: PendingRestore], otherHeadsets: [String: PendingRestore]) {
        self.byRoute = byRoute
        self.otherHeadsets = otherHeadsets
    }

    /// The record for `output`: by route, and for a Bluetooth headset with a known UID, that headset's own
    /// (a Bluetooth record without a UID, written before headsets were told apart, applies to any headset).
    /// Setting one keeps the other headsets' records.
    public subscript(output: AudioOutput) -> PendingRestore? {
        get {
            guard output.route == .bluetooth, let port = output.portUID else { return byRoute[output.route] }
            if let last = byRoute[.bluetooth], last.portUID == nil || last.portUID == port { return last }
            return otherHeadsets[port]
        }
        set {
            guard output.route == .bluetooth, let port = output.portUID else {
                byRoute[output.route] = newValue
                return
            }
            if let last = byRoute[.bluetooth], let other = last.portUID, other != port {
                guard var record = newValue else {
                    otherHeadsets[port] = nil
                    return
                }
                otherHeadsets[other] = last
                record.portUID = port
                byRoute[.bluetooth] = record
                otherHeadsets[port] = nil
                return
            }
            var record = newValue
            record?.portUID = port
            byRoute[.bluetooth] = record
            otherHeadsets[port] = nil
        }
    }

    /// Whether no record waits, for any route.
    public var isEmpty: Bool { byRoute.isEmpty && otherHeadsets.isEmpty }

    /// Reads the records; unreadable data counts as none (and is replaced on the next write).
    public static func load(from store: KeyValueStoreClient) -> PendingRestores {
        guard let data = store.data(key), let decoded = decodeStored(data) else {
            return PendingRestores()
        }
        var records = PendingRestores()
        for (name, record) in decoded {
            guard record.userVolume.isFinite, (0...1).contains(record.userVolume),
                record.heldVolume.isFinite, (0...1).contains(record.heldVolume)
            else { continue }
            if let route = AudioRoute(rawValue: name) {
                records.byRoute[route] = record
            } else if name.hasPrefix(headsetPrefix), name.count > headsetPrefix.count {
                var record = record
                let port = String(name.dropFirst(headsetPrefix.count))
                record.portUID = port
                records.otherHeadsets[port] = record
            }
        }
        return records
    }

    /// Writes the records (removes the key when there are none).
    public func save(to store: KeyValueStoreClient) {
        guard !isEmpty else {
            store.setData(nil, Self.key)
            return
        }
        var encoded = Dictionary(uniqueKeysWithValues: byRoute.map { ($0.key.rawValue, $0.value) })
        for (port, record) in otherHeadsets { encoded[Self.headsetPrefix + port] = record }
        store.setData(Self.encodeStored(encoded), Self.key)
    }

    /// The stored form: each record by its name (a route's raw value, or ``headsetPrefix`` + a port UID).
    static func decodeStored(_ data: Data) -> [String: PendingRestore]? {
        try? JSONDecoder().decode([String: PendingRestore].self, from: data)
    }

    /// The stored form's bytes, with sorted keys: the same records are the same bytes in every process
    /// (traces, fixtures, diffs).
    static func encodeStored(_ records: [String: PendingRestore]) -> Data? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try? encoder.encode(records)
    }
}
