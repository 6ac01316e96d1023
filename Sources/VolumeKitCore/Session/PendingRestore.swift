#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    /// The lowest value VolumeKit may have left on the route while holding it at ``heldVolume``: at most the lowest
    /// it set there (its nudges below it after down presses), other than the user's own volume and values more than
    /// ``RecoveryRule/tolerance`` below it and ``leftVolume`` (the rule never looks there) — or, for a route the
    /// output left with no set of VolumeKit's on its way, where it was left (``leftVolume``): its nudges below that
    /// are not on the route. ``RecoveryRule`` takes nothing lower (by more than a rounded read) for where VolumeKit
    /// left it — a Control Center value a little below the held one is the user's. `nil` in records written before
    /// it was saved (they keep the rule's ``RecoveryRule/tolerance``).
    public var lowestVolume: Float?
    /// The last reset VolumeKit set far below ``heldVolume`` (more than ``RecoveryRule/tolerance``) while it had not
    /// set the held value again — aimed below a press it foresaw held in a burst of down presses near a rail (iOS 11+
    /// refuses a set at or above where a held down press started, seed 000; ``VolumeStepMachine/aimedReset``), or a
    /// nudge below the value before a down step from such a value (also where nothing was aimed: a refused burst
    /// that walked the volume down has its resets go a nudge below where each step began). Its
    /// sets in flight land there, or the ones before it a few nudges above — also on this route after the output
    /// moved away, landings not seen yet — so a recovery from there (up to ``VolumeStepMachine/residueTolerance``
    /// above) gives the user's volume back, as from ``leftVolume``. `nil` otherwise, and in records written before
    /// it was saved.
    public var aimedVolume: Float?
    /// The device's uptime when the record was written; a smaller uptime later means the device rebooted.
    public var savedAtUptime: TimeInterval
    /// When the device had booted, in seconds since 1970 (``DeviceInfo/bootTime``), when known: another boot
    /// time later means the device rebooted, whatever the uptimes say. `nil` in records written before it
    /// was saved (they still decode, and are judged by uptime alone).
    public var bootTime: TimeInterval?
    /// The Bluetooth headset or external device (AirPlay, HDMI, CarPlay, line-out) the record is for (its port
    /// UID), set by ``PendingRestores/subscript(_:)``; `nil` for other routes, and when the port is unknown: in
    /// records written before such devices were told apart (external ones: under
    /// ``PendingRestores/version1Key``) or by a client that names no ports. Those apply to the first device of
    /// the route that VolumeKit reads them on, and it claims them.
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
/// Each Bluetooth headset and each external device (an AirPlay speaker, a TV, a car) keeps its own volume, so
/// each has its own record, keyed by its port UID: on each of these routes the last one written is ``byRoute``'s
/// entry, the others wait in ``otherHeadsets`` and ``otherExternalPorts``. Read and write through
/// ``subscript(_:)`` with the current ``AudioOutput``.
///
/// Records written under ``version1Key`` (before external devices were told apart) are read when no ``key``
/// is stored, their external record as one whose port is unknown; the next write removes them.
public struct PendingRestores: Sendable, Equatable {
    /// The key-value store key.
    public static let key = "VolumeKit.pendingRestores.v2"
    /// The key of earlier versions, whose one `external` record was shared by every AirPlay speaker, TV and
    /// car: read (and migrated) only when ``key`` holds nothing.
    public static let version1Key = "VolumeKit.pendingRestores.v1"
    /// The prefix of the stored keys of ``otherHeadsets`` (followed by the port UID).
    static let headsetPrefix = "bluetooth:"
    /// The prefix of the stored keys of ``otherExternalPorts`` (followed by the port UID).
    static let externalPrefix = "external:"
    /// The most records of other devices kept per route; a new one beyond it drops the one saved longest ago.
    public static let otherPortsLimit = 32

    /// The records by route; `.bluetooth` and `.external` hold the last device's (its ``PendingRestore/portUID``).
    public var byRoute: [AudioRoute: PendingRestore]
    /// The records of the other Bluetooth headsets, by port UID.
    public var otherHeadsets: [String: PendingRestore]
    /// The records of the other external devices (AirPlay, HDMI, CarPlay, line-out), by port UID.
    public var otherExternalPorts: [String: PendingRestore] = [:]
    /// Read from ``version1Key``: the next ``save(to:)`` removes it.
    var readsVersion1 = false

    /// Creates a set of records by route.
    public init(_ byRoute: [AudioRoute: PendingRestore] = [:]) {
        self.init(byRoute, otherHeadsets: [:])
    }

    /// Creates a set of records by route, and the other Bluetooth headsets' by port UID.
    public init(_ byRoute: [AudioRoute: PendingRestore], otherHeadsets: [String: PendingRestore]) {
        self.byRoute = byRoute
        self.otherHeadsets = otherHeadsets
    }

    /// Creates a set of records by route, and the other Bluetooth headsets' and external devices' by port UID.
    public init(
        _ byRoute: [AudioRoute: PendingRestore], otherHeadsets: [String: PendingRestore],
        otherExternalPorts: [String: PendingRestore]
    ) {
        self.init(byRoute, otherHeadsets: otherHeadsets)
        self.otherExternalPorts = otherExternalPorts
    }

    /// Equal records (where they were read from does not count).
    public static func == (lhs: PendingRestores, rhs: PendingRestores) -> Bool {
        lhs.byRoute == rhs.byRoute && lhs.otherHeadsets == rhs.otherHeadsets
            && lhs.otherExternalPorts == rhs.otherExternalPorts
    }

    /// The other devices' records of `route`, when its devices keep their own (``AudioRoute/keepsVolumePerDevice``).
    private static func others(of route: AudioRoute) -> WritableKeyPath<PendingRestores, [String: PendingRestore]>? {
        switch route {
        case .bluetooth: \.otherHeadsets
        case .external: \.otherExternalPorts
        default: nil
        }
    }

    /// The record for `output`: by route, and for a Bluetooth headset or an external device with a known UID,
    /// that device's own (a record whose port is unknown — written before such devices were told apart —
    /// applies to the first device of its route read, which claims it on the next write). Setting one keeps
    /// the other devices' records.
    public subscript(output: AudioOutput) -> PendingRestore? {
        get {
            guard let others = Self.others(of: output.route), let port = output.portUID else {
                return byRoute[output.route]
            }
            if let last = byRoute[output.route], last.portUID == nil || last.portUID == port { return last }
            return self[keyPath: others][port]
        }
        set {
            let route = output.route
            guard let others = Self.others(of: route), let port = output.portUID else {
                byRoute[route] = newValue
                return
            }
            if let last = byRoute[route], let other = last.portUID, other != port {
                guard var record = newValue else {
                    self[keyPath: others][port] = nil
                    return
                }
                self[keyPath: others][other] = last
                record.portUID = port
                byRoute[route] = record
                self[keyPath: others][port] = nil
                Self.bound(&self[keyPath: others])
                return
            }
            var record = newValue
            record?.portUID = port
            byRoute[route] = record
            self[keyPath: others][port] = nil
        }
    }

    /// Drops the records saved longest ago (by wall-clock time: boot time plus uptime) beyond ``otherPortsLimit``.
    private static func bound(_ records: inout [String: PendingRestore]) {
        while records.count > otherPortsLimit {
            let oldest = records.min { a, b in
                ((a.value.bootTime ?? 0) + a.value.savedAtUptime, a.key)
                    < ((b.value.bootTime ?? 0) + b.value.savedAtUptime, b.key)
            }
            guard let oldest else { return }
            records[oldest.key] = nil
        }
    }

    /// Whether no record waits, for any route.
    public var isEmpty: Bool { byRoute.isEmpty && otherHeadsets.isEmpty && otherExternalPorts.isEmpty }

    /// Reads the records from ``key``, or from ``version1Key`` when ``key`` holds nothing; unreadable data counts
    /// as none (and is replaced on the next write). A version 1 `external` record is one whose port is unknown.
    /// Records of a port no ``AudioOutput/portKey(_:)`` can give (too long, or with control characters) are left
    /// out: no output would ever match them.
    public static func load(from store: KeyValueStoreClient) -> PendingRestores {
        let current = store.data(key)
        let old = current == nil ? store.data(version1Key) : nil
        var records = PendingRestores()
        records.readsVersion1 = old != nil
        guard let data = current ?? old, let decoded = decodeStored(data) else { return records }
        for (name, record) in decoded {
            guard record.userVolume.isFinite, (0...1).contains(record.userVolume),
                record.heldVolume.isFinite, (0...1).contains(record.heldVolume)
            else { continue }
            var record = record
            if let route = AudioRoute(rawValue: name) {
                if let port = record.portUID, AudioOutput.portKey(port) != port { continue }
                records.byRoute[route] = record
            } else if let (route, _, port) = portName(name), let others = others(of: route),
                AudioOutput.portKey(port) == port
            {
                record.portUID = port
                records[keyPath: others][port] = record
            }
        }
        bound(&records.otherHeadsets)
        bound(&records.otherExternalPorts)
        return records
    }

    /// The stored name's prefix of each route whose devices keep their own records.
    private static let prefixes = [(headsetPrefix, AudioRoute.bluetooth), (externalPrefix, .external)]

    /// The route, prefix and port UID of a stored name `bluetooth:<UID>` or `external:<UID>`.
    private static func portName(_ name: String) -> (route: AudioRoute, prefix: String, port: String)? {
        for (prefix, route) in prefixes where name.hasPrefix(prefix) && name.count > prefix.count {
            return (route, prefix, String(name.dropFirst(prefix.count)))
        }
        return nil
    }

    /// Writes the records under ``key`` (removes it when there are none); then, if they were read from
    /// ``version1Key``, removes that (after the write: an end between the two loses no record).
    public func save(to store: KeyValueStoreClient) {
        defer { if readsVersion1 { store.setData(nil, Self.version1Key) } }
        guard !isEmpty else {
            store.setData(nil, Self.key)
            return
        }
        var encoded = Dictionary(uniqueKeysWithValues: byRoute.map { ($0.key.rawValue, $0.value) })
        for (prefix, route) in Self.prefixes {
            guard let others = Self.others(of: route) else { continue }
            for (port, record) in self[keyPath: others] { encoded[prefix + port] = record }
        }
        store.setData(Self.encodeStored(encoded), Self.key)
    }

    /// The stored form: each record by its name (a route's raw value, or ``headsetPrefix`` or ``externalPrefix``
    /// and a port UID).
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

    /// Stored `data` with every port UID — in the `bluetooth:<UID>` and `external:<UID>` names and the
    /// ``PendingRestore/portUID`` values — replaced by `name(uid)`, re-encoded as ``save(to:)`` writes it
    /// (names are asked for in the order of the sorted stored names, a record's own UID first); `nil` when
    /// `data` is not stored records or names no port.
    static func renamingPorts(in data: Data, _ name: (String) -> String) -> Data? {
        guard let decoded = decodeStored(data),
            decoded.contains(where: { portName($0.key) != nil || $0.value.portUID != nil })
        else { return nil }
        var named: [String: PendingRestore] = [:]
        for (key, record) in decoded.sorted(by: { $0.key < $1.key }) {
            var record = record
            record.portUID = record.portUID.map(name)
            named[portName(key).map { $0.prefix + name($0.port) } ?? key] = record
        }
        return encodeStored(named)
    }
}
