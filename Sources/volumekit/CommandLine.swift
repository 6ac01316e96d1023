import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bad usage: printed as one line, exit status 2.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// A subcommand of `volumekit`.
protocol Subcommand {
    /// The word that selects it, e.g. `simulate`.
    static var name: String { get }
    /// One line for `volumekit --help`.
    static var summary: String { get }
    /// The full `--help` text.
    static var help: String { get }
    /// Runs with the arguments after the subcommand's name; returns the exit status.
    static func run(_ arguments: [String]) throws -> Int32
}

/// Reads flags and positional arguments in order.
struct ArgumentReader {
    private(set) var remaining: [String]
    init(_ arguments: [String]) { remaining = arguments }

    /// Removes `--name` if present.
    mutating func flag(_ name: String) -> Bool {
        guard let index = remaining.firstIndex(of: name) else { return false }
        remaining.remove(at: index)
        return true
    }

    /// Removes `--name VALUE` (or `--name=VALUE`) and returns VALUE.
    mutating func option(_ name: String) throws -> String? {
        if let index = remaining.firstIndex(where: { $0.hasPrefix(name + "=") }) {
            let value = String(remaining[index].dropFirst(name.count + 1))
            remaining.remove(at: index)
            return value
        }
        guard let index = remaining.firstIndex(of: name) else { return nil }
        guard index + 1 < remaining.count else { throw UsageError("\(name) needs a value") }
        let value = remaining[index + 1]
        remaining.removeSubrange(index...(index + 1))
        return value
    }

    /// Removes every `--name VALUE` (or `--name=VALUE`) and returns the values in order.
    mutating func options(_ name: String) throws -> [String] {
        var values = [String]()
        while let value = try option(name) { values.append(value) }
        return values
    }

    /// Fails on any remaining `--option` that nobody read.
    func rejectUnknownOptions() throws {
        if let unknown = remaining.first(where: { $0.hasPrefix("--") && $0 != "--" }) {
            throw UsageError("unknown option '\(EchoedText.argument(unknown))'")
        }
    }
}

/// Writes a line to standard error.
func printError(_ text: String) {
    writeUnbuffered(text + "\n", to: STDERR_FILENO)
}

/// Writes `text` to `descriptor` at once, past `print`'s buffer (a screen line, a line the next command in a
/// pipe waits for). A write that fails (a closed pipe) is dropped.
func writeUnbuffered(_ text: String, to descriptor: Int32 = STDOUT_FILENO) {
    _ = RegularFile.write(Array(text.utf8), to: descriptor)
}
