#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// VolumeKit's own reader for the few XML documents UPnP sends — device descriptions, service descriptions,
/// SOAP replies and GENA property sets — building an ``XMLTree`` (docs/security.md).
///
/// It reads what XML 1.0 calls a well-formed document without a DTD: elements, attributes, text, CDATA,
/// comments and processing instructions (both skipped), the five predefined entities and numeric character
/// references, line ends normalised to line feeds. Namespaces are not resolved: an element keeps its local
/// name (the prefix dropped, so `<s:Body>` and `<Body xmlns="…">` are both `Body`) and attributes keep their
/// names as written, `xmlns` declarations included. Everything else is refused with an ``XMLRefusal``: a
/// DTD or any markup declaration, entities other than the five, malformed nesting, and documents over the
/// size, depth or element bounds. Foundation's `XMLParser` is not used: on Linux it brings libxml2 and ICU
/// into every process that links RemoteVolume (half the start-up of `volumekit remote`), and it crashes on
/// a processing instruction without data (`<?pi?>`).
struct XMLReader {
    private let bytes: [UInt8]
    private var position: Int
    /// The elements open at `position`, outermost first, and their names as written (for end tags).
    private var open: [XMLTree] = []
    private var openNames: [ArraySlice<UInt8>] = []
    private var elements = 0
    private var root: XMLTree?

    /// Reads a whole document, or throws the ``XMLRefusal`` that says why it is refused. (Not `throws(XMLRefusal)`:
    /// Swift 6.3's SILGen crashes on the typed throws of ``screen(_:)`` when compiling for iOS.)
    static func read(_ data: Data) throws -> XMLTree {
        guard data.count <= XMLTree.maxBytes else { throw XMLRefusal.tooLarge(limit: XMLTree.maxBytes) }
        let bytes = [UInt8](data)
        var reader = XMLReader(bytes: bytes, position: try screen(bytes))
        return try reader.document()
    }

    private init(bytes: [UInt8], position: Int) {
        self.bytes = bytes
        self.position = position
    }

    private mutating func document() throws -> XMLTree {
        if starts(with: "<?xml"), position + 5 < bytes.count, Self.isSpace(bytes[position + 5]) {
            try declaration()
        }
        while position < bytes.count {
            switch bytes[position] {
            case .lessThan: try markup()
            case .ampersand:
                guard !open.isEmpty else { throw malformed(root == nil ? .textOutsideRoot : .contentAfterRoot) }
                let scalar = try reference()
                open[open.count - 1].text.unicodeScalars.append(scalar)
            default: try text()
            }
        }
        if let name = openNames.last { throw malformed(.unexpectedEnd(inside: "<\(Self.string(name))>")) }
        guard let root else { throw malformed(.noRoot) }
        return root
    }

    // MARK: Markup

    private mutating func markup() throws {
        switch byte(at: position + 1) {
        case UInt8(ascii: "/"): try endTag()
        case UInt8(ascii: "?"): try instruction()
        case UInt8(ascii: "!"):
            if starts(with: "<!--") {
                try comment()
            } else if starts(with: "<![CDATA[") {
                try cdata()
            } else {
                throw XMLRefusal.declaration
            }
        default: try startTag()
        }
    }

    private mutating func startTag() throws {
        if root != nil { throw malformed(.contentAfterRoot) }
        position += 1
        let qualifiedName = try name()
        elements += 1
        if open.count >= XMLTree.maxDepth { throw XMLRefusal.tooDeep(limit: XMLTree.maxDepth) }
        if elements > XMLTree.maxElements { throw XMLRefusal.tooManyElements(limit: XMLTree.maxElements) }
        var element = XMLTree(name: Self.string(Self.localName(qualifiedName)))
        while true {
            let spaced = skipSpace()
            guard position < bytes.count else { throw malformed(.unexpectedEnd(inside: "<\(element.name)>")) }
            if bytes[position] == .greaterThan {
                position += 1
                open.append(element)
                openNames.append(qualifiedName)
                return
            }
            if bytes[position] == UInt8(ascii: "/") {
                guard byte(at: position + 1) == .greaterThan else {
                    throw malformed(.badAttribute(element: element.name))
                }
                position += 2
                close(element)
                return
            }
            guard spaced else { throw malformed(.badAttribute(element: element.name)) }
            let attribute = Self.string(try name())
            skipSpace()
            guard byte(at: position) == UInt8(ascii: "=") else { throw malformed(.badAttribute(element: element.name)) }
            position += 1
            skipSpace()
            let value = try attributeValue(of: element.name)
            guard element.attributes.updateValue(value, forKey: attribute) == nil else {
                throw malformed(.duplicateAttribute(attribute))
            }
        }
    }

    private mutating func endTag() throws {
        if root != nil { throw malformed(.contentAfterRoot) }
        position += 2
        let found = try name()
        skipSpace()
        guard byte(at: position) == .greaterThan else {
            throw malformed(.unexpectedEnd(inside: "</\(Self.string(found))>"))
        }
        guard let expected = openNames.last, expected.elementsEqual(found) else {
            throw malformed(.mismatchedEndTag(found: Self.string(found), expected: openNames.last.map(Self.string)))
        }
        position += 1
        openNames.removeLast()
        close(open.removeLast())
    }

    /// Hands a finished element to its parent, or makes it the root.
    private mutating func close(_ element: XMLTree) {
        if open.isEmpty { root = element } else { open[open.count - 1].children.append(element) }
    }

    /// `<!-- … -->`, skipped; `--` may not appear inside (XML 1.0 §2.5).
    private mutating func comment() throws {
        let start = position + 4
        guard let hyphens = find("--", from: start) else { throw malformed(.unexpectedEnd(inside: "a comment")) }
        guard byte(at: hyphens + 2) == .greaterThan else {
            position = hyphens
            throw malformed(.doubleHyphenInComment)
        }
        position = hyphens + 3
    }

    /// `<![CDATA[ … ]]>`: its text, as written (line ends normalised).
    private mutating func cdata() throws {
        guard !open.isEmpty else { throw malformed(root == nil ? .cdataOutsideRoot : .contentAfterRoot) }
        let start = position + 9
        guard let end = find("]]>", from: start) else { throw malformed(.unexpectedEnd(inside: "CDATA")) }
        appendText(bytes[start..<end])
        position = end + 3
    }

    /// `<?target …?>`, skipped. An XML declaration is only allowed at the very start.
    private mutating func instruction() throws {
        position += 2
        guard position < bytes.count, Self.isNameStart(scalar(at: position).0) else { throw malformed(.badInstruction) }
        let target = try name()
        if Self.string(target).lowercased() == "xml" {
            position -= 2 + target.count
            throw malformed(.badDeclaration)
        }
        guard let end = find("?>", from: position) else {
            throw malformed(.unexpectedEnd(inside: "a processing instruction"))
        }
        guard end == position || Self.isSpace(bytes[position]) else { throw malformed(.badInstruction) }
        position = end + 2
    }

    /// `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` at the start: a version, and only these fields.
    /// The encoding was checked by ``screen(_:)``; it is checked again here by the same list.
    private mutating func declaration() throws {
        position += 5
        var fields: [String] = []
        while true {
            let spaced = skipSpace()
            if starts(with: "?>") { break }
            guard spaced, position < bytes.count, Self.isNameStart(scalar(at: position).0) else {
                throw malformed(
                    position < bytes.count ? .badDeclaration : .unexpectedEnd(inside: "the XML declaration"))
            }
            let field = Self.string(try name())
            skipSpace()
            guard byte(at: position) == UInt8(ascii: "=") else { throw malformed(.badDeclaration) }
            position += 1
            skipSpace()
            let value = try attributeValue(of: "?xml")
            switch field {
            case "version" where fields.isEmpty:
                guard value.hasPrefix("1."), value.count > 2,
                    value.dropFirst(2).allSatisfy({ ("0"..."9").contains($0) })
                else {
                    throw malformed(.badDeclaration)
                }
            case "encoding" where fields == ["version"]:
                guard Self.acceptedEncodings.contains(value.lowercased()) else {
                    throw XMLRefusal.encoding(value.lowercased())
                }
            case "standalone" where fields.first == "version" && !fields.contains("standalone"):
                guard value == "yes" || value == "no" else { throw malformed(.badDeclaration) }
            default: throw malformed(.badDeclaration)
            }
            fields.append(field)
        }
        guard !fields.isEmpty else { throw malformed(.badDeclaration) }
        position += 2
    }

    // MARK: Text

    /// Character data up to the next `<` or `&`: white space only outside the root element.
    private mutating func text() throws {
        let start = position
        while position < bytes.count, bytes[position] != .lessThan, bytes[position] != .ampersand { position += 1 }
        let run = bytes[start..<position]
        guard !open.isEmpty else {
            guard run.allSatisfy(Self.isSpace) else {
                position = start
                throw malformed(root == nil ? .textOutsideRoot : .contentAfterRoot)
            }
            return
        }
        if let end = find("]]>", from: start, before: position) {
            position = end
            throw malformed(.cdataEndInText)
        }
        appendText(run)
    }

    /// Appends text to the innermost open element, `\r\n` and lone `\r` read as `\n` (XML 1.0 §2.11).
    private mutating func appendText(_ run: ArraySlice<UInt8>) {
        guard !run.isEmpty else { return }
        if !run.contains(.carriageReturn) {
            open[open.count - 1].text += String(decoding: run, as: UTF8.self)
            return
        }
        var normalised: [UInt8] = []
        normalised.reserveCapacity(run.count)
        var index = run.startIndex
        while index < run.endIndex {
            if run[index] == .carriageReturn {
                normalised.append(.lineFeed)
                if index + 1 < run.endIndex, run[index + 1] == .lineFeed { index += 1 }
            } else {
                normalised.append(run[index])
            }
            index += 1
        }
        open[open.count - 1].text += String(decoding: normalised, as: UTF8.self)
    }

    /// A quoted attribute value: references decoded, each tab and line end read as one space (XML 1.0 §3.3.3).
    private mutating func attributeValue(of element: String) throws -> String {
        guard let quote = byte(at: position), quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            throw malformed(.badAttribute(element: element))
        }
        position += 1
        var value: [UInt8] = []
        while true {
            guard position < bytes.count else {
                throw malformed(.unexpectedEnd(inside: "an attribute of <\(element)>"))
            }
            let byte = bytes[position]
            switch byte {
            case quote:
                position += 1
                return String(decoding: value, as: UTF8.self)
            case .lessThan: throw malformed(.lessThanInAttribute)
            case .ampersand:
                value.append(contentsOf: String(try reference()).utf8)
                continue
            case .carriageReturn:
                value.append(.space)
                if self.byte(at: position + 1) == .lineFeed { position += 1 }
            case .lineFeed, .tab: value.append(.space)
            default: value.append(byte)
            }
            position += 1
        }
    }

    /// `&name;` (one of the five XML predefines) or `&#…;` / `&#x…;`, at `position`; moves past it.
    private mutating func reference() throws -> Unicode.Scalar {
        let start = position + 1
        // The longest reference read is `&#x0010FFFF;`; an unknown name is cut for the message anyway.
        guard let end = bytes[start..<min(bytes.count, start + 40)].firstIndex(of: UInt8(ascii: ";")),
            end > start
        else { throw malformed(.bareAmpersand) }
        let body = Self.string(bytes[start..<end])
        defer { position = end + 1 }
        if body.hasPrefix("#") {
            let hex = body.hasPrefix("#x")
            let digits = body.dropFirst(hex ? 2 : 1)
            guard digits.count <= 8, let value = UInt32(digits, radix: hex ? 16 : 10),
                !digits.contains(where: { $0 == "+" || $0 == "-" }),
                let scalar = Unicode.Scalar(value), Self.isAllowed(scalar)
            else { throw XMLRefusal.badCharacterReference(body, line: line()) }
            return scalar
        }
        switch body {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "apos": return "'"
        case "quot": return "\""
        default:
            guard Self.isNameStart(scalar(at: start).0) else { throw malformed(.bareAmpersand) }
            throw XMLRefusal.unknownEntity(body, line: line())
        }
    }

    // MARK: Names and bytes

    /// An XML name at `position` (XML 1.0 §2.3's `Name`), moved past. A prefixed name needs both parts:
    /// `a:b`, not `a:` or `:b`.
    private mutating func name() throws -> ArraySlice<UInt8> {
        let start = position
        while position < bytes.count {
            let (scalar, width) = scalar(at: position)
            guard position == start ? Self.isNameStart(scalar) : Self.isNameCharacter(scalar) else { break }
            position += width
        }
        let name = bytes[start..<position]
        guard !name.isEmpty else {
            guard position < bytes.count else { throw malformed(.unexpectedEnd(inside: "a name")) }
            throw malformed(.badName(Self.string(bytes[start..<(start + scalar(at: start).width)])))
        }
        if name.first == .colon || name.last == .colon
            || zip(name, name.dropFirst()).contains(where: { $0 == .colon && $1 == .colon })
        {
            position = start
            throw malformed(.badName(Self.string(name)))
        }
        return name
    }

    /// The character at `index` and its length in bytes (the document is valid UTF-8: ``screen(_:)``).
    private func scalar(at index: Int) -> (Unicode.Scalar, width: Int) {
        let lead = bytes[index]
        guard lead >= 0x80 else { return (Unicode.Scalar(lead), 1) }
        let width = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
        var value = UInt32(lead) & (0xFF >> (width + 1))
        for offset in 1..<width { value = value << 6 | UInt32(bytes[index + offset] & 0x3F) }
        return (Unicode.Scalar(value) ?? "\u{FFFD}", width)
    }

    /// The part of a name after its prefix.
    private static func localName(_ name: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard let colon = name.lastIndex(of: .colon) else { return name }
        return name[(colon + 1)...]
    }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = position
        while position < bytes.count, Self.isSpace(bytes[position]) { position += 1 }
        return position > start
    }

    private func byte(at index: Int) -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private func starts(with text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        return text.withUTF8Buffer { bytes[position..<(position + count)].elementsEqual($0) }
    }

    /// Where `text` next starts at or after `start`, ending before `limit` (the end of the document if `nil`).
    private func find(_ text: StaticString, from start: Int, before limit: Int? = nil) -> Int? {
        let limit = limit ?? bytes.count
        return text.withUTF8Buffer { needle -> Int? in
            var index = start
            while index + needle.count <= limit {
                guard let hit = bytes[index..<limit].firstIndex(of: needle[0]), hit + needle.count <= limit else {
                    return nil
                }
                if bytes[hit..<(hit + needle.count)].elementsEqual(needle) { return hit }
                index = hit + 1
            }
            return nil
        }
    }

    /// The line of `position`, counted from 1, for a refusal.
    private func line() -> Int { bytes[..<min(position, bytes.count)].reduce(1) { $1 == .lineFeed ? $0 + 1 : $0 } }

    private func malformed(_ what: XMLRefusal.Malformation) -> XMLRefusal { .malformed(what, line: line()) }

    private static func string(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == .space || byte == .tab || byte == .lineFeed || byte == .carriageReturn
    }

    /// XML 1.0 §2.3 `NameStartChar`.
    private static func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x41...0x5A, 0x61...0x7A, 0x5F, 0x3A: return true  // A-Z a-z _ :
        case 0xC0...0xD6, 0xD8...0xF6, 0xF8...0x2FF, 0x370...0x37D, 0x37F...0x1FFF, 0x200C...0x200D,
            0x2070...0x218F, 0x2C00...0x2FEF, 0x3001...0xD7FF, 0xF900...0xFDCF, 0xFDF0...0xFFFD, 0x10000...0xEFFFF:
            return true
        default: return false
        }
    }

    /// XML 1.0 §2.3 `NameChar`.
    private static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x2D, 0x2E, 0xB7, 0x300...0x36F, 0x203F...0x2040: return true  // 0-9 - . · combining
        default: return isNameStart(scalar)
        }
    }

    /// A character XML 1.0 allows in a document (§2.2), also through a reference.
    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }
}

extension UInt8 {
    fileprivate static let lessThan = UInt8(ascii: "<")
    fileprivate static let greaterThan = UInt8(ascii: ">")
    fileprivate static let ampersand = UInt8(ascii: "&")
    fileprivate static let colon = UInt8(ascii: ":")
    fileprivate static let space = UInt8(ascii: " ")
    fileprivate static let tab = UInt8(ascii: "\t")
    fileprivate static let lineFeed = UInt8(ascii: "\n")
    fileprivate static let carriageReturn = UInt8(ascii: "\r")
}
