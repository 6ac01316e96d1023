import Testing
import VolumeKitCore

@Suite("Mute monitor: when to probe and what to report")
struct MuteMonitorTests {
    let phone = MuteProbeConditions(hasSwitch: true)

    /// A started monitor whose priming play has completed and whose first probe is in flight.
    func startedMonitor(at time: Instant = 0) -> (MuteMonitor, probeID: Int) {
        var monitor = MuteMonitor()
        let start = monitor.start(at: time, conditions: phone)
        guard case .prime(let primeID) = start.first else {
            Issue.record("no priming play: \(start)"); return (monitor, 0)
        }
        let afterPrime = monitor.completed(primeID, at: time + 0.01, conditions: phone)
        guard case .play(let probeID) = afterPrime.first else {
            Issue.record("no probe: \(afterPrime)"); return (monitor, 0)
        }
        return (monitor, probeID)
    }

    @Test("Start primes once, probes at once, and reports the first state as initial")
    func startReportsInitial() {
        var (monitor, probe) = startedMonitor()
        let actions = monitor.completed(probe, at: 0.012, conditions: phone)
        #expect(actions == [.report(MuteStateChange(old: nil, new: .silent, isInitial: true))])
        #expect(monitor.reported == .silent)
    }

    @Test("An unchanged state is not reported again; a change is, with old and new")
    func reportsOnlyChanges() {
        var (monitor, probe) = startedMonitor()
        _ = monitor.completed(probe, at: 0.012, conditions: phone)
        #expect(monitor.nextCheck == 0.01 + 1)
        var actions = monitor.tick(at: 1.01, conditions: phone)
        guard case .play(let second) = actions.first else { Issue.record("\(actions)"); return }
        #expect(monitor.completed(second, at: 1.02, conditions: phone).isEmpty)
        actions = monitor.tick(at: 2.01, conditions: phone)
        guard case .play(let third) = actions.first else { Issue.record("\(actions)"); return }
        #expect(
            monitor.tick(at: 2.11, conditions: phone)
                == [.report(MuteStateChange(old: .silent, new: .ringing, isInitial: false))])
        _ = third
    }

    @Test("Concurrent requests share the probe in flight")
    func sharedProbe() {
        var monitor = MuteMonitor()
        let first = monitor.request(1, at: 0, conditions: phone)
        guard case .prime(let prime) = first.first else { Issue.record("\(first)"); return }
        #expect(monitor.request(2, at: 0.001, conditions: phone).isEmpty)
        let probe = monitor.completed(prime, at: 0.01, conditions: phone)
        guard case .play(let id) = probe.first else { Issue.record("\(probe)"); return }
        #expect(monitor.request(3, at: 0.02, conditions: phone).isEmpty)
        #expect(monitor.tick(at: 0.11, conditions: phone) == [.answer([1, 2, 3], .ringing)])
        // While the decided probe's sound finishes, a request gets its answer at once.
        #expect(monitor.request(4, at: 0.15, conditions: phone) == [.answer([4], .ringing)])
        #expect(monitor.completed(id, at: 0.3, conditions: phone).isEmpty)
    }

    @Test("Interval defaults to 1 s and never goes under 0.5 s")
    func interval() {
        #expect(MuteMonitor.Configuration().interval == 1)
        #expect(MuteMonitor.Configuration(interval: 0.1).interval == 0.5)
        #expect(MuteMonitor.Configuration(interval: .nan).interval == 0.5)
        var configuration = MuteMonitor.Configuration(interval: 3)
        configuration.interval = 0.2
        #expect(configuration.interval == 0.5)
    }

    @Test("Background pauses periodic probes; foreground probes at once")
    func backgroundPause() {
        var (monitor, probe) = startedMonitor()
        _ = monitor.completed(probe, at: 0.012, conditions: phone)
        #expect(monitor.enteredBackground(at: 0.5).isEmpty)
        #expect(monitor.nextDeadline == nil)
        #expect(monitor.tick(at: 5, conditions: phone).isEmpty)
        let actions = monitor.enteredForeground(at: 6, conditions: phone)
        guard case .play = actions.first else { Issue.record("no probe on foreground: \(actions)"); return }
    }

    @Test("Without a switch or with system sounds suppressed, nothing plays and the state says why")
    func answersWithoutProbe() {
        var ipad = MuteMonitor()
        #expect(
            ipad.start(at: 0, conditions: MuteProbeConditions(hasSwitch: false))
                == [.report(MuteStateChange(old: nil, new: .unavailable, isInitial: true))])
        var recording = MuteMonitor()
        let suppressed = MuteProbeConditions(hasSwitch: true, suppressesSystemSounds: true)
        #expect(
            recording.request(7, at: 0, conditions: suppressed)
                == [.answer([7], .unknown(.systemSoundsSuppressed))])
    }

    @Test("A lost priming completion does not stall the monitor")
    func lostPriming() {
        var monitor = MuteMonitor()
        _ = monitor.start(at: 0, conditions: phone)
        #expect(monitor.nextDeadline == MuteProbeTiming.standard.timeout)
        let actions = monitor.tick(at: MuteProbeTiming.standard.timeout, conditions: phone)
        guard case .play = actions.first else { Issue.record("\(actions)"); return }
    }
}
