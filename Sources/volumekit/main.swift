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

/// Every subcommand, in the order `--help` lists them. A function, not a global: the runtime builds an array
/// of `any Subcommand.Type` from its mangled type name, about 3 % of a whole `remote set` process.
func subcommands() -> [any Subcommand.Type] {
    [
        SimulateCommand.self, ProfilesCommand.self, HUDCommand.self, SoundsCommand.self, RemoteCommand.self,
        TraceCommand.self,
    ]
}

/// The subcommand called `name`, found without the list (``subcommands()``).
func subcommand(named name: String) -> (any Subcommand.Type)? {
    switch name {
    case SimulateCommand.name: SimulateCommand.self
    case ProfilesCommand.name: ProfilesCommand.self
    case HUDCommand.name: HUDCommand.self
    case SoundsCommand.name: SoundsCommand.self
    case RemoteCommand.name: RemoteCommand.self
    case TraceCommand.name: TraceCommand.self
    default: nil
    }
}

/// `volumekit --help`. A function, not a global: a top-level constant is built at every start, and this one
/// (with Foundation's `padding(toLength:)`) cost about a millisecond of each `remote set`.
@MainActor func toolHelp() -> String {
    let lines = subcommands().map { command in
        "  " + command.name + String(repeating: " ", count: max(0, 10 - command.name.count)) + " " + command.summary
    }
    return """
        volumekit — VolumeKit's command-line tool

        USAGE: volumekit <subcommand> [options]

        SUBCOMMANDS:
        \(lines.joined(separator: "\n"))

        Run 'volumekit <subcommand> --help' for a subcommand's options; 'volumekit --version' prints the version.
        """
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let first = arguments.first else {
    printError("volumekit: missing subcommand (see 'volumekit --help')")
    exit(2)
}
if first == "--version" {
    print("volumekit \(VolumeKitVersion.current)")
    exit(0)
}
if first == "--help" || first == "-h" || first == "help" {
    print(toolHelp())
    exit(0)
}
guard let command = subcommand(named: first) else {
    printError("volumekit: unknown subcommand '\(EchoedText.argument(first))' (see 'volumekit --help')")
    exit(2)
}
let rest = Array(arguments.dropFirst())
if rest.contains("--help") || rest.contains("-h") {
    print(command.help)
    exit(0)
}
do {
    exit(try command.run(rest))
} catch let error as UsageError {
    printError("volumekit \(command.name): \(error.message)")
    exit(2)
} catch {
    printError("volumekit \(command.name): \(error)")
    exit(1)
}
