import Foundation

enum SimulateCommand: Subcommand {
    static let name = "simulate"
    static let summary = "Run a scenario on the simulated iOS device"
    static let help = "USAGE: volumekit simulate [--strategy NAME] [--json] [SCRIPT]"
    static func run(_ arguments: [String]) throws -> Int32 { throw UsageError("not built yet") }
}
