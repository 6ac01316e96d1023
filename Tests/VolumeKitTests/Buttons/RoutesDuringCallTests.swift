import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Routes that change while the session is not live (a call) are read again when it is: the route in force
/// then is the one VolumeKit follows, not the first one a notification named meanwhile.
@Suite("Routes changed during a call")
struct RoutesDuringCallTests {
    @Test(
        "Back from a call whose routes changed, the route read is followed: no false missing-notification diagnostic",
        arguments: [SimulatedStrategy.outputVolume, .systemNotification, .passive])
    func routesDuringCall(strategy: SimulatedStrategy) throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../scenarios/routes-during-call.txt").standardized
        let scenario = try Scenario(parsing: String(contentsOf: url, encoding: .utf8))
        // Samples of every route-notification rule: the routes changed while reads were stale, and are read then.
        for k in 0..<24 {
            let runner = ScenarioRunner(scenario: scenario, strategy: strategy, behaviour: .sample(UInt64(k)))
            runner.run()
            let names = runner.diagnostics.map(\.name)
            #expect(!names.contains("routeChangeNotNotified"), "sample:\(k) \(names)")
            let verdict = try #require(runner.verdict)
            #expect(verdict.ok, "sample:\(k) \(verdict.violations.map(\.summary))")
        }
    }
}
