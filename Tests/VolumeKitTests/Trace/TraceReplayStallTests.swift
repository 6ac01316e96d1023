import Foundation
import Testing
import VolumeKitCore

@testable import VolumeKitTesting

/// The replay always ends (issue 23, item 1): at 2^53 s an engine's deadline `now + 0.1` rounds to `now`, so
/// its timer has delay 0 and fires at its own instant forever. The decoder refuses such times; the replay
/// world stops such a loop by itself too, so no trace — made in code, or by a future engine — can hang it.
@Suite("A replay whose timers cannot move the clock on ends")
struct TraceReplayStallTests {
    /// A trace of the simulated field check with `origin` as its clock origin, made in code (no decoder check).
    static func trace(origin: Double) throws -> Trace {
        var trace = try Trace(jsonLines: Data(HostileTraceTests.withOrigin("0").utf8))
        trace.header.clockOrigin = origin
        return trace
    }

    @Test("An engine-style deadline that rounds to now stops the world at that instant, and it stays stopped")
    func deadlineThatRoundsToNow() throws {
        let world = TraceReplayWorld(trace: try Self.trace(origin: 1e16), feature: "buttons")
        let clock = world.makeClients().clock
        let fired = Locked(0)
        // The engines' DeadlineTimer: an absolute deadline now + 0.1, scheduled as its distance from now. The
        // test stops re-arming after a million firings, so that without the world's bound it fails, not hangs.
        @Sendable func arm() {
            let deadline = clock.now() + 0.1
            _ = clock.schedule(max(0, deadline - clock.now())) {
                let count = fired.withLock { count in
                    count += 1
                    return count
                }
                if count < 1_000_000 { arm() }
            }
        }
        arm()
        world.run(until: world.origin + 1)
        #expect(world.stalledAt == world.origin)
        #expect(fired.current == TraceReplayWorld.maximumTimersPerInstant)
        world.run(until: world.origin + 10)
        #expect(fired.current == TraceReplayWorld.maximumTimersPerInstant, "a stopped world runs nothing more")
    }

    @Test("A timer of a positive delay always moves the clock on, even where now + delay == now")
    func positiveDelayMovesOn() throws {
        let world = TraceReplayWorld(trace: try Self.trace(origin: 1e16), feature: "buttons")
        let clock = world.makeClients().clock
        let times = Locked([Instant]())
        @Sendable func arm() {
            _ = clock.schedule(0.1) {
                let count = times.withLock { times in
                    times.append(clock.now())
                    return times.count
                }
                if count < 1_000_000 { arm() }
            }
        }
        arm()
        world.run(until: world.origin + 100)
        #expect(world.stalledAt == nil)
        let seen = times.current
        #expect(!seen.isEmpty && seen.count <= 100, "\(seen.count) firings")
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test("VolumeKit's engine replaying times at 2^53 s ends, and the report says where it stopped")
    func engineAtHugeTimesEnds() throws {
        let report = try TraceReplay.replay(try Self.trace(origin: 1e16), settle: 2)
        #expect(
            report.diagnostics.contains {
                $0.hasPrefix("the replay stopped at t = ") && $0.contains(" s: timers fired 100000 times in a row")
            },
            "\(report.diagnostics)")
        #expect(report.textLines.contains { $0.contains("the rest of the trace was not replayed") })
    }
}
