import Foundation
import Testing

/// Architecture.md and RuleIndex.md name parts of the code and the suites that pin each rule: every name must
/// exist, so the map cannot drift from the code unnoticed (issue 24: "its claims hold").
@Suite("The architecture map and the rule index name what exists")
struct ArchitectureClaimsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..")
        .standardized
    static let catalog = root.appendingPathComponent("Sources/VolumeKitCore/VolumeKitCore.docc")

    /// Every `.swift` file's text under `folder`.
    static func swiftTexts(in folder: String) -> [String] {
        let base = root.appendingPathComponent(folder)
        let paths = FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? []
        return paths.filter { $0.hasSuffix(".swift") }.compactMap {
            try? String(contentsOf: base.appendingPathComponent($0), encoding: .utf8)
        }
    }

    /// The names Sources/ declares as a type (`struct`, `enum`, `class`, `actor`, `protocol`, `typealias`), read in
    /// one pass: a `String.contains` per name and keyword over the joined sources took 4.6 s of two cores, holding
    /// the test pool's threads while the network suites' deadlines ran out in the full run.
    static let declared: Set<String> = {
        let keywords: Set<Substring> = ["struct", "enum", "class", "actor", "protocol", "typealias"]
        var names = Set<String>()
        for text in swiftTexts(in: "Sources") {
            let tokens = text.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") })
            for (keyword, name) in zip(tokens, tokens.dropFirst()) where keywords.contains(keyword) {
                names.insert(String(name))
            }
        }
        return names
    }()

    /// The names of the test suites (`@Suite("…")`) under Tests/.
    static let suites: Set<String> = {
        var names = Set<String>()
        for text in swiftTexts(in: "Tests") {
            for piece in text.components(separatedBy: "@Suite(\"").dropFirst() {
                if let end = piece.firstIndex(of: "\"") { names.insert(String(piece[..<end])) }
            }
        }
        return names
    }()

    /// Whether `name` (a type, or `Type/member`) is declared in Sources/.
    static func isDeclared(_ name: String) -> Bool {
        declared.contains(name.split(separator: "/").first.map(String.init) ?? name)
    }

    /// The rule index's rows: (symbols, suites).
    static func rows() throws -> [(symbols: [String], suites: [String])] {
        let text = try String(contentsOf: catalog.appendingPathComponent("RuleIndex.md"), encoding: .utf8)
        return text.split(separator: "\n").filter {
            $0.hasPrefix("| ") && !$0.hasPrefix("| Rule") && !$0.hasPrefix("| ---")
        }.map { line in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let symbols = cells[1].split(separator: "`", omittingEmptySubsequences: false).enumerated().filter {
                $0.offset % 2 == 1
            }.map {
                String($0.element)
            }.filter { $0.first?.isUppercase == true }
            let suites = cells[2].split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter {
                $0.offset % 2 == 1
            }.map {
                String($0.element)
            }
            return (symbols, suites)
        }
    }

    @Test("every symbol the rule index names is declared in Sources/")
    func symbolsExist() throws {
        let rows = try Self.rows()
        #expect(rows.count >= 20)
        for row in rows {
            #expect(!row.symbols.isEmpty)
            for symbol in row.symbols { #expect(Self.isDeclared(symbol), "\(symbol) is not declared in Sources/") }
        }
    }

    @Test("every suite the rule index names exists, and each rule has one")
    func suitesExist() throws {
        for row in try Self.rows() {
            #expect(!row.suites.isEmpty)
            for suite in row.suites {
                let exists = Self.suites.contains(suite)
                #expect(exists, "no test suite is named \"\(suite)\"")
            }
        }
    }

    @Test("every part the architecture picture names is declared in Sources/")
    func pictureNamesExist() throws {
        let text = try String(contentsOf: Self.catalog.appendingPathComponent("Architecture.md"), encoding: .utf8)
        let parts = text.components(separatedBy: "```")
        let picture = parts.count > 1 ? parts[1] : ""
        // The CamelCase words of the picture (type names, module names); acronyms (UPnP, MPD) and Apple's
        // frameworks are not VolumeKit's.
        let words = picture.split(whereSeparator: { !$0.isLetter }).map(String.init).filter {
            $0.first?.isUppercase == true && $0.filter(\.isUppercase).count >= 2 && $0.contains(where: \.isLowercase)
                && !["SwiftUI", "UPnP"].contains($0)
        }
        #expect(words.count >= 25)
        let manager = FileManager.default
        for word in Set(words) {
            let isModule = manager.fileExists(atPath: Self.root.appendingPathComponent("Sources/\(word)").path)
            #expect(isModule || Self.isDeclared(word), "the picture names \(word), which is not declared")
        }
    }
}
