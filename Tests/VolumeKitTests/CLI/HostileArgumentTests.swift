import Foundation
import TestSupport
import Testing

/// Every message of `volumekit` that repeats an argument shows it cut and cleaned by the one rule
/// (`EchoedText`, issue 23, item 7): a 10,000-character argument holding a terminal's escape sequences
/// (clear the screen, set the window title, ring the bell) comes back as at most a line, with `\u{1B}` and
/// `\u{7}` written out — never as the raw bytes a terminal would act on.
@Suite("volumekit echoes hostile arguments cut and cleaned")
struct HostileArgumentTests {
    /// An argument a terminal would act on, and longer than any message should repeat.
    static let hostile = "\u{1B}]0;owned\u{7}\u{1B}[2J" + String(repeating: "x", count: 10_000)
    /// The same characters as a message shows them.
    static let shown = #"\u{1B}]0;owned\u{7}\u{1B}[2J"#

    static func check(_ arguments: [String], status expected: Int32) async throws {
        let result = try await runChildProcess(volumekitExecutable, arguments, deadline: 60)
        let label = arguments.map { String($0.prefix(24)) }.joined(separator: " ")
        #expect(result.exited && result.status == expected, "\(label): status \(result.status)")
        let text = result.output + result.error
        #expect(text.contains(Self.shown), "\(label): \(text.prefix(300))")
        #expect(
            !text.unicodeScalars.contains { $0 != "\n" && ($0.value < 0x20 || (0x7F...0x9F).contains($0.value)) },
            "\(label): a control character reached the terminal")
        for line in text.split(separator: "\n") {
            #expect(line.count < 400, "\(label): a line of \(line.count) characters")
        }
    }

    @Test("every subcommand `--help` lists is found by its name (the list and the lookup are kept apart for start-up)")
    func everyListedSubcommandIsFound() async throws {
        let help = try await runChildProcess(volumekitExecutable, ["--help"], deadline: 60)
        let listed = help.output.split(separator: "\n").drop { !$0.hasPrefix("SUBCOMMANDS:") }.dropFirst()
            .prefix { $0.hasPrefix("  ") }.compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(listed.count == 6, "\(help.output)")
        for name in listed {
            let result = try await runChildProcess(volumekitExecutable, [name, "--help"], deadline: 60)
            #expect(result.exited && result.status == 0 && !result.output.isEmpty, "\(name): \(result.error)")
        }
    }

    @Test("usage errors: a subcommand, an option, an action, a value")
    func usageErrors() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: volumekitExecutable.path))
        let hostile = Self.hostile
        for arguments in [
            [hostile], ["simulate", "--" + hostile], ["simulate", "--strategy", hostile],
            ["simulate", "--profile", hostile], ["simulate", "--set", hostile + "=1"], ["simulate", "--set", hostile],
            ["simulate", "--set", "kvoLatency=" + hostile], ["trace", hostile], ["sounds", hostile],
            ["profiles", hostile], ["profiles", "--sample", hostile], ["hud", hostile],
            ["hud", "preview", "--style", hostile], ["hud", "preview", "--device", hostile],
            ["hud", "preview", "--level", hostile], ["hud", "preview", "--orientation", hostile],
            ["hud", "preview", "--bump", hostile], ["hud", "preview", hostile],
        ] {
            try await Self.check(arguments, status: 2)
        }
    }

    @Test("paths: a script, a trace, a sound file, a trace to write, an SVG to write")
    func paths() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: volumekitExecutable.path))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-args-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appendingPathComponent("gone").appendingPathComponent(Self.hostile).path
        try await Self.check(["simulate", missing], status: 2)
        try await Self.check(["simulate", "--trace", missing], status: 2)
        try await Self.check(["trace", "fit", missing], status: 1)
        try await Self.check(["sounds", "check", missing], status: 1)
        try await Self.check(["hud", "preview", "--output", missing], status: 1)
        // A sound whose name ends in an escape sequence: its line, and the warning that quotes its extension.
        let sound = folder.appendingPathComponent("beep." + Self.hostile.prefix(20))
        try SoundFileErrorTests.wav.write(to: sound)
        try await Self.check(["sounds", "check", sound.path], status: 0)
    }
}
