#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One SSDP announcement a device multicasts by itself (`NOTIFY * HTTP/1.1`, UDA 1.1 §1.2): it came up or is
/// still there (`ssdp:alive`), it is leaving (`ssdp:byebye`), or it will reboot with a new boot id
/// (`ssdp:update`).
struct SSDPAnnouncement: Sendable, Equatable {
    /// What the device announced.
    enum Kind: Sendable, Equatable { case alive, byebye, update }

    /// The largest datagram looked at; larger ones are ignored (the same cap as search answers).
    static let maxDatagramBytes = 8192

    var kind: Kind
    /// The unique service name, e.g. `uuid:5a1d…::upnp:rootdevice`.
    var usn: String
    /// The boot id: `BOOTID.UPNP.ORG` (UDA 1.1 §1.2.2), or libupnp's `01-NLS` (libupnp 1.8 sends no BOOTID
    /// but a fresh `01-NLS` UUID at every start — seen from gmediarender 0.0.x / libupnp 1.8.4 here).
    var bootID: String?
    /// `NEXTBOOTID.UPNP.ORG` of an `ssdp:update`.
    var nextBootID: String?

    /// The device part of ``usn`` (`uuid:…` before any `::`), lowercased.
    var udn: String {
        let text = usn.firstRange(ofText: "::").map { String(usn[..<$0.lowerBound]) } ?? usn
        return text.lowercased()
    }

    /// Parses one datagram; `nil` for anything that is not a well-formed NOTIFY with a USN and a known NTS.
    static func parse(_ datagram: Data) -> SSDPAnnouncement? {
        guard datagram.count <= maxDatagramBytes,
            datagram.starts(with: Data("NOTIFY * HTTP/1.".utf8)),
            let text = String(data: datagram, encoding: .utf8)
        else { return nil }
        var headers: [String: String] = [:]
        for line in text.components(separatedBy: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingSpaces().uppercased()
            // Only the few headers read are kept: a datagram of 4,000 tiny headers costs no memory.
            guard ["NTS", "USN", "BOOTID.UPNP.ORG", "NEXTBOOTID.UPNP.ORG", "01-NLS"].contains(name) else { continue }
            headers[name] = line[line.index(after: colon)...].trimmingSpaces()
        }
        let kind: Kind
        switch headers["NTS"]?.lowercased() {
        case "ssdp:alive": kind = .alive
        case "ssdp:byebye": kind = .byebye
        case "ssdp:update": kind = .update
        default: return nil
        }
        guard let usn = headers["USN"], !usn.isEmpty, usn.count <= 512,
            !usn.unicodeScalars.contains(where: PeerText.isUnsafe)
        else { return nil }
        func short(_ value: String?) -> String? { value.flatMap { $0.isEmpty || $0.count > 128 ? nil : $0 } }
        return SSDPAnnouncement(
            kind: kind, usn: usn, bootID: short(headers["BOOTID.UPNP.ORG"] ?? headers["01-NLS"]),
            nextBootID: short(headers["NEXTBOOTID.UPNP.ORG"]))
    }
}

/// What the announcements of the device we follow mean, one at a time. Pure, for tests.
///
/// A device that says goodbye and comes back, or comes back with another boot id, has restarted: it forgot
/// our event subscription and may be at another level. An `ssdp:alive` that cannot tell (no boot id, or the
/// first one seen) asks for a cheap check — renewing the subscription, which a restarted device refuses.
/// Announcements of every other device are ignored.
struct DevicePresence: Sendable, Equatable {
    /// What to do about an announcement.
    enum Verdict: Sendable, Equatable {
        /// Nothing: another device, a goodbye, or a periodic alive of the same boot.
        case none
        /// Renew the subscription now; if that fails, subscribe afresh and re-read.
        case check
        /// The device restarted: subscribe afresh and re-read at once.
        case restarted
    }

    /// The followed device's UDN (`uuid:…`), lowercased.
    let udn: String
    private(set) var bootID: String?
    private(set) var away = false

    init(udn: String) {
        let trimmed = udn.trimmingSpaces().lowercased()
        self.udn = trimmed.hasPrefix("uuid:") ? trimmed : "uuid:" + trimmed
    }

    mutating func note(_ announcement: SSDPAnnouncement) -> Verdict {
        guard announcement.udn == udn else { return .none }
        switch announcement.kind {
        case .byebye:
            away = true
            return .none
        case .update:
            if let next = announcement.nextBootID { bootID = next }
            return .none
        case .alive:
            let wasAway = away
            away = false
            let known = bootID
            if let id = announcement.bootID { bootID = id }
            if wasAway { return .restarted }
            if let known, let id = announcement.bootID { return known == id ? .none : .restarted }
            return .check
        }
    }
}
