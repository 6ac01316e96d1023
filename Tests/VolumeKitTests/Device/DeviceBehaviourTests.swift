import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

@Suite("Device behaviour as data")
struct DeviceBehaviourTests {
    @Test("At least 15 rules, each with a default inside its range or variants and at least one source")
    func everyRuleIsDescribed() throws {
        let rules = DeviceBehaviour.rules
        #expect(rules.count >= 15)
        #expect(Set(rules.map(\.name)).count == rules.count, "names are unique")
        for rule in rules {
            #expect(!rule.sources.isEmpty, "\(rule.name) has a source")
            #expect(!rule.summary.isEmpty)
            switch rule.values {
            case .seconds(let range), .level(let range):
                let value = try #require(Double(rule.defaultValue))
                #expect(range.contains(value), "\(rule.name)'s default \(value) is inside \(range)")
            case .variants(let names):
                #expect(names.contains(rule.defaultValue), "\(rule.name)'s default is one of its variants")
                #expect(names.count >= 2)
            }
        }
    }

    @Test("Sample 0 is the default; a sample is the same every time and differs from its neighbours")
    func samplesAreReproducible() {
        #expect(DeviceBehaviour.sample(0) == .default)
        #expect(DeviceBehaviour.sample(17) == DeviceBehaviour.sample(17))
        #expect(DeviceBehaviour.sample(17) != DeviceBehaviour.sample(18))
        // Pinned values: the generator is integer-only, so these hold on every machine.
        let sample = DeviceBehaviour.sample(1)
        #expect(sample.assignments == DeviceBehaviour.sample(1).assignments)
        #expect(sample.assignments != DeviceBehaviour.default.assignments)
    }

    @Test("Samples stay inside every rule's range and reach every variant")
    func samplesCoverTheEnvelope() {
        var seen: [String: Set<String>] = [:]
        for k in 1...300 {
            let sample = DeviceBehaviour.sample(UInt64(k))
            for rule in DeviceBehaviour.rules {
                let value = rule.value(in: sample)
                switch rule.values {
                case .seconds(let range), .level(let range):
                    #expect(range.contains(Double(value) ?? -1), "\(rule.name)=\(value)")
                case .variants:
                    seen[rule.name, default: []].insert(value)
                }
            }
        }
        for rule in DeviceBehaviour.rules {
            if case .variants(let names) = rule.values {
                #expect(seen[rule.name] == Set(names), "\(rule.name) reaches every variant")
            }
        }
    }

    @Test("A rule is set by name from text; bad names and values are one clear sentence")
    func setByName() throws {
        var behaviour = DeviceBehaviour()
        try behaviour.set("kvoLatency=0.02")
        try behaviour.set("downPressRefusal=cachedEqualSetDrop")
        #expect(behaviour.kvoLatency == 0.02)
        #expect(behaviour.downPressRefusal == .cachedEqualSetDrop)
        #expect(throws: DeviceBehaviourError.unknownRule("kvo")) { try behaviour.set("kvo=1") }
        #expect(throws: DeviceBehaviourError.badValue(rule: "kvoLatency", value: "0.5", expected: "0…0.03 s")) {
            try behaviour.set("kvoLatency=0.5")
        }
        #expect(throws: DeviceBehaviourError.notAnAssignment("kvoLatency")) { try behaviour.set("kvoLatency") }
        #expect(
            DeviceBehaviourError.badValue(rule: "siriShape", value: "loud", expected: "a | b").description
                == "'loud' is not a value of siriShape, which takes a | b.")
        #expect(try DeviceBehaviour(profile: "sample:5") == .sample(5))
        #expect(throws: DeviceBehaviourError.unknownProfile("turbo")) { try DeviceBehaviour(profile: "turbo") }
        #expect(try DeviceBehaviour(profile: "slow").volumeViewReadyDelay == 1)
        #expect(try DeviceBehaviour(profile: "fast").kvoLatency == 0)
    }
}
