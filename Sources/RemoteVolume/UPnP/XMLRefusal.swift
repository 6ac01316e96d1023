/// Why VolumeKit's XML reader refused a document from the network (docs/security.md), as a value.
///
/// ``reason`` is the phrase ``RemoteVolumeError/invalidReply(_:)`` carries: it says what was wrong and,
/// where the document has lines, on which line, so a person can find it in the device's reply. Text from the
/// document (a name, an entity) is cleaned of control characters and cut before it is put in the phrase.
enum XMLRefusal: Error, Sendable, Equatable {
    /// The document is longer than ``XMLTree/maxBytes``.
    case tooLarge(limit: Int)
    /// A UTF-16 or UTF-32 byte-order mark.
    case wideEncoding
    /// A NUL byte: UTF-16 or UTF-32 text without a byte-order mark.
    case nulBytes
    /// An `encoding` other than UTF-8 or ASCII in the XML declaration (the name, lowercased).
    case encoding(String)
    /// Bytes that are not UTF-8.
    case notUTF8
    /// A character XML 1.0 does not allow in a document (a C0 control but tab, line feed and carriage return;
    /// U+FFFE, U+FFFF), written in the document as it is.
    case forbiddenCharacter(Unicode.Scalar, line: Int)
    /// A DTD or other markup declaration (`<!DOCTYPE`, `<!ENTITY`, `<!ELEMENT`, …).
    case declaration
    /// An entity reference other than the five XML predefines (`&nbsp;`): with no DTD nothing defines it.
    case unknownEntity(String, line: Int)
    /// A numeric character reference that is not a number, or names a character XML does not allow (`&#0;`).
    case badCharacterReference(String, line: Int)
    /// More than ``XMLTree/maxDepth`` elements nested in one another.
    case tooDeep(limit: Int)
    /// More than ``XMLTree/maxElements`` elements in the document.
    case tooManyElements(limit: Int)
    /// Markup that is not well-formed XML; `what` says what was found.
    case malformed(Malformation, line: Int)

    /// What was not well-formed.
    enum Malformation: Sendable, Equatable {
        /// The document ended inside this construct (`"<r>"`, `"a comment"`, …).
        case unexpectedEnd(inside: String)
        /// No element at all.
        case noRoot
        /// An element or text after the root element has ended.
        case contentAfterRoot
        /// Text other than white space before the root element.
        case textOutsideRoot
        /// An end tag (`found`) that does not close the open element (`expected`, `nil` when none is open).
        case mismatchedEndTag(found: String, expected: String?)
        /// A name that is not an XML name, or a prefixed name with an empty part (`<r:>`, `<:r>`).
        case badName(String)
        /// A start tag's attributes are not `name="value"` pairs separated by white space.
        case badAttribute(element: String)
        /// The same attribute twice in one start tag.
        case duplicateAttribute(String)
        /// A `<` inside an attribute value.
        case lessThanInAttribute
        /// An `&` that does not start a reference ending in `;`.
        case bareAmpersand
        /// `]]>` in text.
        case cdataEndInText
        /// `--` inside a comment.
        case doubleHyphenInComment
        /// An XML declaration (`<?xml …?>`) anywhere but at the very start, or one without a version or with a
        /// field other than version, encoding and standalone.
        case badDeclaration
        /// A processing instruction without a target name (`<? x?>`).
        case badInstruction
        /// CDATA outside the root element.
        case cdataOutsideRoot
    }

    /// The phrase for ``RemoteVolumeError/invalidReply(_:)``.
    var reason: String {
        let utf8 = "(UPnP documents are UTF-8)"
        switch self {
        case .tooLarge(let limit): return "XML longer than \(limit) bytes is refused"
        case .wideEncoding: return "XML in UTF-16 or UTF-32 is refused \(utf8)"
        case .nulBytes: return "XML with NUL bytes (UTF-16 or UTF-32 text) is refused \(utf8)"
        case .encoding(let name): return "XML in encoding '\(PeerText.clean(name, limit: 32))' is refused \(utf8)"
        case .notUTF8: return "XML that is not valid UTF-8 is refused \(utf8)"
        case .forbiddenCharacter(let scalar, let line):
            let code = String(scalar.value, radix: 16, uppercase: true)
            return "XML holding the character U+\(String(repeating: "0", count: max(0, 4 - code.count)))\(code) "
                + "at line \(line) is refused (XML 1.0 allows no control characters but tab and line breaks)"
        case .declaration: return "XML with a DTD or entity declaration is refused"
        case .unknownEntity(let name, let line):
            return "XML entity '&\(PeerText.clean(name, limit: 32));' at line \(line) is refused (without a DTD "
                + "only &lt; &gt; &amp; &apos; &quot; and numeric references are defined)"
        case .badCharacterReference(let text, let line):
            return "XML character reference '&\(PeerText.clean(text, limit: 32));' at line \(line) is refused "
                + "(not a character XML allows)"
        case .tooDeep(let limit): return "XML nested deeper than \(limit) elements is refused"
        case .tooManyElements(let limit): return "XML with more than \(limit) elements is refused"
        case .malformed(let what, let line): return "malformed XML at line \(line): \(what.phrase)"
        }
    }
}

extension XMLRefusal.Malformation {
    /// What was found, as a phrase after "malformed XML at line N:".
    var phrase: String {
        func shown(_ name: String) -> String { PeerText.clean(name, limit: 40) }
        switch self {
        case .unexpectedEnd(let inside): return "the document ends inside \(inside)"
        case .noRoot: return "no element"
        case .contentAfterRoot: return "content after the root element has ended"
        case .textOutsideRoot: return "text outside the root element"
        case .mismatchedEndTag(let found, let expected?):
            return "</\(shown(found))> where </\(shown(expected))> was expected"
        case .mismatchedEndTag(let found, nil): return "</\(shown(found))> closes no open element"
        case .badName(let name): return "'\(shown(name))' is not an XML name"
        case .badAttribute(let element):
            return "the attributes of <\(shown(element))> are not name=\"value\" pairs separated by spaces"
        case .duplicateAttribute(let name): return "attribute '\(shown(name))' is given twice"
        case .lessThanInAttribute: return "'<' inside an attribute value (it must be written &lt;)"
        case .bareAmpersand: return "'&' that starts no reference (it must be written &amp;)"
        case .cdataEndInText: return "']]>' in text (it must be written ]]&gt;)"
        case .doubleHyphenInComment: return "'--' inside a comment"
        case .badDeclaration:
            return "an XML declaration that is not at the very start, has no version, or has an unknown field"
        case .badInstruction: return "a processing instruction without a target name"
        case .cdataOutsideRoot: return "CDATA outside the root element"
        }
    }
}
