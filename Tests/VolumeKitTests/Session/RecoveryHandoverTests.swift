import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// A launch recovery and button capture on the same app at once (issue 11's review of the route watch): an app
/// calls `recoverVolumeIfNeeded()` at launch and opens its camera screen, which starts capture, a moment later —
/// or the other way round. Each run's sets are the other's "presses".
@Suite("A launch recovery and capture started together")
struct RecoveryHandoverTests {
    /// The earlier run left the speaker at its anchor (the user's `volume` needs headroom) and crashed; the app
    /// is launched again on a device with `rules`.
    private static func crashed(_ rules: [String], volume: Float) throws -> SimulatedDevice {
        let run = try CaptureRun(rules, volume: volume)
        run.device.advance(by: 0.5)
        run.device.crash()
        run.device.advance(by: 0.3)
        run.device.launch()
        return run.device
    }

    static let devices: [[String]] = [
        [], ["sliderLatency=0.15", "kvoLatency=0.03"], ["volumeViewReadyDelay=1", "sliderLatency=0.15"],
        ["volumeViewReadyDelay=0.05", "kvoLatency=0"],
        ["stepQuantization=grid", "downPressRefusal=cachedEqualSetDrop"],
    ]

    @Test(
        "Capture started while the recovery gives the volume back: no press reported, the first real press is one, the user's volume kept",
        arguments: devices, [0, 0.01, 0.06, 0.2])
    func captureStartedDuringRecovery(rules: [String], gap: TimeInterval) throws {
        for volume: Float in [0, 1] {
            let device = try Self.crashed(rules, volume: volume)
            let outcome = Locked<VolumeRecovery.Outcome?>(nil)
            VolumeRecovery.recoverIfNeeded(device.clients) { result in outcome.withLock { $0 = result } }
            device.advance(by: gap)
            let events = Locked([VolumeButtonEvent]())
            let engine = VolumeButtonsEngine(
                clients: device.clients, onEvent: { event in events.withLock { $0.append(event) } })
            try engine.start()
            device.advance(by: 2.5)
            #expect(outcome.current == .handled, "rules \(rules), gap \(gap), volume \(volume)")
            #expect(events.current.isEmpty, "no press was made (rules \(rules), gap \(gap), volume \(volume))")
            #expect(engine.isCapturing)
            device.press(volume == 0 ? .up : .down)
            device.advance(by: 0.6)
            #expect(events.current.filter { $0.phase == .pressed }.count == 1, "rules \(rules), gap \(gap)")
            engine.stop()
            device.advance(by: 2)
            #expect(device.volume(on: .speaker) == volume, "the user's volume is back (rules \(rules), gap \(gap))")
        }
    }

    @Test("A recovery called while capture holds the volume leaves it to capture: no press, the user's volume kept")
    func recoveryDuringCapture() throws {
        for gap: TimeInterval in [0, 0.05, 0.5] {
            let device = try Self.crashed([], volume: 0)
            let events = Locked([VolumeButtonEvent]())
            let engine = VolumeButtonsEngine(
                clients: device.clients, onEvent: { event in events.withLock { $0.append(event) } })
            try engine.start()
            device.advance(by: gap)
            let outcome = Locked<VolumeRecovery.Outcome?>(nil)
            VolumeRecovery.recoverIfNeeded(device.clients) { result in outcome.withLock { $0 = result } }
            device.advance(by: 2)
            #expect(outcome.current == .nothingPending, "capture has judged the record itself (gap \(gap))")
            #expect(events.current.isEmpty, "gap \(gap)")
            engine.stop()
            device.advance(by: 2)
            #expect(device.volume(on: .speaker) == 0, "gap \(gap)")
        }
    }

    @Test("Two recoveries at once: the second waits for the first, which gives the volume back once")
    func twoRecoveries() throws {
        let device = try Self.crashed([], volume: 0)
        let outcomes = Locked([VolumeRecovery.Outcome]())
        VolumeRecovery.recoverIfNeeded(device.clients) { result in outcomes.withLock { $0.append(result) } }
        device.advance(by: 0.01)
        VolumeRecovery.recoverIfNeeded(device.clients) { result in outcomes.withLock { $0.append(result) } }
        device.advance(by: 2)
        #expect(outcomes.current == [.handled, .nothingPending])
        #expect(device.volume(on: .speaker) == 0)
        let sets = device.log.filter { if case .programmaticSet = $0 { true } else { false } }
        #expect(sets.count <= 4, "one restore (with its nudges), not two runs setting over each other: \(sets)")
    }

    @Test(
        "An interruption before the recovery's view is ready does not leave it running: a later capture captures",
        arguments: [0.02, 0.05, 0.08])
    func interruptedRecoveryEnds(at: TimeInterval) throws {
        let device = try Self.crashed([], volume: 0)
        VolumeRecovery.recoverIfNeeded(device.clients) { _ in }
        device.advance(by: at)
        device.interruption(began: true)
        device.advance(by: 1)
        device.interruption(began: false)
        device.advance(by: 5)
        #expect(!device.clients.holdBoard.isRecovering, "the recovery run ended (at \(at))")
        #expect(device.volume(on: .speaker) == 0, "the user's volume is back (at \(at))")
        let events = Locked([VolumeButtonEvent]())
        let engine = VolumeButtonsEngine(
            clients: device.clients, onEvent: { event in events.withLock { $0.append(event) } })
        try engine.start()
        device.advance(by: 2)
        #expect(engine.isCapturing, "at \(at)")
        device.press(.up)
        device.advance(by: 0.6)
        #expect(events.current.filter { $0.phase == .pressed }.count == 1)
        engine.stop()
        device.advance(by: 2)
        #expect(device.volume(on: .speaker) == 0)
    }

    @Test("A camera screen with capture events and a launch recovery: the recovery's sets are no missed press")
    func captureEventsNotMisreported() throws {
        for recoveryFirst in [false, true] {
            let device = try Self.crashed([], volume: 0)
            device.startCamera()
            let diagnostics = Locked([VolumeButtonsDiagnostic]())
            let engine = VolumeButtonsEngine(
                configuration: .init(strategy: .captureEvents), clients: device.clients, onEvent: { _ in },
                onDiagnostic: { diagnostic in diagnostics.withLock { $0.append(diagnostic) } })
            if recoveryFirst {
                VolumeRecovery.recoverIfNeeded(device.clients) { _ in }
                device.advance(by: 0.01)
                try engine.start()
            } else {
                try engine.start()
                device.advance(by: 0.05)
                VolumeRecovery.recoverIfNeeded(device.clients) { _ in }
            }
            device.advance(by: 2)
            #expect(!diagnostics.current.contains(.captureEventsNotDelivered), "recovery first: \(recoveryFirst)")
            #expect(device.volume(on: .speaker) == 0)
            engine.stop()
            device.advance(by: 1)
        }
    }

    @Test("The route left before the recovery's view is ready: not handled, the record waits for its route")
    func routeLeftBeforeReady() throws {
        let run = try CaptureRun(["routeNotification=beforeKVO"], volume: 0, headphones: 0.5)
        run.device.advance(by: 0.5)
        run.device.crash()
        run.device.advance(by: 0.3)
        run.device.launch()
        let outcome = Locked<VolumeRecovery.Outcome?>(nil)
        VolumeRecovery.recoverIfNeeded(run.device.clients) { result in outcome.withLock { $0 = result } }
        run.device.advance(by: 0.03)
        run.device.connect(.headphones)
        run.device.advance(by: 2)
        #expect(PendingRestores.load(from: run.device.clients.keyValueStore).byRoute[.speaker] != nil)
        guard case .failed(let error) = outcome.current else {
            Issue.record("outcome \(String(describing: outcome.current))")
            return
        }
        #expect(error == .recoveryIncomplete("the audio route changed before it could be"))
        #expect(
            error.description
                == "The user's saved volume was not given back yet (the audio route changed before it could be); it stays saved and is given back on its route the next time VolumeKit can."
        )
    }

    @Test(
        "A recovery whose restore is never confirmed ends at its watchdog, torn down: a waiting capture sees no press")
    func watchdogEndsTheRun() throws {
        let device = try Self.crashed([], volume: 0)
        let start = device.now
        var clients = device.clients
        let setVolume = clients.systemVolume.setVolume
        let clock = device.clients.clock
        // A world where the slider loses every set from the view's readiness until 5.8 s in.
        clients.systemVolume.setVolume = { value in
            let elapsed = clock.now() - start
            if elapsed > 0.09, elapsed < 5.8 { return }
            setVolume(value)
        }
        let outcome = Locked<VolumeRecovery.Outcome?>(nil)
        VolumeRecovery.recoverIfNeeded(clients) { result in outcome.withLock { $0 = result } }
        device.advance(by: 0.05)
        let events = Locked([VolumeButtonEvent]())
        let engine = VolumeButtonsEngine(clients: clients, onEvent: { event in events.withLock { $0.append(event) } })
        try engine.start()
        device.advance(by: 10)
        #expect(!device.clients.holdBoard.isRecovering)
        #expect(outcome.current == .failed(.recoveryIncomplete("the restore was not confirmed within 5 s")))
        #expect(events.current.isEmpty, "no press was made: \(events.current)")
        engine.stop()
        device.advance(by: 2)
        #expect(device.volume(on: .speaker) == 0, "the capture, which judged the record, gave the user's volume back")
    }
}
