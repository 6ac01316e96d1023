import Foundation
import Testing
import VolumeKitCore

@testable import RemoteVolume

/// Runs blocking `work` on a thread of its own and returns how long it took there, with the error it threw.
///
/// Measured on that thread, so the figure is the I/O's, not how late a busy test machine resumed an
/// awaiting task (the cooperative pool has 2 threads here and other suites keep them busy).
func timedOnThread(_ work: @escaping @Sendable () throws -> Void) async -> (seconds: Double, error: RemoteVolumeError?)
{
    await withCheckedContinuation { continuation in
        Thread {
            let start = DispatchTime.now().uptimeNanoseconds
            var failure: RemoteVolumeError?
            do { try work() } catch { failure = error.asRemoteVolumeError }
            continuation.resume(returning: (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, failure))
        }.start()
    }
}

/// A peer that greets like MPD, reads one command, then does `misbehave`.
func hostileMPD(greeting: String = "OK MPD 0.23.5\n", _ misbehave: @escaping @Sendable (LinePeerConnection) -> Void)
    throws -> LinePeer
{
    try LinePeer { connection in
        connection.send(greeting)
        guard connection.readLine() != nil else { return }
        misbehave(connection)
    }
}

/// The error `work` throws as a ``RemoteVolumeError`` (or records an issue if it does not throw one).
func remoteError(_ work: () async throws -> Void) async -> RemoteVolumeError? {
    do {
        try await work()
        Issue.record("no error")
        return nil
    } catch let error as RemoteVolumeError {
        return error
    } catch {
        Issue.record("not a RemoteVolumeError: \(error)")
        return nil
    }
}

/// A peer that reads one request and answers with `reply(id)` (the request's id), then waits.
func hostileSnapserver(_ reply: @escaping @Sendable (Int, LinePeerConnection) -> Void) throws -> LinePeer {
    try LinePeer { connection in
        guard let line = connection.readLine(),
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let id = object["id"] as? Int
        else { return }
        reply(id, connection)
        _ = connection.readLine(timeout: 10)  // Until the client hangs up.
    }
}
