import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Fails the running test on a call of VolumeKit's it does not expect: records an `Issue` naming the client
/// and member (`audioSession.setActive`), and `why` the test expects no such call, at the caller's line.
func failOnUnexpectedCall(_ why: String, sourceLocation: SourceLocation = #_sourceLocation)
    -> @Sendable (_ call: String) -> Void
{
    { call in Issue.record("VolumeKit called \(call): \(why)", sourceLocation: sourceLocation) }
}

/// Clients that fail the running test on any call (``VolumeKitClients/unimplemented(device:onUnexpected:)``),
/// saying `why` none is expected: give code under test the ones it must leave alone.
func unimplementedClients(_ why: String, sourceLocation: SourceLocation = #_sourceLocation) -> VolumeKitClients {
    .unimplemented(onUnexpected: failOnUnexpectedCall(why, sourceLocation: sourceLocation))
}

/// `clients` whose audio session may be read — its category, route and outputs, whether other audio plays — but
/// not taken: configuring, activating or priming it fails the running test, saying `why`.
func readOnlySession(_ clients: VolumeKitClients, _ why: String, sourceLocation: SourceLocation = #_sourceLocation)
    -> VolumeKitClients
{
    var clients = clients
    let failing = unimplementedClients(why, sourceLocation: sourceLocation).audioSession
    clients.audioSession.setConfiguration = failing.setConfiguration
    clients.audioSession.setActive = failing.setActive
    clients.audioSession.primeOutput = failing.primeOutput
    return clients
}
