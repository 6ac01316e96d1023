import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// A parsed XML element: local name (prefix dropped), attributes, children and text.
struct XMLTree: Sendable, Equatable {
    var name: String
    var attributes: [String: String] = [:]
    var children: [XMLTree] = []
    var text = ""

    /// The first child with this local name.
    func child(_ name: String) -> XMLTree? { children.first { $0.name == name } }
    /// Every child with this local name.
    func children(_ name: String) -> [XMLTree] { children.filter { $0.name == name } }
    /// The trimmed text of the first child with this local name.
    func value(_ name: String) -> String? {
        child(name).map { $0.text.trimmingCharacters(in: .whitespacesAndNewlines) }
    }
    /// The first element with this local name anywhere below (depth-first), or self.
    func first(_ name: String) -> XMLTree? {
        if self.name == name { return self }
        for child in children { if let found = child.first(name) { return found } }
        return nil
    }

    /// The limits every document from the network is parsed under.
    static let maxDepth = 32
    static let maxElements = 10_000

    /// Parses a document from the network.
    ///
    /// Hostile input is refused before it reaches the parser (see ``screen(_:)``): only UTF-8 (or ASCII)
    /// documents, and no DTD at all, so no external or "billion laughs" entities (UPnP documents never need
    /// one). External entity resolution is off in the parser as well. Depth and element count are bounded.
    static func parse(_ data: Data) throws -> XMLTree {
        try screen(data)
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.shouldReportNamespacePrefixes = false
        let builder = XMLTreeBuilder()
        parser.delegate = builder
        let ok = parser.parse()
        if let failure = builder.failure { throw RemoteVolumeError.invalidReply(failure) }
        guard ok, let root = builder.root else {
            let reason = parser.parserError.map { "malformed XML (\(($0 as NSError).code))" } ?? "malformed XML"
            throw RemoteVolumeError.invalidReply(reason)
        }
        return root
    }

    /// Refuses what must not reach `XMLParser` (docs/security.md).
    ///
    /// - Any encoding but UTF-8/ASCII: a UTF-16 or UTF-32 byte-order mark, any NUL byte (UTF-16/32 text
    ///   without a BOM is full of them; UTF-8 XML never holds one), an `encoding=` other than UTF-8/ASCII in
    ///   the XML declaration (UTF-7, EBCDIC… could spell `<!DOCTYPE` in bytes a UTF-8 scan cannot see), or
    ///   bytes that are not valid UTF-8. UDA 1.1 §2.1 requires UTF-8 for every UPnP document.
    /// - Any markup declaration: `<!` followed by anything but `--` (a comment) or `[CDATA[`. That covers
    ///   `<!DOCTYPE`, `<!ENTITY`, `<!ELEMENT`, `<!ATTLIST` and `<!NOTATION` in any letter case.
    static func screen(_ data: Data) throws {
        let bytes = [UInt8](data)
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE])
            || bytes.starts(with: [0x00, 0x00, 0xFE, 0xFF])
        {
            throw RemoteVolumeError.invalidReply("XML in UTF-16 or UTF-32 is refused (UPnP documents are UTF-8)")
        }
        if bytes.contains(0) {
            throw RemoteVolumeError.invalidReply(
                "XML with NUL bytes (UTF-16 or UTF-32 text) is refused (UPnP documents are UTF-8)")
        }
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        if body.starts(with: Array("<?xml".utf8)), let declarationEnd = firstIndex(of: Array("?>".utf8), in: body) {
            let declaration = String(decoding: body[body.startIndex..<declarationEnd], as: UTF8.self).lowercased()
            if let range = declaration.range(of: "encoding") {
                let rest = declaration[range.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\t" }
                if let quote = rest.first, quote == "\"" || quote == "'" {
                    let name = rest.dropFirst().prefix { $0 != quote }
                    guard ["utf-8", "utf8", "us-ascii", "ascii"].contains(String(name)) else {
                        throw RemoteVolumeError.invalidReply(
                            "XML in encoding '\(PeerText.clean(name, limit: 32))' is refused (UPnP documents are UTF-8)"
                        )
                    }
                }
            }
        }
        guard isValidUTF8(body) else {
            throw RemoteVolumeError.invalidReply("XML that is not valid UTF-8 is refused (UPnP documents are UTF-8)")
        }
        var index = body.startIndex
        while let open = firstIndex(of: [0x3C, 0x21], in: body[index...]) {  // "<!"
            let after = body[(open + 2)...]
            if after.starts(with: Array("--".utf8)) || after.starts(with: Array("[CDATA[".utf8)) {
                index = open + 2
                continue
            }
            throw RemoteVolumeError.invalidReply("XML with a DTD or entity declaration is refused")
        }
    }

    private static func firstIndex(of needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        var index = haystack.startIndex
        let last = haystack.endIndex - needle.count
        while index <= last {
            guard let hit = haystack[index...last].firstIndex(of: needle[0]) else { return nil }
            if haystack[hit..<(hit + needle.count)].elementsEqual(needle) { return hit }
            index = hit + 1
        }
        return nil
    }

    private static func isValidUTF8(_ bytes: ArraySlice<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// Escapes text for an XML element or attribute value.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.append(character)
            }
        }
        return result
    }
}

private final class XMLTreeBuilder: NSObject, XMLParserDelegate {
    var stack: [XMLTree] = []
    var root: XMLTree?
    var failure: String?
    var elements = 0

    private static func localName(_ name: String) -> String {
        name.split(separator: ":").last.map(String.init) ?? name
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        elements += 1
        if stack.count >= XMLTree.maxDepth || elements > XMLTree.maxElements {
            failure = "XML too deep or too large"
            parser.abortParsing()
            return
        }
        stack.append(XMLTree(name: Self.localName(elementName), attributes: attributeDict))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }

    func parser(_ parser: XMLParser, foundCDATA cdataBlock: Data) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += String(decoding: cdataBlock, as: UTF8.self)
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
    ) {
        guard let done = stack.popLast() else { return }
        if stack.isEmpty { root = done } else { stack[stack.count - 1].children.append(done) }
    }

    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
        failure = "external entity refused"
        parser.abortParsing()
        return nil
    }
}
