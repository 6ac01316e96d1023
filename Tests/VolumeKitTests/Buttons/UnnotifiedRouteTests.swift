import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// A route change whose notification never comes (`routeNotification=missing`, RBVolumeButtons #18) is said
/// with `routeChangeNotNotified`: only the route change's own notification stands for it.
@Suite("A route change with no notification is said, whatever notification comes next")
struct UnnotifiedRouteTests {
    @Test("A camera taking the session over 0.1 s later does not stand for the route change's notification")
    func takeOverAfterUnnotifiedRoute() throws {
        // Both routes at 0.5: the switch shows no KVO; the press 20 ms later, before the route is read again, is
        // the first change seen on the new route, read as its own volume. The camera's take-over then brings a `.categoryChange` notification
        // naming the same route (9202-72870638).
        let script = """
            volume 0.5
            start
            wait 2.01
            route headphones
            wait 0.02
            press down
            wait 0.18
            takeover camera
            wait 1
            stop
            """
        let behaviour = try DeviceBehaviour(rules: ["routeNotification=missing", "sessionTakeover=reconfiguresOnly"])
        let runner = ScenarioRunner(
            scenario: try Scenario(parsing: script), strategy: .outputVolume, behaviour: behaviour)
        runner.run()
        #expect(runner.diagnostics.map(\.name).contains("routeChangeNotNotified"))
        let verdict = try #require(runner.verdict)
        #expect(verdict.ok, "\(verdict.violations)")
        #expect(verdict.excused.map(\.limit) == [OracleLimit.routeChangeNotNotified.name])
    }

    @Test(
        "A silent route change is read within 50 ms: a press 0.1 s after it counts from the new route's own volume",
        arguments: [SimulatedStrategy.outputVolume, .systemNotification, .passive])
    func pressJustAfterSilentRouteChange(strategy: SimulatedStrategy) throws {
        // scenarios/headphones.txt on phones that post no route notification: the headphones at the speaker's
        // volume show no KVO, and the down press 0.1 s later was the first sign of them — read as their own
        // volume, the press lost (111 of the sweep's 500 samples, outputVolume). Across samples, also where the
        // up press's reset is in flight or just landed when the route is read: the read waits for a KVO of the
        // route's own volume, which between equal volumes never comes, then counts.
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../scenarios/headphones.txt").standardized
        let scenario = try Scenario(parsing: String(contentsOf: url, encoding: .utf8))
        for sample: UInt64 in 0..<40 {
            var behaviour = DeviceBehaviour.sample(sample)
            behaviour.routeNotification = .missing
            let runner = ScenarioRunner(scenario: scenario, strategy: strategy, behaviour: behaviour)
            runner.run()
            let verdict = try #require(runner.verdict)
            let limits = verdict.excused.map(\.limit).filter { $0 != OracleLimit.ambiguousStep.name }
            #expect(verdict.ok && limits.isEmpty, "sample:\(sample): \(verdict.violations), \(limits)")
        }
    }
}
