import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// The script lines a replayed randomized session needs: each route's own starting volume, and a start or a
/// launch whose next line runs at once.
@Suite("Scripts replay a session's timeline")
struct ScriptTimingTests {
    /// The virtual time at which the script's line `text` ran.
    private func time(of text: String, in records: [ScenarioRecord]) -> Instant? {
        records.first { if case .command(text) = $0.kind { true } else { false } }?.time
    }

    @Test("'start buttons &' runs the next line at once; 'start buttons' waits until capture has begun")
    func startAtOnce() throws {
        var behaviour = DeviceBehaviour.default
        behaviour.volumeViewReadyDelay = 0.8
        for (line, waits) in [("start buttons", true), ("start buttons &", false)] {
            let runner = ScenarioRunner(
                scenario: try Scenario(parsing: "volume 0.5\n\(line)\npress up\nwait 1\nstop\n"),
                strategy: .outputVolume,
                behaviour: behaviour)
            let records = runner.run()
            let start = try #require(time(of: line, in: records))
            let press = try #require(time(of: "press up", in: records))
            #expect((press - start >= 0.8) == waits, "\(line): the press at \(press - start) s")
        }
    }

    @Test("'launch &' does not wait for the recovery; 'headphones V' is every other route's volume")
    func launchAtOnceAndHeadphones() throws {
        // At 0 the crash leaves the speaker at VolumeKit's anchor: the launch's recovery has a set to make.
        for (line, waits) in [("launch", true), ("launch &", false)] {
            let script = "volume 0\nheadphones 0.25\nstart\nwait 1\ncrash\n\(line)\nroute headphones\nwait 1\n"
            let runner = ScenarioRunner(scenario: try Scenario(parsing: script), strategy: .outputVolume)
            let records = runner.run()
            let launch = try #require(time(of: line, in: records))
            let next = try #require(time(of: "route headphones", in: records))
            #expect((next > launch) == waits, "\(line): the next line at \(next - launch) s")
            #expect(runner.device.volume(on: .headphones) == 0.25)
            // Waited for, the recovery gave the speaker its 0 back; not waited for, the route moved first.
            if waits { #expect(runner.device.volume(on: .speaker) == 0) }
        }
        #expect(throws: ScenarioError.self) { try Scenario(parsing: "start\nheadphones 0.5\n") }
    }
}
