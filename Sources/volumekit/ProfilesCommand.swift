import VolumeKitCore
import VolumeKitTesting

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `volumekit profiles`: lists every uncertain rule of the simulated device, or the values of one sample.
enum ProfilesCommand: Subcommand {
    static let name = "profiles"
    static let summary = "List the simulated device's uncertain rules (default, range, sources) or one sample"
    static let help = """
        USAGE: volumekit profiles [--json] [--sample K]

        Lists every rule of the simulated iPhone that is an assumption about iOS rather than a known fact:
        its default (today's best guess), its plausible range or variants, and its sources. With --sample K,
        prints the rule values of the K-th seeded sample of that envelope instead (the same on every run and
        machine; sample 0 is the default), as used by 'volumekit simulate --profile sample:K'.

        OPTIONS:
          --json       one JSON object a line: {"name":…, "summary":…, "default":…, "range":…, "unit":"s"|"volume"
                       |"variants":[…], "sources":[…]}; with --sample: {"sample":K, "values":{RULE:VALUE, …}}
          --sample K   the values of sample K (K a whole number)

        Named profiles for --profile: \(DeviceBehaviour.profiles.map { "\($0.name) (\($0.summary))" }.joined(separator: "; ")).
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        var reader = ArgumentReader(arguments)
        let json = reader.flag("--json")
        let sampleText = try reader.option("--sample")
        try reader.rejectUnknownOptions()
        guard reader.remaining.isEmpty else {
            throw UsageError(
                "profiles takes no arguments besides --json and --sample K; '\(EchoedText.argument(reader.remaining[0]))' is extra."
            )
        }
        if let sampleText {
            guard let k = UInt64(sampleText) else {
                throw UsageError("--sample needs a whole number, not '\(EchoedText.argument(sampleText))'.")
            }
            let behaviour = DeviceBehaviour.sample(k)
            if json {
                let values = DeviceBehaviour.rules.map { "\"\($0.name)\":\(jsonValue($0, $0.value(in: behaviour)))" }
                print("{\"sample\":\(k), \"values\":{\(values.joined(separator: ", "))}}")
            } else {
                for assignment in behaviour.assignments { print(assignment) }
            }
            return 0
        }
        for rule in DeviceBehaviour.rules {
            if json {
                let values: String
                switch rule.values {
                case .seconds(let range):
                    values = "\"range\":[\(range.lowerBound), \(range.upperBound)], \"unit\":\"s\""
                case .variants(let names):
                    values = "\"variants\":[\(names.map { "\"\($0)\"" }.joined(separator: ", "))]"
                case .level(let range):
                    values = "\"range\":[\(range.lowerBound), \(range.upperBound)], \"unit\":\"volume\""
                }
                let sources = rule.sources.map { "\"\(escape($0))\"" }.joined(separator: ", ")
                print(
                    "{\"name\":\"\(rule.name)\", \"summary\":\"\(escape(rule.summary))\", \"default\":\(jsonValue(rule, rule.defaultValue)), \(values), \"sources\":[\(sources)]}"
                )
            } else {
                print("\(rule.name) = \(rule.defaultValue)   (\(rule.valuesText))")
                print("    \(rule.summary)")
                print("    sources: \(rule.sources.joined(separator: "; "))")
            }
        }
        return 0
    }

    private static func jsonValue(_ rule: DeviceBehaviour.Rule, _ value: String) -> String {
        if case .variants = rule.values { return "\"\(escape(value))\"" }
        return value
    }

    private static func escape(_ text: String) -> String {
        text.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"")
    }
}
