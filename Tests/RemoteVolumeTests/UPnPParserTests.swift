import Foundation
import Testing

@testable import RemoteVolume

@Suite("UPnP parsers")
struct UPnPParserTests {
    @Test("a description yields the name and RenderingControl URLs resolved against LOCATION")
    func descriptionResolvesAgainstLocation() throws {
        let parsed = try UPnPDeviceDescription.parse(Canned.description(), location: Canned.location)
        #expect(parsed.friendlyName == "Living Room & Kitchen")
        #expect(parsed.controlURL.absoluteString == "http://10.0.0.5:49152/upnp/control/rc1")
        #expect(parsed.eventURL?.absoluteString == "http://10.0.0.5:49152/upnp/event/rc1")
        #expect(parsed.scpdURL?.absoluteString == "http://10.0.0.5:49152/rc.xml")
    }

    @Test("URLBase wins over LOCATION; embedded devices are searched")
    func urlBaseAndEmbeddedDevice() throws {
        let parsed = try UPnPDeviceDescription.parse(
            Canned.description(urlBase: "http://10.0.0.9:8080/base/", nested: true), location: Canned.location)
        #expect(parsed.controlURL.absoluteString == "http://10.0.0.9:8080/upnp/control/rc1")
        #expect(parsed.scpdURL?.absoluteString == "http://10.0.0.9:8080/base/rc.xml")
        #expect(parsed.friendlyName == "Inner")
    }

    @Test(
        "a control URL that is not http(s) is refused",
        arguments: ["file:///etc/passwd", "gopher://10.0.0.5/x", "javascript:alert(1)"])
    func badControlURLRefused(url: String) {
        #expect(throws: RemoteVolumeError.self) {
            try UPnPDeviceDescription.parse(Canned.description(control: url), location: Canned.location)
        }
    }

    @Test("a description without RenderingControl is unsupported")
    func noRenderingControl() {
        let data = Data("<root><device><friendlyName>Printer</friendlyName><serviceList/></device></root>".utf8)
        #expect(throws: RemoteVolumeError.unsupported("the device has no RenderingControl service")) {
            try UPnPDeviceDescription.parse(data, location: Canned.location)
        }
    }

    @Test(
        "truncated, empty or non-XML documents are typed errors",
        arguments: [
            String(decoding: Canned.description().prefix(200), as: UTF8.self), "", "HTTP/1.1 200 OK",
            "<root><device></root>",
        ])
    func malformedDescription(text: String) {
        #expect(throws: RemoteVolumeError.self) {
            try UPnPDeviceDescription.parse(Data(text.utf8), location: Canned.location)
        }
    }

    @Test(
        "hostile entities and DTDs are refused before parsing",
        arguments: [
            #"<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><root><device><friendlyName>&x;</friendlyName></device></root>"#,
            #"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><root>&c;</root>"#,
            #"<root><!ENTITY x "y"></root>"#,
        ])
    func hostileXMLRefused(text: String) {
        #expect(throws: RemoteVolumeError.invalidReply("XML with a DTD or entity declaration is refused")) {
            try XMLTree.parse(Data(text.utf8))
        }
    }

    @Test("deeply nested XML is refused")
    func deepXMLRefused() {
        let deep = String(repeating: "<a>", count: 500) + String(repeating: "</a>", count: 500)
        #expect(throws: RemoteVolumeError.self) { try XMLTree.parse(Data(deep.utf8)) }
    }

    @Test("the SCPD's Volume allowedValueRange is the device range")
    func scpdRange() throws {
        #expect(try UPnPDeviceDescription.volumeRange(fromSCPD: Canned.scpd()) == 0...60)
        let noRange = Data(
            "<scpd><serviceStateTable><stateVariable><name>Volume</name></stateVariable></serviceStateTable></scpd>"
                .utf8)
        #expect(try UPnPDeviceDescription.volumeRange(fromSCPD: noRange) == nil)
        #expect(throws: RemoteVolumeError.self) {
            try UPnPDeviceDescription.volumeRange(fromSCPD: Canned.scpd(minimum: "90", maximum: "10"))
        }
        #expect(throws: RemoteVolumeError.self) {
            try UPnPDeviceDescription.volumeRange(fromSCPD: Canned.scpd(maximum: "lots"))
        }
    }

    @Test("SOAP arguments are escaped so a value cannot inject elements")
    func soapEscaping() throws {
        let body = SOAP.envelope(
            action: "SetVolume", serviceType: "urn:schemas-upnp-org:service:RenderingControl:1",
            arguments: [("InstanceID", "0"), ("Channel", "</Channel><Evil>&'\"")])
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.contains("<Channel>&lt;/Channel&gt;&lt;Evil&gt;&amp;&apos;&quot;</Channel>"))
        let tree = try XMLTree.parse(body)
        let action = try #require(tree.child("Body")?.child("SetVolume"))
        #expect(action.value("Channel") == "</Channel><Evil>&'\"")
        #expect(action.children.map(\.name) == ["InstanceID", "Channel"])
    }

    @Test("a SOAP reply yields its out arguments")
    func soapReply() throws {
        #expect(
            try SOAP.parseReply(status: 200, body: Canned.getVolumeReply, action: "GetVolume")["CurrentVolume"] == "42")
        #expect(throws: RemoteVolumeError.invalidReply("no SetVolumeResponse in the reply")) {
            try SOAP.parseReply(status: 200, body: Canned.getVolumeReply, action: "SetVolume")
        }
    }

    @Test("a SOAP fault becomes the UPnP error code")
    func soapFault() {
        #expect(throws: RemoteVolumeError.upnp(code: 402, description: "Invalid Args")) {
            try SOAP.parseReply(status: 500, body: Canned.fault, action: "SetVolume")
        }
        #expect(throws: RemoteVolumeError.httpStatus(500)) {
            try SOAP.parseReply(status: 500, body: Data("oops".utf8), action: "SetVolume")
        }
        #expect(throws: RemoteVolumeError.httpStatus(404)) {
            try SOAP.parseReply(status: 404, body: Data(), action: "SetVolume")
        }
    }

    @Test("LastChange (escaped XML inside XML) yields Master volume and mute")
    func lastChange() throws {
        #expect(
            try LastChange.parse(propertySet: Canned.notify(volume: 33, mute: 1)) == LastChange(volume: 33, muted: true)
        )
        let otherInstance = Data(
            "<Event><InstanceID val=\"1\"><Volume channel=\"Master\" val=\"9\"/></InstanceID></Event>".utf8)
        #expect(try LastChange.parse(event: otherInstance) == LastChange())
        let hostileInner = Data(
            """
            <e:propertyset xmlns:e="urn:schemas-upnp-org:event-1-0"><e:property><LastChange>&lt;!DOCTYPE x [&lt;!ENTITY a "b"&gt;]&gt;&lt;Event/&gt;</LastChange></e:property></e:propertyset>
            """.utf8)
        #expect(throws: RemoteVolumeError.self) { try LastChange.parse(propertySet: hostileInner) }
    }

    @Test("SSDP answers: LOCATION must be http(s); other datagrams are ignored")
    func ssdpResponses() throws {
        let good =
            "HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=1800\r\nLOCATION: http://10.77.0.1:49494/description.xml\r\nST: urn:schemas-upnp-org:device:MediaRenderer:1\r\nUSN: uuid:abc::urn:schemas-upnp-org:device:MediaRenderer:1\r\n\r\n"
        let parsed = try #require(try SSDPResponse.parse(Data(good.utf8)))
        #expect(parsed.location.absoluteString == "http://10.77.0.1:49494/description.xml")
        #expect(parsed.usn.hasPrefix("uuid:abc"))
        let fileLocation = good.replacingOccurrences(of: "http://10.77.0.1:49494", with: "file://")
        #expect(throws: RemoteVolumeError.self) { try SSDPResponse.parse(Data(fileLocation.utf8)) }
        #expect(try SSDPResponse.parse(Data("NOTIFY * HTTP/1.1\r\nLOCATION: http://x/\r\n\r\n".utf8)) == nil)
        #expect(try SSDPResponse.parse(Data("HTTP/1.1 200 OK\r\nST: x\r\n\r\n".utf8)) == nil)
        #expect(try SSDPResponse.parse(Data(repeating: 0x41, count: 9000)) == nil)
    }

    @Test("M-SEARCH asks for the target with a bounded MX")
    func mSearch() {
        let text = String(decoding: SSDP.searchRequest(target: SSDP.searchTargets[1], mx: 9), as: UTF8.self)
        #expect(text.hasPrefix("M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\n"))
        #expect(
            text.contains("MAN: \"ssdp:discover\"\r\nMX: 5\r\nST: urn:schemas-upnp-org:service:RenderingControl:1\r\n"))
        #expect(text.hasSuffix("\r\n\r\n"))
    }

    @Test(
        "URLs: only absolute http(s) with a host",
        arguments: [
            ("http://10.0.0.1:80/d.xml", true), ("https://h/d", true), ("ftp://h/d", false), ("file:///d", false),
            ("http:///nohost", false), ("http://u:p@h/", false), ("not a url", false), ("http://h:99999/", false),
        ])
    func urlRules(text: String, valid: Bool) {
        #expect(((try? UPnPURL.parse(text)) != nil) == valid)
    }
}

@Suite("HTTP message reader")
struct HTTPMessageReaderTests {
    @Test("content-length, chunked and read-to-close bodies, in pieces")
    func framing() throws {
        var reader = HTTPMessageReader(kind: .response, maxBodyBytes: 100)
        #expect(try reader.append(Data("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhe".utf8)) == nil)
        #expect(try reader.append(Data("llo".utf8))?.body == Data("hello".utf8))

        var chunked = HTTPMessageReader(kind: .response, maxBodyBytes: 100)
        let message = try chunked.append(
            Data("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n".utf8))
        #expect(message?.body == Data("abcde".utf8))

        var toClose = HTTPMessageReader(kind: .response, maxBodyBytes: 100)
        #expect(try toClose.append(Data("HTTP/1.0 200 OK\r\n\r\nabc".utf8)) == nil)
        #expect(try toClose.finish().body == Data("abc".utf8))
    }

    @Test("huge bodies are refused at the declared length or as they arrive")
    func limits() {
        var declared = HTTPMessageReader(kind: .response, maxBodyBytes: 1024)
        #expect(throws: RemoteVolumeError.replyTooLarge(limit: 1024)) {
            try declared.append(Data("HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n".utf8))
        }
        var chunked = HTTPMessageReader(kind: .response, maxBodyBytes: 1024)
        #expect(throws: RemoteVolumeError.replyTooLarge(limit: 1024)) {
            try chunked.append(Data("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFF\r\n".utf8))
        }
        var endless = HTTPMessageReader(kind: .response, maxBodyBytes: 1024)
        #expect(throws: RemoteVolumeError.replyTooLarge(limit: 1024)) {
            _ = try endless.append(Data("HTTP/1.1 200 OK\r\n\r\n".utf8))
            _ = try endless.append(Data(repeating: 0x41, count: 2000))
        }
        var head = HTTPMessageReader(kind: .response, maxHeadBytes: 100, maxBodyBytes: 1024)
        #expect(throws: RemoteVolumeError.replyTooLarge(limit: 100)) {
            try head.append(Data(("HTTP/1.1 200 OK\r\nX: " + String(repeating: "y", count: 200)).utf8))
        }
    }

    @Test("truncated and malformed messages are typed errors")
    func malformed() {
        var truncated = HTTPMessageReader(kind: .response, maxBodyBytes: 100)
        #expect(throws: RemoteVolumeError.invalidReply("truncated body: 2 of 10 bytes")) {
            _ = try truncated.append(Data("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nab".utf8))
            _ = try truncated.finish()
        }
        var noHead = HTTPMessageReader(kind: .response, maxBodyBytes: 100)
        #expect(throws: RemoteVolumeError.self) {
            _ = try noHead.append(Data("HTTP/1.1 200".utf8))
            _ = try noHead.finish()
        }
        var badLength = HTTPMessageReader(kind: .response, maxBodyBytes: 100)
        #expect(throws: RemoteVolumeError.self) {
            try badLength.append(Data("HTTP/1.1 200 OK\r\nContent-Length: -3\r\n\r\n".utf8))
        }
        var badChunk = HTTPMessageReader(kind: .response, maxBodyBytes: 100)
        #expect(throws: RemoteVolumeError.self) {
            try badChunk.append(Data("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n".utf8))
        }
    }

    @Test("GENA: SUBSCRIBE replies and NOTIFY requests are checked")
    func gena() throws {
        var reader = HTTPMessageReader(kind: .response, maxBodyBytes: 100)
        let reply = try #require(
            try reader.append(
                Data("HTTP/1.1 200 OK\r\nSID: uuid:s1\r\nTIMEOUT: Second-120\r\nContent-Length: 0\r\n\r\n".utf8)))
        #expect(try GENA.parseSubscribeReply(reply) == GENA.Subscription(sid: "uuid:s1", timeout: 120))
        var noSID = HTTPMessageReader(kind: .response, maxBodyBytes: 100)
        let bad = try #require(try noSID.append(Data("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8)))
        #expect(throws: RemoteVolumeError.self) { try GENA.parseSubscribeReply(bad) }

        let body = Canned.notify(volume: 12, mute: 0)
        func notify(path: String, nts: String = "upnp:propchange", body: Data) -> HTTPMessage {
            HTTPMessage(
                startLine: ["NOTIFY", path, "HTTP/1.1"],
                headers: ["nt": "upnp:event", "nts": nts, "sid": "uuid:s1", "seq": "0"], body: body)
        }
        #expect(
            GENA.handleNotify(notify(path: "/p", body: body), expectedPath: "/p").change
                == LastChange(volume: 12, muted: false, isInitial: true, sid: "uuid:s1", seq: 0))
        #expect(GENA.handleNotify(notify(path: "/other", body: body), expectedPath: "/p").status == 412)
        #expect(GENA.handleNotify(notify(path: "/p", nts: "ssdp:alive", body: body), expectedPath: "/p").status == 400)
        #expect(GENA.handleNotify(notify(path: "/p", body: Data("<truncated".utf8)), expectedPath: "/p").status == 400)
    }
}
