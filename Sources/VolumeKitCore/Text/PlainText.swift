#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The handful of string operations VolumeKit's Linux builds would otherwise take from
// swift-corelibs-foundation (`String(format:)`, `trimmingCharacters(in:)`, `replacingOccurrences(of:with:)`,
// `range(of:)`, `padding(toLength:withPad:startingAt:)`), whose start alone would double a one-shot
// `volumekit` process (docs/decisions/cli.md, "On Linux VolumeKit builds on FoundationEssentials"). Same results as those for the text VolumeKit
// formats, on every platform.

/// `format` filled in by C's `vsnprintf`, as `String(format:)` does for numeric conversions (`%.3f`,
/// `%02X`, `%d`): a number's text is the C library's on every platform. Only numeric arguments.
package func cFormat(_ format: String, _ arguments: any CVarArg...) -> String {
    withVaList(arguments) { list in
        var buffer = [CChar](repeating: 0, count: 128)
        let needed = Int(vsnprintf(&buffer, buffer.count, format, list))
        guard needed >= buffer.count else {
            return String(decoding: buffer.prefix(max(needed, 0)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return withVaList(arguments) { again in
            buffer = [CChar](repeating: 0, count: needed + 1)
            _ = vsnprintf(&buffer, buffer.count, format, again)
            return String(decoding: buffer.prefix(needed).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}

extension StringProtocol {
    /// The text without spaces and tabs at either end (Unicode space separators included), as
    /// `trimmingCharacters(in: .whitespaces)`.
    @inlinable package func trimmingSpaces() -> String {
        trimming { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
    }

    /// The text without white space or line breaks at either end, as
    /// `trimmingCharacters(in: .whitespacesAndNewlines)`.
    @inlinable package func trimmingWhitespace() -> String {
        trimming { $0.properties.isWhitespace }
    }

    @inlinable package func trimming(_ drops: (Unicode.Scalar) -> Bool) -> String {
        let scalars = String(self).unicodeScalars
        guard let first = scalars.firstIndex(where: { !drops($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !drops($0) })!
        return String(scalars[first...last])
    }

    /// The text with every occurrence of `target` (searched left to right, not overlapping) replaced by
    /// `replacement`, as `replacingOccurrences(of:with:)`.
    @inlinable package func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return String(self) }
        var result = ""
        var rest = self[...]
        while let found = rest.firstRange(ofText: target) {
            result += rest[..<found.lowerBound]
            result += replacement
            rest = rest[found.upperBound...]
        }
        return result + rest
    }

    /// The range of the first occurrence of `target`, comparing characters, as `range(of:)`.
    @inlinable package func firstRange(ofText target: some StringProtocol) -> Range<Index>? {
        guard let head = target.first else { return nil }
        var start = startIndex
        while let candidate = self[start...].firstIndex(of: head) {
            if self[candidate...].starts(with: target) {
                return candidate..<index(candidate, offsetBy: target.count)
            }
            start = index(after: candidate)
        }
        return nil
    }

    /// The text cut or padded with spaces to `length` characters, as
    /// `padding(toLength:withPad: " ", startingAt: 0)`.
    @inlinable package func padded(toLength length: Int) -> String {
        count >= length ? String(prefix(length)) : self + String(repeating: " ", count: length - count)
    }
}
