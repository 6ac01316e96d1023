#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// SOAP 1.1 as UPnP uses it for actions (UDA 1.1 §3.2).
enum SOAP {
    /// The request body for `action` of `serviceType` with ordered arguments; every value is XML-escaped.
    static func envelope(action: String, serviceType: String, arguments: [(String, String)]) -> Data {
        var xml = #"<?xml version="1.0" encoding="utf-8"?>"#
        xml +=
            #"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" s:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><s:Body>"#
        xml += "<u:\(action) xmlns:u=\"\(XMLTree.escape(serviceType))\">"
        for (name, value) in arguments { xml += "<\(name)>\(XMLTree.escape(value))</\(name)>" }
        xml += "</u:\(action)></s:Body></s:Envelope>"
        return Data(xml.utf8)
    }

    /// The output arguments of a successful reply, or the typed error a fault carries.
    ///
    /// A fault (HTTP 500 with `s:Fault`) becomes ``RemoteVolumeError/upnp(code:description:)`` with the
    /// `UPnPError`'s `errorCode` (UDA 1.1 §3.2.2); other statuses become `.httpStatus`.
    static func parseReply(status: Int, body: Data, action: String) throws -> [String: String] {
        if status == 200 {
            let root = try XMLTree.parse(body)
            guard root.name == "Envelope", let bodyElement = root.child("Body") else {
                throw RemoteVolumeError.invalidReply("not a SOAP envelope")
            }
            guard let response = bodyElement.child(action + "Response") else {
                if bodyElement.child("Fault") != nil { throw try fault(in: bodyElement) }
                throw RemoteVolumeError.invalidReply("no \(action)Response in the reply")
            }
            var values: [String: String] = [:]
            for argument in response.children {
                values[argument.name] = argument.text.trimmingWhitespace()
            }
            return values
        }
        if status == 500, !body.isEmpty,
            let root = try? XMLTree.parse(body), let bodyElement = root.child("Body"), bodyElement.child("Fault") != nil
        {
            throw try fault(in: bodyElement)
        }
        throw RemoteVolumeError.httpStatus(status)
    }

    private static func fault(in body: XMLTree) throws -> RemoteVolumeError {
        guard let error = body.child("Fault")?.first("UPnPError"),
            let code = error.value("errorCode").flatMap({ Int($0) })
        else {
            return .invalidReply("SOAP fault without a UPnPError code")
        }
        return .upnp(code: code, description: PeerText.clean(error.value("errorDescription") ?? "", limit: 200))
    }
}

/// A RenderingControl `LastChange` event (RenderingControl:1 §2.2.1): the changed state of instance 0.
struct LastChange: Sendable, Equatable {
    var volume: Int?
    var muted: Bool?
    /// The NOTIFY was a subscription's initial event (`SEQ: 0`, UDA 1.1 §4.2): the device's current state
    /// rather than a change someone made.
    var isInitial = false
    /// The NOTIFY's `SID` and `SEQ` (UDA 1.1 §4.2.1: 0 for the initial event, then +1 per event, wrapping
    /// from 4,294,967,295 to 1), when it had them.
    var sid: String?
    var seq: UInt32?

    /// Parses a GENA NOTIFY body (`e:propertyset`) and, inside it, the escaped `LastChange` document.
    static func parse(propertySet data: Data) throws -> LastChange {
        let root = try XMLTree.parse(data)
        guard root.name == "propertyset" else { throw RemoteVolumeError.invalidReply("not a GENA propertyset") }
        var result = LastChange()
        for property in root.children("property") {
            guard let inner = property.child("LastChange") else { continue }
            let change = try parse(event: Data(inner.text.utf8))
            result.volume = change.volume ?? result.volume
            result.muted = change.muted ?? result.muted
        }
        return result
    }

    /// Parses the inner `<Event>` document.
    static func parse(event data: Data) throws -> LastChange {
        let event = try XMLTree.parse(data)
        guard event.name == "Event" else { throw RemoteVolumeError.invalidReply("LastChange without Event") }
        var result = LastChange()
        for instance in event.children("InstanceID") where instance.attributes["val"] == "0" {
            for element in instance.children {
                let channel = element.attributes["channel"] ?? "Master"
                guard channel == "Master", let value = element.attributes["val"] else { continue }
                switch element.name {
                case "Volume": result.volume = Int(value)
                case "Mute": result.muted = parseBool(value)
                default: break
                }
            }
        }
        return result
    }

    /// UPnP booleans: `0`/`1`, `false`/`true`, `no`/`yes` (UDA 1.1 §2.5).
    static func parseBool(_ text: String) -> Bool? {
        switch text.trimmingSpaces().lowercased() {
        case "1", "true", "yes": return true
        case "0", "false", "no": return false
        default: return nil
        }
    }
}
