#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
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
        child(name).map { $0.text.trimmingWhitespace() }
    }
    /// The first element with this local name anywhere below (depth-first), or self.
    func first(_ name: String) -> XMLTree? {
        if self.name == name { return self }
        for child in children { if let found = child.first(name) { return found } }
        return nil
    }

    /// The limits every document from the network is read under: nesting, elements, and bytes (the largest
    /// HTTP body VolumeKit reads, `HTTPClient`'s 256 KiB).
    static let maxDepth = 32
    static let maxElements = 10_000
    static let maxBytes = 262_144

    /// Reads a document from the network with VolumeKit's own ``XMLReader``.
    ///
    /// Only UTF-8 (or ASCII) documents without any DTD are read, so there are no external or "billion laughs"
    /// entities (UPnP documents never need one); depth, element count and size are bounded. A refusal is
    /// ``RemoteVolumeError/invalidReply(_:)`` with ``XMLRefusal/reason``'s sentence.
    static func parse(_ data: Data) throws -> XMLTree {
        do {
            return try XMLReader.read(data)
        } catch let refusal as XMLRefusal {
            throw RemoteVolumeError.invalidReply(refusal.reason)
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
