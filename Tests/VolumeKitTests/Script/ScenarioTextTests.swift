import Foundation
import TestSupport
import Testing
import VolumeKitCore
import VolumeKitTesting

/// `volumekit simulate`'s human output reads without VolumeKit's source (issue 23): a legend, the starting
/// volume, words instead of identifiers — while `--json` stays exactly as scripts parse it.
@Suite("simulate's human output")
struct ScenarioTextTests {
    @Test("Ring/Silent states and the session are words, not identifiers; JSON is unchanged")
    func wordsNotIdentifiers() {
        let suppressed = ScenarioRecord(time: 1, kind: .mute(.unknown(.systemSoundsSuppressed)))
        #expect(
            suppressed.text
                == "1.0      Ring/Silent switch unknown: system sounds are suppressed (the app's audio session records), so it cannot be probed"
        )
        #expect(ScenarioRecord(time: 1, kind: .mute(.ringing)).text == "1.0      Ring/Silent switch on ring")
        #expect(ScenarioRecord(time: 1, kind: .mute(.silent)).text == "1.0      Ring/Silent switch on silent")
        for reason in MuteUnknownReason.allCases {
            let text = ScenarioRecord(time: 1, kind: .mute(.unknown(reason))).text
            #expect(!text.contains(reason.rawValue), "\(text)")
        }
        let end = ScenarioRecord(time: nil, kind: .end(volume: 0.3, category: .soloAmbient, sessionActive: false))
        #expect(end.text == "end      volume 0.3, the app's audio session: solo ambient (the default), inactive")
        for category in AudioCategory.allCases {
            let text = ScenarioRecord(time: nil, kind: .end(volume: 1, category: category, sessionActive: true)).text
            #expect(!text.contains(category.rawValue) || category.rawValue == category.rawValue.lowercased(), "\(text)")
        }
        // Scripts parse the JSON: it keeps its identifiers.
        #expect(suppressed.json == #"{"t":1.0, "type":"mute", "state":"unknown", "reason":"systemSoundsSuppressed"}"#)
        #expect(end.json == #"{"type":"end", "volume":0.3, "category":"soloAmbient", "sessionActive":false}"#)
    }

    @Test("A long time widens its column instead of losing its milliseconds (a trace's uptime clock)")
    func longTimesAreNotCut() {
        #expect(ScenarioRecord(time: 48213.7723, kind: .button(.up, .pressed)).text == "48213.7723 button up pressed")
        #expect(ScenarioRecord(time: 0.125, kind: .button(.up, .pressed)).text == "0.125    button up pressed")
    }

    @Test("The human output starts with a one-line legend and the starting volume; --json has neither")
    func legendAndStartingVolume() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: volumekitExecutable.path))
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("legend-\(UUID()).txt")
        defer { try? FileManager.default.removeItem(at: script) }
        try Data("volume 0.25\nstart\npress up\nstop\n".utf8).write(to: script)
        func output(_ arguments: [String]) async throws -> [String] {
            try await runChildProcess(volumekitExecutable, arguments).output.split(separator: "\n").map(String.init)
        }
        let human = try await output(["simulate", script.path])
        #expect(human.first?.hasPrefix("# seconds · '>' a line of your script") == true, "\(human.prefix(3))")
        #expect(human.dropFirst().first == "start    volume 0.25", "\(human.prefix(3))")
        #expect(human.contains { $0.hasPrefix("verdict") }, "\(human)")
        #expect(human.last?.hasPrefix("end      volume ") == true)
        let json = try await output(["simulate", "--json", script.path])
        #expect(json.allSatisfy { $0.hasPrefix("{") }, "\(json.prefix(3))")
    }
}
