#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything that can go wrong talking to a network volume device, as a value the app can switch over.
public enum RemoteVolumeError: Error, Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The device did not answer within the deadline.
    case timedOut
    /// No connection could be made (refused, unreachable, reset); the text is the system's reason.
    case unreachable(String)
    /// The device answered with an HTTP status other than success (and not a SOAP fault).
    case httpStatus(Int)
    /// The device answered with a UPnP error (a SOAP fault carrying `UPnPError`), e.g. 402 Invalid Args,
    /// 501 Action Failed, 718 Invalid InstanceID (UPnP Device Architecture 1.1 §3.2.2, RenderingControl:1 §2.4).
    case upnp(code: Int, description: String)
    /// The reply was not what the protocol requires (truncated, malformed, missing a field).
    case invalidReply(String)
    /// The reply was larger than the limit, in bytes; it was not read further.
    case replyTooLarge(limit: Int)
    /// A URL was refused: not http(s), no host, or otherwise unusable.
    case invalidURL(String)
    /// The device cannot do this (e.g. it has no RenderingControl service).
    case unsupported(String)

    /// Whether trying the same request again later may succeed (network trouble, a busy device), as
    /// opposed to a request the device will always refuse.
    public var isTransient: Bool {
        switch self {
        case .timedOut, .unreachable: return true
        // 404: a renderer that is (re)starting serves HTTP before its services are registered; seen with
        // gmediarender / libupnp 1.8 right after a restart (the integration test kills it mid-burst).
        case .httpStatus(let status): return status >= 500 || status == 404 || status == 408 || status == 429
        // 501 Action Failed is the generic "could not do it now" of UPnP Device Architecture 1.1 §3.2.2.
        case .upnp(let code, _): return code == 501
        case .invalidReply, .replyTooLarge, .invalidURL, .unsupported: return false
        }
    }

    /// One sentence for logs and the CLI: what went wrong and what to do about it. Text that came from the
    /// device is already cleaned of control characters (docs/security.md).
    public var description: String {
        switch self {
        case .timedOut:
            return
                "The device did not answer in time; check that it is switched on and on this network, then try again."
        case .unreachable(let reason):
            return
                "The device cannot be reached (\(PeerText.clean(reason, limit: 200))); check that it is switched on and on this network."
        case .httpStatus(let status):
            return status >= 500 || status == 404
                ? "The device answered HTTP \(status); it may be starting up (try again in a moment), or the URL does not lead to its volume control (use the description URL that 'discover' prints)."
                : "The device refused the request with HTTP \(status); it may not be a UPnP renderer."
        case .upnp(let code, let text):
            let detail = PeerText.clean(text, limit: 200)
            return
                "The device refused the request with UPnP error \(code)\(detail.isEmpty ? "" : " (\(detail))"); check the value sent."
        case .invalidReply(let reason):
            return
                "The device's reply is invalid (\(PeerText.clean(reason, limit: 200))); it may not be the kind of device its URL names, or it is misbehaving."
        case .replyTooLarge(let limit):
            return
                "The device sent more than \(limit) bytes; VolumeKit stops reading there, so this device cannot be used."
        case .invalidURL(let url):
            let text = PeerText.clean(url, limit: 400)
            // RemoteDeviceURL's and MPDDevice's texts already say what to use; UPnP's are the URL alone.
            if text.contains("; use ") || text.contains("mpd.conf") || text.hasPrefix("the MPD host")
                || text.hasPrefix("an MPD")
            {
                return "Refused \(text)."
            }
            return
                "Refused \(text): use an absolute http:// URL with a host, such as a description URL that discovery prints."
        case .unsupported(let what):
            return "Not supported: \(PeerText.clean(what, limit: 200))."
        }
    }
}

extension Error {
    /// This error as a ``RemoteVolumeError``; any other error becomes `.unreachable` with its description.
    var asRemoteVolumeError: RemoteVolumeError {
        (self as? RemoteVolumeError) ?? .unreachable(String(describing: self))
    }
}
