import Foundation
import Testing

@testable import VolumeKitCore

/// VolumeKit's own string helpers (which keep swift-corelibs-foundation out of its Linux builds) give what
/// Foundation's gave for the same input: Foundation, which the tests may use, is the oracle.
@Suite("Plain-text helpers match Foundation's")
struct PlainTextTests {
    static let texts = [
        "", " ", "  a  ", "\ta b\t", "\u{00A0}x\u{2003}", "\n y \r\n", "é ", " 음량 ", "a\u{0301} ", "\u{2028}z\u{2029}",
        "x\u{85}",
    ]

    @Test("trimming spaces and white space, as trimmingCharacters(in:) does", arguments: texts)
    func trimming(_ text: String) {
        #expect(text.trimmingSpaces() == text.trimmingCharacters(in: .whitespaces))
        #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test("replacing, searching and padding, as Foundation's methods do")
    func replacingSearchingPadding() {
        let cases: [(String, String, String)] = [
            ("aaa", "aa", "b"), ("a_b_c", "_", "-"), ("%ld%%", "%ld", "50"), ("50%%", "%%", "%"), ("", "x", "y"),
            ("<a href=\"x\">&</a>", "&", "&amp;"), ("abcabc", "c", ""), ("e\u{0301}e", "e", "E"),
        ]
        for (text, target, replacement) in cases {
            #expect(
                text.replacingAll(target, with: replacement)
                    == text.replacingOccurrences(of: target, with: replacement), "\(text)")
            let ours = text.firstRange(ofText: target).map { text.distance(from: text.startIndex, to: $0.lowerBound) }
            let theirs = text.range(of: target).map { text.distance(from: text.startIndex, to: $0.lowerBound) }
            #expect(ours == theirs, "\(text) \(target)")
        }
        for (text, length) in [("abc", 5), ("abcdef", 3), ("", 2), ("12", 2)] {
            #expect(text.padded(toLength: length) == text.padding(toLength: length, withPad: " ", startingAt: 0))
        }
    }

    @Test("numbers formatted by vsnprintf as String(format:) formats them, long results included")
    func formatting() {
        #expect(cFormat("%.3f", 0.1234) == String(format: "%.3f", 0.1234))
        #expect(cFormat("#%02X%02X%02X", 255, 8, 0) == String(format: "#%02X%02X%02X", 255, 8, 0))
        #expect(cFormat("%.1f ± %.1f ms", 12.25, 0.05) == String(format: "%.1f ± %.1f ms", 12.25, 0.05))
        #expect(cFormat("%%%02X", 10) == String(format: "%%%02X", 10))
        let long = String(repeating: "x", count: 300) + "%.2f"
        #expect(cFormat(long, 1.5) == String(format: long, 1.5))
        #expect(cFormat("%.0f%%", 99.5) == String(format: "%.0f%%", 99.5))
    }
}
