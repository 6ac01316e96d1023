#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a UPnP device description says about a renderer's volume control (UDA 1.1 §2.3).
public struct UPnPDeviceDescription: Sendable, Equatable {
    /// The device's name for people (`friendlyName`), with control characters shown as `\u{1B}`-style escapes
    /// and cut to 256 characters, then "…" (a hostile name cannot inject lines into what prints it;
    /// docs/security.md).
    public var friendlyName: String
    /// The device type, e.g. `urn:schemas-upnp-org:device:MediaRenderer:1`.
    public var deviceType: String
    /// The unique device name (`uuid:…`).
    public var udn: String
    /// The RenderingControl service's type as the device names it (`…:RenderingControl:1`).
    public var renderingControlType: String
    /// Where SOAP actions for RenderingControl go, resolved to an absolute http(s) URL.
    public var controlURL: URL
    /// Where GENA subscriptions for RenderingControl go, if the device offers events.
    public var eventURL: URL?
    /// The RenderingControl service description (SCPD), for the volume range.
    public var scpdURL: URL?

    /// Parses a description document fetched from `location`.
    ///
    /// Relative URLs resolve against `URLBase` when present, else against `location` (UDA 1.1 §2.3;
    /// `URLBase` is deprecated but still sent by old devices). Embedded devices are searched too.
    /// Throws ``RemoteVolumeError/unsupported(_:)`` when no RenderingControl service exists and
    /// ``RemoteVolumeError/invalidURL(_:)`` when a URL in the document is not http(s).
    public static func parse(_ data: Data, location: URL) throws -> UPnPDeviceDescription {
        let root = try XMLTree.parse(data)
        guard root.name == "root", let topDevice = root.child("device") else {
            throw RemoteVolumeError.invalidReply("not a UPnP device description (no root/device)")
        }
        var base = location
        if let urlBase = root.value("URLBase"), !urlBase.isEmpty {
            base = try UPnPURL.parse(urlBase)
        }
        var queue = [topDevice]
        while !queue.isEmpty {
            let device = queue.removeFirst()
            for service in device.child("serviceList")?.children("service") ?? [] {
                guard let type = service.value("serviceType"),
                    type.hasPrefix("urn:schemas-upnp-org:service:RenderingControl:"), type.count <= 128,
                    !type.unicodeScalars.contains(where: PeerText.isUnsafe)
                else { continue }
                guard let control = service.value("controlURL"), !control.isEmpty else {
                    throw RemoteVolumeError.invalidReply("RenderingControl without controlURL")
                }
                let event = service.value("eventSubURL").flatMap { $0.isEmpty ? nil : $0 }
                let scpd = service.value("SCPDURL").flatMap { $0.isEmpty ? nil : $0 }
                return UPnPDeviceDescription(
                    friendlyName: PeerText.clean(device.value("friendlyName") ?? topDevice.value("friendlyName") ?? ""),
                    deviceType: PeerText.clean(device.value("deviceType") ?? ""),
                    udn: PeerText.clean(device.value("UDN") ?? ""),
                    renderingControlType: type,
                    controlURL: try UPnPURL.resolve(control, against: base),
                    eventURL: try event.map { try UPnPURL.resolve($0, against: base) },
                    scpdURL: try scpd.map { try UPnPURL.resolve($0, against: base) }
                )
            }
            queue += device.child("deviceList")?.children("device") ?? []
        }
        throw RemoteVolumeError.unsupported("the device has no RenderingControl service")
    }

    /// The `Volume` state variable's `allowedValueRange` in a RenderingControl SCPD (RenderingControl:1 §2.2.20);
    /// `nil` when the SCPD gives none (the spec's default is 0…100).
    public static func volumeRange(fromSCPD data: Data) throws -> ClosedRange<Int>? {
        let root = try XMLTree.parse(data)
        guard root.name == "scpd" else { throw RemoteVolumeError.invalidReply("not a service description (no scpd)") }
        let variables = root.child("serviceStateTable")?.children("stateVariable") ?? []
        guard let volume = variables.first(where: { $0.value("name") == "Volume" }),
            let range = volume.child("allowedValueRange")
        else { return nil }
        guard let minimum = range.value("minimum").flatMap({ Int($0) }),
            let maximum = range.value("maximum").flatMap({ Int($0) }),
            minimum <= maximum, minimum >= 0, maximum <= 65_535
        else {
            throw RemoteVolumeError.invalidReply("bad Volume allowedValueRange")
        }
        return minimum...maximum
    }
}
