import Foundation

@testable import RemoteVolume

/// Canned documents, written for these tests in the shape UPnP devices send.
enum Canned {
    static let location = URL(string: "http://10.0.0.5:49152/desc.xml")!

    static func description(
        urlBase: String? = nil, control: String = "/upnp/control/rc1",
        event: String = "/upnp/event/rc1", nested: Bool = false
    ) -> Data {
        let service = """
            <serviceList><service>
            <serviceType>urn:schemas-upnp-org:service:RenderingControl:1</serviceType>
            <serviceId>urn:upnp-org:serviceId:RenderingControl</serviceId>
            <SCPDURL>rc.xml</SCPDURL><controlURL>\(control)</controlURL><eventSubURL>\(event)</eventSubURL>
            </service></serviceList>
            """
        let inner =
            nested
            ? "<deviceList><device><deviceType>urn:schemas-upnp-org:device:MediaRenderer:1</deviceType><friendlyName>Inner</friendlyName><UDN>uuid:inner</UDN>\(service)</device></deviceList>"
            : service
        return Data(
            """
            <?xml version="1.0"?>
            <root xmlns="urn:schemas-upnp-org:device-1-0">
            <specVersion><major>1</major><minor>0</minor></specVersion>
            \(urlBase.map { "<URLBase>\($0)</URLBase>" } ?? "")
            <device><deviceType>urn:schemas-upnp-org:device:MediaRenderer:1</deviceType>
            <friendlyName>Living Room &amp; Kitchen</friendlyName><UDN>uuid:1234</UDN>
            \(inner)
            </device></root>
            """.utf8)
    }

    static func scpd(minimum: String = "0", maximum: String = "60") -> Data {
        Data(
            """
            <?xml version="1.0"?><scpd xmlns="urn:schemas-upnp-org:service-1-0"><serviceStateTable>
            <stateVariable sendEvents="no"><name>Mute</name><dataType>boolean</dataType></stateVariable>
            <stateVariable sendEvents="no"><name>Volume</name><dataType>ui2</dataType>
            <allowedValueRange><minimum>\(minimum)</minimum><maximum>\(maximum)</maximum><step>1</step></allowedValueRange>
            </stateVariable></serviceStateTable></scpd>
            """.utf8)
    }

    static let getVolumeReply = Data(
        """
        <s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" s:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><s:Body>
        <u:GetVolumeResponse xmlns:u="urn:schemas-upnp-org:service:RenderingControl:1"><CurrentVolume>42</CurrentVolume></u:GetVolumeResponse>
        </s:Body></s:Envelope>
        """.utf8)

    static let fault = Data(
        """
        <?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><s:Fault>
        <faultcode>s:Client</faultcode><faultstring>UPnPError</faultstring><detail>
        <UPnPError xmlns="urn:schemas-upnp-org:control-1-0"><errorCode>402</errorCode><errorDescription>Invalid Args</errorDescription></UPnPError>
        </detail></s:Fault></s:Body></s:Envelope>
        """.utf8)

    static func notify(volume: Int, mute: Int) -> Data {
        let inner =
            #"<Event xmlns="urn:schemas-upnp-org:metadata-1-0/RCS/"><InstanceID val="0"><Volume channel="Master" val="\#(volume)"/><Volume channel="LF" val="3"/><Mute channel="Master" val="\#(mute)"/></InstanceID></Event>"#
        return Data(
            """
            <?xml version="1.0"?><e:propertyset xmlns:e="urn:schemas-upnp-org:event-1-0"><e:property>
            <LastChange>\(XMLTree.escape(inner))</LastChange></e:property></e:propertyset>
            """.utf8)
    }
}
