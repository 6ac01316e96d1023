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
    /// Hostile input is refused before it reaches the parser: no DTD at all (`<!DOCTYPE` / `<!ENTITY`, so no
    /// external or "billion laughs" entities; UPnP documents never need one), and external entity
    /// resolution is off in the parser as well. Depth and element count are bounded.
    static func parse(_ data: Data) throws -> XMLTree {
        if data.range(of: Data("<!DOCTYPE".utf8)) != nil || data.range(of: Data("<!doctype".utf8)) != nil
            || data.range(of: Data("<!ENTITY".utf8)) != nil {
            throw RemoteVolumeError.invalidReply("XML with a DTD or entity declaration is refused")
        }
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

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
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

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += String(decoding: CDATABlock, as: UTF8.self)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard let done = stack.popLast() else { return }
        if stack.isEmpty { root = done } else { stack[stack.count - 1].children.append(done) }
    }

    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
        failure = "external entity refused"
        parser.abortParsing()
        return nil
    }
}
