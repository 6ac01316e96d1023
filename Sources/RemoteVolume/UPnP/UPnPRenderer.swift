import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A UPnP AV MediaRenderer's RenderingControl service as a ``RemoteVolumeDevice`` (Sonos, TVs, receivers,
/// `gmediarender`): SOAP `GetVolume` / `SetVolume` / `GetMute` / `SetMute` on instance 0, channel `Master`
/// (RenderingControl:1 §2.4), and GENA events for changes made on the device itself.
///
/// ```swift
/// let found = try await SSDP.discover(timeout: 3)
/// let renderer = try await UPnPRenderer.connect(to: found[0].location)
/// try await renderer.setVolume(30)
/// ```
public final class UPnPRenderer: RemoteVolumeDevice {
    /// The description URL it was connected through.
    public let location: URL
    /// What its description says.
    public let description: UPnPDeviceDescription
    /// The volume range from its SCPD (0…100 when the SCPD gives none).
    public let volumeRange: ClosedRange<Int>
    /// The deadline for each request, in seconds.
    public let requestTimeout: TimeInterval
    /// The GENA subscription length asked for, in seconds; it is renewed at half of what the device grants.
    public let subscriptionTimeout: Int

    /// The device's friendly name.
    public var displayName: String {
        description.friendlyName.isEmpty ? location.absoluteString : description.friendlyName
    }

    /// The largest reply read from a device; larger ones fail with ``RemoteVolumeError/replyTooLarge(limit:)``.
    public static let maxReplyBytes = 256 * 1024

    /// Creates a renderer from a description already fetched.
    public init(
        location: URL, description: UPnPDeviceDescription, volumeRange: ClosedRange<Int> = 0...100,
        requestTimeout: TimeInterval = 3, subscriptionTimeout: Int = 300
    ) {
        self.location = location
        self.description = description
        self.volumeRange = volumeRange
        self.requestTimeout = requestTimeout
        self.subscriptionTimeout = subscriptionTimeout
    }

    /// Fetches the description at `location` (and the RenderingControl SCPD for the volume range).
    public static func connect(to location: URL, requestTimeout: TimeInterval = 3, subscriptionTimeout: Int = 300)
        async throws -> UPnPRenderer
    {
        try await connect(
            to: location, requestTimeout: requestTimeout, subscriptionTimeout: subscriptionTimeout, deadline: nil)
    }

    /// ``connect(to:requestTimeout:subscriptionTimeout:)`` with both fetches also ending by `deadline`.
    static func connect(
        to location: URL, requestTimeout: TimeInterval, subscriptionTimeout: Int = 300,
        deadline: Deadline?
    ) async throws -> UPnPRenderer {
        func timeout() throws -> TimeInterval {
            guard let deadline else { return requestTimeout }
            let left = deadline.remainingSeconds
            guard left > 0 else { throw RemoteVolumeError.timedOut }
            return min(requestTimeout, left)
        }
        let location = try UPnPURL.validate(location)
        let document = try await HTTPClient.get(location, timeout: try timeout(), maxBodyBytes: maxReplyBytes)
        let description = try UPnPDeviceDescription.parse(document, location: location)
        var range = 0...100
        if let scpd = description.scpdURL {
            let data = try await HTTPClient.get(scpd, timeout: try timeout(), maxBodyBytes: maxReplyBytes)
            range = try UPnPDeviceDescription.volumeRange(fromSCPD: data) ?? range
        }
        return UPnPRenderer(
            location: location, description: description, volumeRange: range,
            requestTimeout: requestTimeout, subscriptionTimeout: subscriptionTimeout)
    }

    /// Reads `CurrentVolume`; a value outside ``volumeRange`` is ``RemoteVolumeError/invalidReply(_:)``.
    public func volume() async throws -> Int {
        let reply = try await invoke("GetVolume", [("InstanceID", "0"), ("Channel", "Master")])
        guard let text = reply["CurrentVolume"], let level = Int(text) else {
            throw RemoteVolumeError.invalidReply("GetVolume without a numeric CurrentVolume")
        }
        // A device's number is checked against the range it declared, never shown raw (docs/security.md).
        guard volumeRange.contains(level) else {
            throw RemoteVolumeError.invalidReply(
                "the device answered volume \(level), outside its own range \(volumeRange.lowerBound)…\(volumeRange.upperBound)"
            )
        }
        return level
    }

    /// Sends `DesiredVolume`, clamped to ``volumeRange``.
    public func setVolume(_ level: Int) async throws {
        let level = volumeRange.clamped(level)
        _ = try await invoke(
            "SetVolume", [("InstanceID", "0"), ("Channel", "Master"), ("DesiredVolume", String(level))])
    }

    /// Reads `CurrentMute`.
    public func isMuted() async throws -> Bool {
        let reply = try await invoke("GetMute", [("InstanceID", "0"), ("Channel", "Master")])
        guard let muted = reply["CurrentMute"].flatMap(LastChange.parseBool) else {
            throw RemoteVolumeError.invalidReply("GetMute without a boolean CurrentMute")
        }
        return muted
    }

    /// Sends `DesiredMute`.
    public func setMuted(_ muted: Bool) async throws {
        _ = try await invoke(
            "SetMute", [("InstanceID", "0"), ("Channel", "Master"), ("DesiredMute", muted ? "1" : "0")])
    }

    /// Subscribes to RenderingControl events and yields each `LastChange` for instance 0 / Master.
    ///
    /// The subscription is renewed at half its granted time. It is made afresh, and volume and mute are
    /// re-read at once (yielded as an `isInitialState` change), when a renewal is refused or fails, when the
    /// device announces over SSDP that it restarted (`ssdp:byebye` then `ssdp:alive`, or a new
    /// `BOOTID.UPNP.ORG` / `01-NLS`), or when an event's `SEQ` shows events were missed; an `ssdp:alive` that
    /// cannot tell triggers a renewal (which a restarted device refuses). Announcements of other devices are
    /// ignored, and at most one such re-subscription happens per second.
    /// Ending the stream unsubscribes. `nil` when the device offers no event URL.
    public func changes() async throws -> AsyncStream<RemoteVolumeChange>? {
        try await changes(announcements: SSDP.multicastGroup)
    }

    private func invoke(_ action: String, _ arguments: [(String, String)]) async throws -> [String: String] {
        let service = description.renderingControlType
        let body = SOAP.envelope(action: action, serviceType: service, arguments: arguments)
        let reply = try await HTTPClient.send(
            method: "POST", url: description.controlURL,
            headers: [("CONTENT-TYPE", "text/xml; charset=\"utf-8\""), ("SOAPACTION", "\"\(service)#\(action)\"")],
            body: body, timeout: requestTimeout, maxBodyBytes: Self.maxReplyBytes
        )
        return try SOAP.parseReply(status: reply.status, body: reply.message.body, action: action)
    }
}
