import Foundation
import VolumeKitCore

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
    public var displayName: String { description.friendlyName.isEmpty ? location.absoluteString : description.friendlyName }

    /// The largest reply read from a device; larger ones fail with ``RemoteVolumeError/replyTooLarge(limit:)``.
    public static let maxReplyBytes = 256 * 1024

    /// Creates a renderer from a description already fetched.
    public init(location: URL, description: UPnPDeviceDescription, volumeRange: ClosedRange<Int> = 0...100,
                requestTimeout: TimeInterval = 3, subscriptionTimeout: Int = 300) {
        self.location = location
        self.description = description
        self.volumeRange = volumeRange
        self.requestTimeout = requestTimeout
        self.subscriptionTimeout = subscriptionTimeout
    }

    /// Fetches the description at `location` (and the RenderingControl SCPD for the volume range).
    public static func connect(to location: URL, requestTimeout: TimeInterval = 3, subscriptionTimeout: Int = 300) async throws -> UPnPRenderer {
        try await connect(to: location, requestTimeout: requestTimeout, subscriptionTimeout: subscriptionTimeout, deadline: nil)
    }

    /// ``connect(to:requestTimeout:subscriptionTimeout:)`` with both fetches also ending by `deadline`.
    static func connect(to location: URL, requestTimeout: TimeInterval, subscriptionTimeout: Int = 300,
                        deadline: Deadline?) async throws -> UPnPRenderer {
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
        return UPnPRenderer(location: location, description: description, volumeRange: range,
                            requestTimeout: requestTimeout, subscriptionTimeout: subscriptionTimeout)
    }

    /// Reads `CurrentVolume`; a value outside ``volumeRange`` is ``RemoteVolumeError/invalidReply(_:)``.
    public func volume() async throws -> Int {
        let reply = try await invoke("GetVolume", [("InstanceID", "0"), ("Channel", "Master")])
        guard let text = reply["CurrentVolume"], let level = Int(text) else {
            throw RemoteVolumeError.invalidReply("GetVolume without a numeric CurrentVolume")
        }
        // Issue 12, defect 7: a device's number is checked against the range it declared, never shown raw.
        guard volumeRange.contains(level) else {
            throw RemoteVolumeError.invalidReply(
                "the device answered volume \(level), outside its own range \(volumeRange.lowerBound)…\(volumeRange.upperBound)")
        }
        return level
    }

    /// Sends `DesiredVolume`, clamped to ``volumeRange``.
    public func setVolume(_ level: Int) async throws {
        let level = min(max(level, volumeRange.lowerBound), volumeRange.upperBound)
        _ = try await invoke("SetVolume", [("InstanceID", "0"), ("Channel", "Master"), ("DesiredVolume", String(level))])
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
        _ = try await invoke("SetMute", [("InstanceID", "0"), ("Channel", "Master"), ("DesiredMute", muted ? "1" : "0")])
    }

    /// Subscribes to RenderingControl events and yields each `LastChange` for instance 0 / Master.
    ///
    /// The subscription is renewed at half its granted time; if a renewal is refused (e.g. the device
    /// restarted and forgot it) a new subscription is made. Ending the stream unsubscribes.
    /// `nil` when the device offers no event URL.
    public func changes() async throws -> AsyncStream<RemoteVolumeChange>? {
        guard let eventURL = description.eventURL else { return nil }
        let (stream, continuation) = AsyncStream<RemoteVolumeChange>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let range = volumeRange
        // Listen only on the address that reaches the device, not on every interface (issue 12, defect 3).
        let localHost: String
        do {
            localHost = try Socket.localAddress(toward: UPnPURL.host(of: eventURL), port: UInt16(eventURL.port ?? 80))
        } catch {
            continuation.finish()
            throw error.asRemoteVolumeError
        }
        let listener = try GENAListener(host: localHost) { change in
            // A volume outside the declared range is not believed (issue 12, defect 7); the mute state still is.
            let volume = change.volume.flatMap { range.contains($0) ? $0 : nil }
            guard volume != nil || change.muted != nil else { return }
            continuation.yield(RemoteVolumeChange(volume: volume, muted: change.muted, isInitialState: change.isInitial))
        }
        listener.start()
        do {
            let shownHost = localHost.contains(":") ? "[\(localHost)]" : localHost
            let callback = "http://\(shownHost):\(listener.port)\(listener.path)"
            listener.subscribing()
            let first: GENA.Subscription
            do {
                first = try await GENA.subscribe(eventURL, callback: callback, timeout: subscriptionTimeout, requestTimeout: requestTimeout)
                listener.subscribed(sid: first.sid)
            } catch {
                listener.subscribed(sid: nil)
                throw error
            }
            let timeout = subscriptionTimeout
            let requestTimeout = self.requestTimeout
            let current = Locked(first)
            let renewal = Task {
                while !Task.isCancelled {
                    // Timeouts are clamped to GENA.minTimeout…maxTimeout when read, so this cannot overflow.
                    let wait = max(2, current.current.timeout / 2)
                    try? await Task.sleep(nanoseconds: UInt64(wait) * 1_000_000_000)
                    if Task.isCancelled { break }
                    let sid = current.current.sid
                    if let renewed = try? await GENA.renew(eventURL, sid: sid, timeout: timeout, requestTimeout: requestTimeout) {
                        listener.subscribed(sid: renewed.sid)
                        current.withLock { $0 = renewed }
                        continue
                    }
                    listener.subscribing()
                    if let fresh = try? await GENA.subscribe(eventURL, callback: callback, timeout: timeout, requestTimeout: requestTimeout) {
                        listener.subscribed(sid: fresh.sid)
                        current.withLock { $0 = fresh }
                    } else {
                        listener.subscribed(sid: nil)
                        current.withLock { $0.timeout = GENA.minTimeout }  // The device is away: try again soon.
                    }
                }
            }
            continuation.onTermination = { _ in
                renewal.cancel()
                listener.stop()
                let sid = current.current.sid
                Task { try? await GENA.unsubscribe(eventURL, sid: sid, requestTimeout: requestTimeout) }
            }
            return stream
        } catch {
            listener.stop()
            continuation.finish()
            throw error.asRemoteVolumeError
        }
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
