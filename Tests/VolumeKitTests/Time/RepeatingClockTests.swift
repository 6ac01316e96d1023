import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// `ClockClient.repeating(every:_:)`: the route poll's timer (`VolumeButtonsEngine.routePollInterval`).
@Suite("A repeating action on the clock")
struct RepeatingClockTests {
    @Test("runs once per interval until cancelled, and never after")
    func runsUntilCancelled() {
        let device = SimulatedDevice()
        let runs = Locked([Instant]())
        let clock = device.clock
        let handle = clock.repeating(every: 0.05) { runs.withLock { $0.append(clock.now()) } }
        device.advance(by: 0.26)
        #expect(runs.current.count == 5, "\(runs.current)")
        #expect(zip(runs.current, runs.current.dropFirst()).allSatisfy { abs($1 - $0 - 0.05) < 1e-9 })
        handle.cancel()
        device.advance(by: 1)
        #expect(runs.current.count == 5)
    }

    @Test("an action that cancels its own repetition ends it")
    func cancelledFromItsAction() {
        let device = SimulatedDevice()
        let runs = Locked(0)
        let handle = Locked<CancellationHandle?>(nil)
        handle.withLock {
            $0 = device.clock.repeating(every: 0.1) {
                runs.withLock { $0 += 1 }
                if runs.current == 3 { handle.current?.cancel() }
            }
        }
        device.advance(by: 2)
        #expect(runs.current == 3)
    }
}
