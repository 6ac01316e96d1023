extension XMLReader {
    /// The `encoding` names an XML declaration may give, lowercased.
    static let acceptedEncodings: Set<String> = ["utf-8", "utf8", "us-ascii", "ascii"]

    /// Refuses a document that is not UTF-8 XML 1.0 text before any markup is read (docs/security.md), and
    /// returns where the text starts (after a UTF-8 byte-order mark).
    ///
    /// - A UTF-16 or UTF-32 byte-order mark, any NUL byte (UTF-16/32 text without a BOM is full of them;
    ///   UTF-8 XML never holds one), an `encoding=` other than UTF-8/ASCII in the XML declaration (UTF-7,
    ///   EBCDIC… could spell markup in bytes a UTF-8 reader cannot see), or bytes that are not valid UTF-8.
    ///   UDA 1.1 §2.1 requires UTF-8 for every UPnP document.
    /// - A character XML 1.0 forbids (§2.2): C0 controls but tab, line feed and carriage return, U+FFFE and
    ///   U+FFFF (surrogates are already not UTF-8).
    static func screen(_ bytes: [UInt8]) throws -> Int {
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE])
            || bytes.starts(with: [0x00, 0x00, 0xFE, 0xFF])
        {
            throw XMLRefusal.wideEncoding
        }
        if bytes.contains(0) { throw XMLRefusal.nulBytes }
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        if let name = declaredEncoding(bytes[start...]), !acceptedEncodings.contains(name) {
            throw XMLRefusal.encoding(name)
        }
        var iterator = bytes[start...].makeIterator()
        var decoder = UTF8()
        var line = 1
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar.value == 0x0A {
                    line += 1
                } else if (scalar.value < 0x20 && scalar.value != 0x09 && scalar.value != 0x0D)
                    || scalar.value == 0xFFFE || scalar.value == 0xFFFF
                {
                    throw XMLRefusal.forbiddenCharacter(scalar, line: line)
                }
            case .emptyInput: return start
            case .error: throw XMLRefusal.notUTF8
            }
        }
    }

    /// The lowercased `encoding` of an XML declaration at the start of `body`, if it names one. Read before
    /// the bytes are checked as UTF-8, so that a Latin-1 document is refused by its declared name.
    private static func declaredEncoding(_ body: ArraySlice<UInt8>) -> String? {
        guard body.starts(with: Array("<?xml".utf8)) else { return nil }
        let fields = body.dropFirst(5)
        guard let end = fields.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        let declaration = String(decoding: fields[..<end], as: UTF8.self).lowercased()
        guard let range = declaration.firstRange(ofText: "encoding") else { return nil }
        let rest = declaration[range.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\t" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        return String(rest.dropFirst().prefix { $0 != quote })
    }
}
