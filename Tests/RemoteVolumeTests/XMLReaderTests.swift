import Foundation
import Testing

@testable import RemoteVolume

/// VolumeKit's own XML reader (issue 23): what devices send is read into the tree `XMLParser` built, and
/// everything outside well-formed, DTD-free UTF-8 XML is refused with a sentence.
@Suite("XML reader")
struct XMLReaderTests {
    private static func read(_ text: String) throws -> XMLTree { try XMLReader.read(Data(text.utf8)) }

    @Test("a description as devices write it: declaration, default namespace, comments, instructions, CRLF")
    func deviceDescription() throws {
        let text =
            "<?xml version=\"1.0\" encoding=\"utf-8\" standalone='yes'?>\r\n"
            + "<?xml-stylesheet type=\"text/xsl\" href=\"d.xsl\"?>\r\n<!-- made by a renderer -->\r\n"
            + "<root xmlns=\"urn:schemas-upnp-org:device-1-0\" xmlns:dlna=\"urn:schemas-dlna-org:device-1-0\">\r\n"
            + "  <specVersion><major>1</major><minor>0</minor></specVersion>\r\n"
            + "  <device>\r\n    <friendlyName>Living Room &amp; Kitchen &#x1F50A;&#33;</friendlyName>\r\n"
            + "    <dlna:X_DLNADOC xmlns:dlna=\"urn:schemas-dlna-org:device-1-0\">DMR-1.50</dlna:X_DLNADOC>\r\n"
            + "    <iconList/><serviceList ></serviceList >\r\n  </device>\r\n</root>\r\n<!-- end -->\r\n"
        let root = try Self.read(text)
        #expect(root.name == "root")
        #expect(
            root.attributes == [
                "xmlns": "urn:schemas-upnp-org:device-1-0", "xmlns:dlna": "urn:schemas-dlna-org:device-1-0",
            ])
        #expect(root.children.map(\.name) == ["specVersion", "device"])
        #expect(root.text == "\n  \n  \n")
        let device = try #require(root.child("device"))
        #expect(device.value("friendlyName") == "Living Room & Kitchen 🔊!")
        #expect(device.children.map(\.name) == ["friendlyName", "X_DLNADOC", "iconList", "serviceList"])
        #expect(device.child("X_DLNADOC")?.text == "DMR-1.50")
        #expect(device.child("iconList") == XMLTree(name: "iconList"))
        #expect(root.child("specVersion")?.value("minor") == "0")
    }

    @Test("a SOAP reply with prefixes, mixed text, CDATA and attribute values normalised as XML says")
    func soapReply() throws {
        let root = try Self.read(
            #"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" s:encodingStyle='e'>"#
                + "<s:Body><u:GetVolumeResponse xmlns:u=\"urn:schemas-upnp-org:service:RenderingControl:1\">"
                + "<CurrentVolume>4<![CDATA[2]]></CurrentVolume><Note a=\"x\ny\tz&#10;&quot;&apos;&lt;\" b='\"'>"
                + "one <i>two</i> three<![CDATA[ <four> & ]]></Note>"
                + "</u:GetVolumeResponse></s:Body></s:Envelope>")
        #expect(root.name == "Envelope")
        #expect(root.attributes["s:encodingStyle"] == "e")
        let response = try #require(root.child("Body")?.child("GetVolumeResponse"))
        #expect(response.attributes == ["xmlns:u": "urn:schemas-upnp-org:service:RenderingControl:1"])
        #expect(response.value("CurrentVolume") == "42")
        let note = try #require(response.child("Note"))
        // Tab and line feed written as they are read as spaces; written as references they stay.
        #expect(note.attributes == ["a": "x y z\n\"'<", "b": "\""])
        #expect(note.text == "one  three <four> & ")
        #expect(note.value("i") == "two")
    }

    @Test("a processing instruction without data is read (Foundation's XMLParser crashed on it on Linux)")
    func emptyInstruction() throws {
        for document in ["<?pi?><root><?x?>a</root>", "<root><?é?>a</root>"] {
            #expect(try XMLTree.parse(Data(document.utf8)) == XMLTree(name: "root", text: "a"))
        }
    }

    @Test("anything after the root element is refused (XMLParser read `<r/><r/>` and `<r/>text` as `<r/>`)")
    func trailingContent() {
        for document in ["<r/><r/>", "<r/>text", "<r>a & b</r>x", "<r/></r>"] {
            #expect(throws: RemoteVolumeError.self, "\(document)") { try XMLTree.parse(Data(document.utf8)) }
        }
    }

    @Test("line ends in text and CDATA are read as line feeds; references to CR stay CR")
    func lineEnds() throws {
        #expect(try Self.read("<r>a\r\nb\rc<![CDATA[d\r\ne]]>&#13;</r>").text == "a\nb\ncd\ne\r")
    }

    @Test("32 nested elements and 10,000 elements are read; one more of either is refused")
    func bounds() throws {
        func nested(_ depth: Int) -> String {
            String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
        }
        func flat(_ count: Int) -> String { "<r>" + String(repeating: "<e/>", count: count - 1) + "</r>" }
        #expect(try Self.read(nested(32)).first("a") != nil)
        #expect(throws: XMLRefusal.tooDeep(limit: 32)) { try Self.read(nested(33)) }
        #expect(try Self.read(flat(10_000)).children.count == 9_999)
        #expect(throws: XMLRefusal.tooManyElements(limit: 10_000)) { try Self.read(flat(10_001)) }
        let padding = String(repeating: " ", count: XMLTree.maxBytes - 4)
        #expect(try Self.read("<r/>" + padding).name == "r")
        #expect(throws: XMLRefusal.tooLarge(limit: 262_144)) { try Self.read("<r/>" + padding + " ") }
    }

    @Test(
        "what is not well-formed, DTD-free UTF-8 XML is refused by what it is and where",
        arguments: [
            ("<r>&nbsp;</r>", XMLRefusal.unknownEntity("nbsp", line: 1)),
            ("<r>\n&#0;</r>", .badCharacterReference("#0", line: 2)),
            ("<r>&#1;</r>", .badCharacterReference("#1", line: 1)),
            ("<r>&#xD800;</r>", .badCharacterReference("#xD800", line: 1)),
            ("<r>&#xFFFE;</r>", .badCharacterReference("#xFFFE", line: 1)),
            ("<r>&#x110000;</r>", .badCharacterReference("#x110000", line: 1)),
            ("<r>&#65</r>", .malformed(.bareAmpersand, line: 1)),
            ("<r>&#x;</r>", .badCharacterReference("#x", line: 1)),
            ("<r>&#+65;</r>", .badCharacterReference("#+65", line: 1)),
            ("<r>a & b</r>", .malformed(.bareAmpersand, line: 1)),
            ("<r>&amp</r>", .malformed(.bareAmpersand, line: 1)),
            ("<r>\u{1B}[2J</r>", .forbiddenCharacter("\u{1B}", line: 1)),
            ("<r>\n\n\u{7}</r>", .forbiddenCharacter("\u{7}", line: 3)),
            ("<r>\u{FFFF}</r>", .forbiddenCharacter("\u{FFFF}", line: 1)),
            ("<a>\n<b>\n</a></b>", .malformed(.mismatchedEndTag(found: "a", expected: "b"), line: 3)),
            ("<a></a></b>", .malformed(.contentAfterRoot, line: 1)),
            ("<r>", .malformed(.unexpectedEnd(inside: "<r>"), line: 1)),
            ("<r><s></s>", .malformed(.unexpectedEnd(inside: "<r>"), line: 1)),
            ("", .malformed(.noRoot, line: 1)),
            (" \n<!-- only -->", .malformed(.noRoot, line: 2)),
            ("<r/><r/>", .malformed(.contentAfterRoot, line: 1)),
            ("<r/>text", .malformed(.contentAfterRoot, line: 1)),
            ("<r/>&amp;", .malformed(.contentAfterRoot, line: 1)),
            ("<r/><![CDATA[x]]>", .malformed(.contentAfterRoot, line: 1)),
            ("text<r/>", .malformed(.textOutsideRoot, line: 1)),
            ("<![CDATA[x]]><r/>", .malformed(.cdataOutsideRoot, line: 1)),
            ("<r><1/></r>", .malformed(.badName("1"), line: 1)),
            ("<\u{85}r/>", .malformed(.badName("\u{85}"), line: 1)),
            ("<r\u{202E}x/>", .malformed(.badAttribute(element: "r"), line: 1)),
            ("<r:/>", .malformed(.badName("r:"), line: 1)),
            ("<:r/>", .malformed(.badName(":r"), line: 1)),
            ("<a::b/>", .malformed(.badName("a::b"), line: 1)),
            ("<r a=1/>", .malformed(.badAttribute(element: "r"), line: 1)),
            ("<r a/>", .malformed(.badAttribute(element: "r"), line: 1)),
            (#"<r a="x"b="y"/>"#, .malformed(.badAttribute(element: "r"), line: 1)),
            (#"<r a="x" / >"#, .malformed(.badAttribute(element: "r"), line: 1)),
            (#"<r a="1" a="2"/>"#, .malformed(.duplicateAttribute("a"), line: 1)),
            (#"<r xmlns:a="u" xmlns:a="v"/>"#, .malformed(.duplicateAttribute("xmlns:a"), line: 1)),
            (#"<r a="<"/>"#, .malformed(.lessThanInAttribute, line: 1)),
            (#"<r a="x/>"#, .malformed(.unexpectedEnd(inside: "an attribute of <r>"), line: 1)),
            ("<r>a]]>b</r>", .malformed(.cdataEndInText, line: 1)),
            ("<r><![CDATA[x</r>", .malformed(.unexpectedEnd(inside: "CDATA"), line: 1)),
            ("<r>a<!-- x -- y -->b</r>", .malformed(.doubleHyphenInComment, line: 1)),
            ("<r>a<!-- x --->b</r>", .malformed(.doubleHyphenInComment, line: 1)),
            ("<r><!-- x </r>", .malformed(.unexpectedEnd(inside: "a comment"), line: 1)),
            ("<r><? x?></r>", .malformed(.badInstruction, line: 1)),
            ("<r><?pi</r>", .malformed(.unexpectedEnd(inside: "a processing instruction"), line: 1)),
            ("<r><?pi!x?></r>", .malformed(.badInstruction, line: 1)),
            ("\n<r><?xml version=\"1.0\"?></r>", .malformed(.badDeclaration, line: 2)),
            (" <?xml version=\"1.0\"?><r/>", .malformed(.badDeclaration, line: 1)),
            ("<?XML version=\"1.0\"?><r/>", .malformed(.badDeclaration, line: 1)),
            ("<?xml?><r/>", .malformed(.badDeclaration, line: 1)),
            ("<?xml encoding=\"utf-8\"?><r/>", .malformed(.badDeclaration, line: 1)),
            ("<?xml version=\"1.0\" foo=\"x\"?><r/>", .malformed(.badDeclaration, line: 1)),
            ("<?xml version=\"10\"?><r/>", .malformed(.badDeclaration, line: 1)),
            ("<?xml version=\"1.0\" standalone=\"maybe\"?><r/>", .malformed(.badDeclaration, line: 1)),
            ("<?xml version=\"1.0\"encoding=\"utf-8\"?><r/>", .malformed(.badDeclaration, line: 1)),
            ("<r><!DOCTYPE r></r>", .declaration),
            ("<!ATTLIST r a CDATA #IMPLIED><r/>", .declaration),
        ] as [(String, XMLRefusal)])
    func refusals(document: String, refusal: XMLRefusal) {
        #expect(throws: refusal, "\(document.debugDescription)") { try Self.read(document) }
    }

    @Test("a refusal reaches the app as invalidReply with a sentence naming the line, names cleaned")
    func refusalSentences() {
        let cases: [(String, String)] = [
            (
                "<a>\n<b>\n</a></b>",
                "The device's reply is invalid (malformed XML at line 3: </a> where </b> was expected); it may not be"
            ),
            (
                "<r>&nbsp;</r>",
                "The device's reply is invalid (XML entity '&nbsp;' at line 1 is refused (without a DTD only &lt; &gt;"
            ),
            ("<r>\u{1B}</r>", "(XML holding the character U+001B at line 1 is refused (XML 1.0 allows no control"),
            ("<r a='1' a='2'/>", "(malformed XML at line 1: attribute 'a' is given twice)"),
            ("<Küche>\n</c>", "(malformed XML at line 2: </c> where </Küche> was expected)"),
            ("<r>\n</\u{202E}r>", #"(malformed XML at line 2: '\u{202E}' is not an XML name)"#),
        ]
        for (document, expected) in cases {
            do {
                _ = try XMLTree.parse(Data(document.utf8))
                Issue.record("read \(document.debugDescription)")
            } catch let error as RemoteVolumeError {
                #expect(error.description.contains(expected), "\(error.description)")
                #expect(!error.description.contains("\u{202E}"))
            } catch {
                Issue.record("untyped \(error)")
            }
        }
    }

    @Test("a GENA property set's escaped LastChange is read through the same reader")
    func lastChange() throws {
        let inner =
            #"<Event xmlns="urn:schemas-upnp-org:metadata-1-0/RCS/"><InstanceID val="0">"#
            + #"<Volume channel="Master" val="37"/><Mute channel='Master' val="1"/></InstanceID></Event>"#
        let body =
            #"<?xml version="1.0"?><e:propertyset xmlns:e="urn:schemas-upnp-org:event-1-0">"#
            + "<e:property><LastChange>\(XMLTree.escape(inner))</LastChange></e:property></e:propertyset>"
        let change = try LastChange.parse(propertySet: Data(body.utf8))
        #expect(change.volume == 37 && change.muted == true)
    }
}
