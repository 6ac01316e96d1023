import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// At the top rail the private notification reports every landing of a set, also one that changes nothing: each
/// landing of ours there must be expected, or it reads as an up press.
@Suite("Every landing of ours at the top rail is ours")
struct RailLandingEchoTests {
    @Test("An up press at 1 while the settled anchor's set is on its way: two landings of 1, no second press")
    func upPressWhileAnchorInFlight() throws {
        // A down tap from 1, then an up tap just as VolumeKit sets the exact anchor (1) once the buttons are
        // quiet: that set lands after the press, and the press's own reset to 1 lands after it (fresh samples
        // 6747, 6829, 7649, 7959 and 8321 of the sweep: "pressed again during the hold").
        let script = "volume 1\nstart\nwait 1\npress down\nwait 0.21\npress up x2 every 0.1\nwait 1\nstop\n"
        let behaviour = try DeviceBehaviour(rules: ["sliderLatency=0.05", "kvoLatency=0.015"])
        let runner = ScenarioRunner(
            scenario: try Scenario(parsing: script), strategy: .systemNotification, behaviour: behaviour)
        let records = runner.run()
        let pressed = records.compactMap { record -> VolumeButton? in
            if case .button(let button, .pressed) = record.kind { return button }
            return nil
        }
        #expect(pressed == [.down, .up, .up])
        let verdict = try #require(runner.verdict)
        #expect(verdict.ok, "\(verdict.violations)")
    }

    @Test(
        "The same on iOS 18.2, where a second set of 1 is dropped as equal to the slider's cache: the next press is seen"
    )
    func nextPressAfterDroppedSet() throws {
        // A second set of 1 made for the press would be dropped (the cache already holds 1) while its echo was
        // expected: the next up press's notification, 0.1 s later, was taken for that echo (4467-35374173,
        // 4894-38755587).
        let script = "volume 1\nstart\nwait 1\npress down\nwait 0.205\npress up x2 every 0.1\nwait 1\nstop\n"
        var behaviour = try DeviceBehaviour(profile: "ios18")
        try behaviour.set("kvoLatency=0.015")
        let runner = ScenarioRunner(
            scenario: try Scenario(parsing: script), strategy: .systemNotification, behaviour: behaviour)
        runner.run()
        let verdict = try #require(runner.verdict)
        #expect(verdict.ok, "\(verdict.violations)")
    }
}
