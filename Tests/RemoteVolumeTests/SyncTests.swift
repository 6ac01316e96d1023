import Foundation
import RemoteVolume
import Testing
import VolumeKitCore

/// Runs a ``RemoteVolumeSync`` against a simulated network device in virtual time: every action is carried
/// out as the driver would, with the device answering `latency` seconds later.
struct SyncSimulation {
    var machine: RemoteVolumeSync
    var deviceLevel: Int
    var latency: TimeInterval
    /// Decides the outcome of each SetVolume attempt, in order (nil = success).
    var failures: [RemoteVolumeError?] = []
    /// Decides the outcome of each read, in order (nil = success).
    var readFailures: [RemoteVolumeError?] = []
    /// While `now` is in this range the device is down: every request and read is refused.
    var down: Range<Instant>?
    private(set) var sent: [(time: Instant, level: Int)] = []
    private(set) var reads: [Instant] = []
    private(set) var shown: [Int] = []
    private(set) var errors: [RemoteVolumeError] = []
    private var events: [(time: Instant, order: Int, run: (inout SyncSimulation, Instant) -> Void)] = []
    private var order = 0
    private var wakeAt: Instant?
    private(set) var now: Instant = 0

    init(
        level: Int, latency: TimeInterval, configuration: RemoteVolumeSync.Configuration = .init(),
        knownLevel: Bool = true
    ) {
        machine = RemoteVolumeSync(configuration: configuration, knownLevel: knownLevel ? level : nil)
        deviceLevel = level
        self.latency = latency
    }

    var setCount: Int { sent.count }

    mutating func at(_ time: Instant, _ run: @escaping (inout SyncSimulation, Instant) -> Void) {
        order += 1
        events.append((time, order, run))
    }

    mutating func press(_ button: VolumeButton, at time: Instant) {
        at(time) { sim, now in sim.apply(sim.machine.press(button, at: now)) }
    }

    /// The device reports `level` by itself at `time` (an event), without changing its own level.
    mutating func report(_ level: Int, at time: Instant) {
        at(time) { sim, now in sim.apply(sim.machine.deviceReported(level, at: now)) }
    }

    /// Someone changes the device's level with its own controls at `time`, and it sends an event.
    mutating func externalChange(to level: Int, at time: Instant) {
        at(time) { sim, now in
            sim.deviceLevel = level
            sim.apply(sim.machine.deviceReported(level, at: now))
        }
    }

    mutating func run(until end: Instant = 60) {
        while let next = events.indices.min(by: {
            (events[$0].time, events[$0].order) < (events[$1].time, events[$1].order)
        }),
            events[next].time <= end
        {
            let event = events.remove(at: next)
            now = event.time
            event.run(&self, now)
        }
    }

    mutating func apply(_ actions: [RemoteVolumeSync.Action]) {
        // One wake-up aimed at the machine's deadline, as the controller keeps it.
        if machine.nextDeadline != wakeAt, let instant = machine.nextDeadline {
            wakeAt = instant
            at(instant) { sim, now in
                guard sim.wakeAt == instant else { return }
                sim.wakeAt = nil
                sim.apply(sim.machine.tick(at: now))
            }
        } else if machine.nextDeadline == nil {
            wakeAt = nil
        }
        for action in actions {
            switch action {
            case .setVolume(let level, let request):
                sent.append((now, level))
                let outcome =
                    down?.contains(now) == true
                    ? .unreachable("Connection refused") : failures.isEmpty ? nil : failures.removeFirst()
                at(now + latency) { sim, now in
                    if let error = outcome {
                        sim.apply(sim.machine.requestFailed(request, error: error, at: now))
                    } else {
                        sim.deviceLevel = level
                        sim.apply(sim.machine.requestSucceeded(request, at: now))
                    }
                }
            case .readVolume:
                reads.append(now)
                at(now + latency) { sim, now in
                    if sim.down?.contains(now) == true {
                        sim.apply(sim.machine.readFailed(.unreachable("Connection refused"), at: now))
                    } else if let error = sim.readFailures.isEmpty ? nil : sim.readFailures.removeFirst() {
                        sim.apply(sim.machine.readFailed(error, at: now))
                    } else {
                        sim.apply(sim.machine.volumeRead(sim.deviceLevel, at: now))
                    }
                }
            case .showLevel(let level):
                shown.append(level)
            case .failed(let error):
                errors.append(error)
            }
        }
    }
}

@Suite("Remote volume sync machine")
struct RemoteVolumeSyncTests {
    /// 16 presses 25 ms apart: the burst of seed 000's user holding the phone's key.
    static func burst(_ sim: inout SyncSimulation, _ button: VolumeButton = .up, count: Int = 16, start: Instant = 0) {
        for index in 0..<count { sim.press(button, at: start + Double(index) * 0.025) }
    }

    @Test(
        "a 16-press burst in 400 ms sends at most 5 SetVolume and lands exactly", arguments: [0.002, 0.02, 0.15, 0.3])
    func burstCoalesces(latency: Double) {
        var sim = SyncSimulation(level: 30, latency: latency)
        Self.burst(&sim)
        sim.run()
        #expect(sim.setCount <= 5, "sent \(sim.sent.map(\.level)) with latency \(latency)")
        #expect(sim.deviceLevel == 62)
        #expect(sim.shown.last == 62)
        #expect(sim.machine.isBusy == false)
        #expect(sim.errors.isEmpty)
    }

    /// How long each press of `sim`'s 16-press burst waited for a request carrying its level (or a later one).
    static func waits(_ sim: SyncSimulation, from level: Int = 30, step: Int = 2) -> [Double] {
        (0..<16).map { index in
            let pressed = Double(index) * 0.025
            let wanted = level + step * (index + 1)
            let carrier = sim.sent.first { $0.time >= pressed - 1e-9 && $0.level >= wanted }
            return (carrier?.time ?? .infinity) - pressed
        }
    }

    @Test(
        "with the 0.1 s spacing no press of a burst waits more than 0.1 s for its request on a LAN (issue 23)",
        arguments: [0.002, 0.02])
    func burstWaits(latency: Double) {
        var sim = SyncSimulation(level: 30, latency: latency)
        Self.burst(&sim)
        sim.run()
        let waits = Self.waits(sim)
        // Issue 23's target: p99 ≤ 120 ms at ≤ 5 requests, the final level exact. Of 16 presses the p99 is
        // the longest wait.
        #expect(waits.max()! <= 0.1 + 1e-9, "waits \(waits) with latency \(latency)")
        #expect(sim.setCount <= 5 && sim.deviceLevel == 62)
        // The old 0.2 s spacing: 3 requests, but a press waited up to 0.175 s.
        var old = SyncSimulation(level: 30, latency: latency, configuration: .init(minimumInterval: 0.2))
        Self.burst(&old)
        old.run()
        #expect(old.setCount <= 3 && old.deviceLevel == 62)
        #expect(Self.waits(old).max()! > 0.15)
    }

    @Test("a lone press is sent at once, one step away")
    func lonePressIsImmediate() {
        var machine = RemoteVolumeSync(configuration: .init(step: 5), knownLevel: 40)
        let actions = machine.press(.down, at: 10)
        #expect(actions.contains(.setVolume(level: 35, request: 1)))
        #expect(actions.contains(.showLevel(35)))
        #expect(machine.optimisticLevel == 35)
    }

    @Test("the HUD level follows every press before the device confirms")
    func optimisticLevelFollowsPresses() {
        var sim = SyncSimulation(level: 50, latency: 0.5)
        Self.burst(&sim, .down, count: 4)
        sim.run(until: 0.1)
        #expect(sim.shown == [48, 46, 44, 42])
        #expect(sim.deviceLevel == 50)
        sim.run()
        #expect(sim.deviceLevel == 42)
    }

    @Test("levels are clamped to the device range; pressing at the rail sends nothing")
    func clampsToRange() {
        var sim = SyncSimulation(level: 96, latency: 0.01, configuration: .init(range: 0...100, step: 3))
        Self.burst(&sim, .up, count: 5)
        sim.run()
        #expect(sim.deviceLevel == 100)
        let sentBefore = sim.setCount
        sim.press(.up, at: 5)
        sim.run()
        #expect(sim.setCount == sentBefore)
    }

    @Test("a released event moves nothing; pressed and repeated each move one step")
    func buttonPhases() {
        var machine = RemoteVolumeSync(configuration: .init(step: 1, minimumInterval: 0), knownLevel: 10)
        _ = machine.handle(VolumeButtonEvent(button: .up, phase: .pressed, time: 0))
        _ = machine.handle(VolumeButtonEvent(button: .up, phase: .repeated, time: 0.65))
        _ = machine.handle(VolumeButtonEvent(button: .up, phase: .released, time: 0.7))
        #expect(machine.optimisticLevel == 12)
    }

    @Test("transient failures are retried with doubling backoff and the final level is exact")
    func retriesWithBackoff() {
        var sim = SyncSimulation(
            level: 20, latency: 0.01, configuration: .init(minimumInterval: 0, initialBackoff: 0.1))
        sim.failures = [.timedOut, .unreachable("connection refused"), nil]
        sim.press(.up, at: 0)
        sim.run()
        #expect(sim.deviceLevel == 22)
        #expect(sim.setCount == 3)
        let gaps = zip(sim.sent.dropFirst(), sim.sent).map { $0.time - $1.time }
        #expect(abs(gaps[0] - 0.11) < 1e-9)  // latency + 0.1
        #expect(abs(gaps[1] - 0.21) < 1e-9)  // latency + 0.2
        #expect(sim.errors.isEmpty)
    }

    @Test("presses during a backoff ride on the retry: the latest level is sent, once")
    func pressesDuringBackoffCoalesce() {
        var sim = SyncSimulation(level: 20, latency: 0.01, configuration: .init(initialBackoff: 0.5))
        sim.failures = [.timedOut]
        Self.burst(&sim, .up, count: 6)
        sim.run()
        #expect(sim.sent.map(\.level) == [22, 32])
        #expect(sim.deviceLevel == 32)
    }

    @Test("after maxAttempts the error is surfaced and the HUD falls back to the device's level")
    func givesUpAfterMaxAttempts() {
        var sim = SyncSimulation(level: 20, latency: 0.01, configuration: .init(maxAttempts: 3))
        sim.failures = [.timedOut, .timedOut, .timedOut]
        sim.press(.up, at: 0)
        sim.run()
        #expect(sim.setCount == 3)
        #expect(sim.errors == [.timedOut])
        #expect(sim.shown == [22, 20])
        #expect(sim.machine.lastError == .timedOut)
        // The next press re-reads the device, then lands one step above the level the user asked for (issue 12,
        // defect 10: the intended level wins over the device's unless the device reported a change).
        sim.press(.up, at: 10)
        sim.run()
        #expect(sim.reads == [10])
        #expect(sim.deviceLevel == 24)
    }

    /// Issue 12, defect 10, as observed against gmediarender: confirmed at 36, presses to 60 while the
    /// renderer is down, retries end, the renderer restarts at 100, 5 more presses. The device must end at 70.
    static func longOutage(restartLevel: Int = 100) -> SyncSimulation {
        var sim = SyncSimulation(level: 36, latency: 0.01, configuration: .init(step: 2, maxAttempts: 6, maxBackoff: 1))
        sim.down = 0..<6.4
        for index in 0..<12 { sim.press(.up, at: Double(index) * 0.1) }  // 36 → 60 while down; retries end at ≈ 2.5 s
        sim.at(6.4) { sim, _ in sim.deviceLevel = restartLevel }  // the renderer restarts at its default
        return sim
    }

    @Test("after a long outage the user's level wins over the level a restarted device comes up at")
    func intendedLevelWinsAfterOutage() {
        var sim = Self.longOutage()
        sim.run(until: 7)
        #expect(sim.errors == [.unreachable("Connection refused")])
        #expect(sim.machine.intendedLevel == 60)
        #expect(sim.shown.last == 36)  // the HUD falls back to the last confirmed level while the device is away
        for index in 0..<5 { sim.press(.up, at: 8 + Double(index) * 0.1) }
        sim.run()
        #expect(sim.reads == [8])  // re-read on reconnect
        #expect(sim.deviceLevel == 70)
        #expect(sim.shown.last == 70)
        #expect(sim.machine.intendedLevel == nil)
    }

    @Test("after a long outage a change reported by the device wins over the intended level")
    func deviceChangeWinsAfterOutage() {
        var sim = Self.longOutage()
        sim.externalChange(to: 20, at: 7)  // someone turned the device's own knob: an event, not a restart
        for index in 0..<5 { sim.press(.up, at: 8 + Double(index) * 0.1) }
        sim.run()
        #expect(sim.reads.isEmpty)
        #expect(sim.deviceLevel == 30)
        #expect(sim.machine.intendedLevel == nil)
    }

    @Test("after a long outage a new subscription's initial state reconnects and the intended level is sent")
    func initialStateReconnects() {
        var sim = Self.longOutage()
        sim.at(7) { sim, now in sim.apply(sim.machine.deviceReported(sim.deviceLevel, at: now, isInitialState: true)) }
        sim.run()
        #expect(sim.deviceLevel == 60)
        #expect(sim.machine.intendedLevel == nil)
    }

    @Test("after a long outage a late echo of a level we sent is not taken for a change")
    func lateEchoAfterOutage() {
        var sim = Self.longOutage()
        sim.report(38, at: 7)  // our first SetVolume(38) did land; its reply was lost
        sim.run()
        #expect(sim.deviceLevel == 60)
        #expect(sim.machine.intendedLevel == nil)
    }

    @Test("a device still away at the re-read keeps the intent for the next attempt")
    func stillAwayKeepsIntent() {
        var sim = Self.longOutage()
        sim.readFailures = [.timedOut]
        sim.run(until: 7)
        sim.press(.up, at: 8)
        sim.run(until: 9)
        #expect(sim.errors.last == .timedOut)
        #expect(sim.machine.intendedLevel == 62)
        sim.press(.up, at: 10)
        sim.run()
        #expect(sim.deviceLevel == 64)
    }

    @Test("a refusal (UPnP 402) leaves no intent behind")
    func refusalKeepsNoIntent() {
        var sim = SyncSimulation(level: 20, latency: 0.01)
        sim.failures = [.upnp(code: 402, description: "Invalid Args")]
        sim.press(.up, at: 0)
        sim.run()
        #expect(sim.machine.intendedLevel == nil)
        sim.press(.up, at: 1)
        sim.run()
        #expect(sim.deviceLevel == 22)
    }

    @Test("a restarting device (refused connection, 404, 503, UPnP 501) is retried; a bad request (400) is not")
    func transientClassification() {
        for error in [
            RemoteVolumeError.unreachable("Connection refused"), .httpStatus(404), .httpStatus(503),
            .upnp(code: 501, description: "Action Failed"),
        ] {
            var sim = SyncSimulation(level: 20, latency: 0.01)
            sim.failures = [error]
            sim.press(.up, at: 0)
            sim.run()
            #expect(sim.deviceLevel == 22, "\(error)")
            #expect(sim.errors.isEmpty, "\(error)")
        }
        var sim = SyncSimulation(level: 20, latency: 0.01)
        sim.failures = [.httpStatus(400)]
        sim.press(.up, at: 0)
        sim.run()
        #expect(sim.errors == [.httpStatus(400)])
    }

    @Test("a refusal (UPnP 402) is not retried")
    func permanentErrorIsNotRetried() {
        var sim = SyncSimulation(level: 20, latency: 0.01)
        sim.failures = [.upnp(code: 402, description: "Invalid Args")]
        sim.press(.down, at: 0)
        sim.run()
        #expect(sim.setCount == 1)
        #expect(sim.errors == [.upnp(code: 402, description: "Invalid Args")])
        #expect(sim.machine.optimisticLevel == 20)
    }

    @Test("a late event echoing an older request does not undo newer presses")
    func staleEchoIgnored() {
        var sim = SyncSimulation(level: 30, latency: 0.02)
        Self.burst(&sim)
        // The device's event for the first SetVolume (32) arrives late, mid-burst and after it.
        sim.report(32, at: 0.3)
        sim.report(32, at: 0.7)
        sim.run()
        #expect(sim.deviceLevel == 62)
        #expect(sim.machine.optimisticLevel == 62)
        #expect(sim.shown.last == 62)
        // The one after the burst had landed could have been someone's change: one read settles it.
        #expect(sim.reads.count == 1)
    }

    @Test(
        "someone sets the device, right after a burst, to a level the burst passed through: it is adopted, not taken for a late echo"
    )
    func changeToAnEarlierLevelRightAfterBurst() {
        var sim = SyncSimulation(level: 30, latency: 0.02)
        Self.burst(&sim)
        sim.run(until: 0.6)
        let earlier = sim.sent.map(\.level).first { $0 != 62 } ?? 32
        #expect(sim.machine.isBusy == false)
        // Within the settle time after our last request landed (the Snapcast restart test hit this).
        sim.externalChange(to: earlier, at: 0.65)
        sim.run()
        #expect(sim.machine.confirmedLevel == earlier)
        #expect(sim.shown.last == earlier)
        sim.press(.up, at: 5)
        sim.run()
        #expect(sim.deviceLevel == earlier + 2)
    }

    @Test("a change made on the device while idle is adopted and the next press starts from it")
    func externalChangeWhileIdle() {
        var sim = SyncSimulation(level: 30, latency: 0.02)
        sim.externalChange(to: 70, at: 5)
        sim.press(.up, at: 6)
        sim.run()
        #expect(sim.shown == [70, 72])
        #expect(sim.deviceLevel == 72)
    }

    @Test("an unknown level reported mid-burst is verified with one read after the burst")
    func foreignReportMidBurstIsVerified() {
        var sim = SyncSimulation(level: 30, latency: 0.02)
        Self.burst(&sim)
        sim.report(5, at: 0.2)
        sim.run()
        #expect(sim.reads.count == 1)
        #expect(sim.deviceLevel == 62)
        #expect(sim.machine.confirmedLevel == 62)
        #expect(sim.shown.last == 62)
    }

    @Test("presses before the level is known read it first, then apply every step")
    func unknownLevelReadsFirst() {
        var sim = SyncSimulation(level: 40, latency: 0.05, knownLevel: false)
        sim.press(.up, at: 0)
        sim.press(.up, at: 0.01)
        sim.press(.down, at: 0.02)
        sim.press(.up, at: 0.03)
        sim.run()
        #expect(sim.reads.count == 1)
        #expect(sim.deviceLevel == 44)
        #expect(sim.setCount == 1)
    }

    @Test("a read failure with presses waiting is surfaced")
    func readFailureSurfaced() {
        var machine = RemoteVolumeSync()
        #expect(machine.press(.up, at: 0) == [.readVolume])
        #expect(machine.readFailed(.timedOut, at: 1).contains(.failed(.timedOut)))
        #expect(machine.optimisticLevel == nil)
    }

    @Test("a completion for an unknown request is ignored")
    func unknownCompletionIgnored() {
        var machine = RemoteVolumeSync(knownLevel: 10)
        _ = machine.press(.up, at: 0)
        #expect(machine.requestSucceeded(99, at: 0.1).isEmpty)
        #expect(machine.requestFailed(99, error: .timedOut, at: 0.1).isEmpty)
        #expect(machine.inFlight?.level == 12)
    }

    @Test("a new range clamps the known level")
    func rangeUpdateClamps() {
        var machine = RemoteVolumeSync(configuration: .init(range: 0...100), knownLevel: 80)
        let actions = machine.updateRange(0...60, at: 0)
        #expect(machine.confirmedLevel == 60)
        #expect(actions.contains(.showLevel(60)))
    }
}
