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
        // Both routes at 0.5: the switch shows no KVO; the press 0.1 s later is the first change seen on the new
        // route, read as its own volume. The camera's take-over then brings a `.categoryChange` notification
        // naming the same route (9202-72870638).
        let script = """
            volume 0.5
            start
            wait 2
            route headphones
            wait 0.1
            press down
            wait 0.1
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
}
