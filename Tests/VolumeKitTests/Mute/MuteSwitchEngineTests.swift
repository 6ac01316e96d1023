import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// What an app using the engine saw, collected from its callbacks.
final class MuteObserver: Sendable {
    let changes = Locked([MuteStateChange]())
    let volumes = Locked([RealVolumeTracker.Action]())

    var states: [MuteState] { changes.current.map(\.new) }
    var volumeChanges: [RealVolumeTracker.Action] {
        volumes.current.filter { if case .volumeChanged = $0 { true } else { false } }
    }
    var realVolumes: [Float] {
        volumes.current.compactMap { if case .realVolumeChanged(let value) = $0 { value } else { nil } }
    }
}

@Suite("Mute switch engine on the simulated device")
struct MuteSwitchEngineTests {
    static let sound = URL(fileURLWithPath: "/VolumeKit/silent.caf")

    func make(
        _ configuration: SimulatedDevice.Configuration = .init(),
        observesVolume: Bool = true
    ) -> (SimulatedDevice, MuteSwitchEngine, MuteObserver) {
        let device = SimulatedDevice(configuration)
        let observer = MuteObserver()
        let engine = MuteSwitchEngine(
            observesVolume: observesVolume,
            soundURL: Self.sound,
            clients: device.clients,
            onChange: { change in observer.changes.withLock { $0.append(change) } },
            onVolume: { action in observer.volumes.withLock { $0.append(action) } }
        )
        return (device, engine, observer)
    }

    @Test("Ringing at start is reported once, marked initial, at the threshold after priming")
    func initialRinging() {
        let (device, engine, observer) = make()
        engine.start()
        device.advance(by: 0.9)
        #expect(observer.changes.current == [MuteStateChange(old: nil, new: .ringing, isInitial: true)])
        device.advance(by: 3)
        #expect(observer.states == [.ringing], "no repeated reports while nothing changes")
        #expect(device.systemSoundPlays.count >= 4, "periodic probes every second")
    }

    @Test("Each switch move is reported within one interval, old and new")
    func transitions() {
        let (device, engine, observer) = make()
        device.setMuteSwitch(on: true)
        engine.start()
        device.advance(by: 1)
        #expect(observer.states == [.silent])
        device.setMuteSwitch(on: false)
        device.advance(by: 1.2)
        device.setMuteSwitch(on: true)
        device.advance(by: 1.2)
        #expect(
            observer.changes.current == [
                MuteStateChange(old: nil, new: .silent, isInitial: true),
                MuteStateChange(old: .silent, new: .ringing, isInitial: false),
                MuteStateChange(old: .ringing, new: .silent, isInitial: false),
            ])
        #expect(engine.muteState == .silent)
    }

    @Test("Many jittered probes on both switch positions are all classified right")
    func jitteredProbesAreRight() async {
        for seed: UInt64 in 1...40 {
            let (device, engine, _) = make(observesVolume: false)
            device.seedSoundJitter(seed)
            let silent = seed.isMultiple(of: 2)
            device.setMuteSwitch(on: silent)
            let answer = Locked<MuteState?>(nil)
            engine.check { state in answer.withLock { $0 = state } }
            device.advance(by: 1.5)
            #expect(answer.current == (silent ? .silent : .ringing), "seed \(seed)")
        }
    }

    @Test("An on-demand check answers without starting the monitor, and awaits in async code")
    func onDemand() async {
        let (device, engine, observer) = make()
        device.setMuteSwitch(on: true)
        let driver = Task { for _ in 0..<200 { device.advance(by: 0.01); await Task.yield() } }
        let state = await engine.check()
        await driver.value
        #expect(state == .silent)
        #expect(observer.changes.current.isEmpty, "not started: no reports")
        #expect(!engine.isStarted)
    }

    @Test("Concurrent checks share one probe")
    func sharedInFlight() {
        let (device, engine, _) = make(observesVolume: false)
        let answers = Locked([MuteState]())
        engine.check { state in answers.withLock { $0.append(state) } }
        device.advance(by: 0.05)
        engine.check { state in answers.withLock { $0.append(state) } }
        engine.check { state in answers.withLock { $0.append(state) } }
        device.advance(by: 1)
        #expect(answers.current == [.ringing, .ringing, .ringing])
        #expect(device.systemSoundPlays.count == 2, "one priming play and one shared probe")
    }

    @Test("Background pauses probing; foreground checks at once")
    func backgroundPauseForegroundCheck() {
        let (device, engine, observer) = make()
        engine.start()
        device.advance(by: 1.5)
        device.background()
        let playsBefore = device.systemSoundPlays.count
        device.setMuteSwitch(on: true)
        device.advance(by: 10)
        #expect(device.systemSoundPlays.count == playsBefore, "no sound plays in the background")
        #expect(observer.states == [.ringing])
        let foregroundAt = device.now
        device.foreground()
        device.advance(by: 0.1)
        #expect(device.systemSoundPlays.last?.time == foregroundAt, "a probe at once on foreground")
        #expect(observer.states == [.ringing, .silent])
    }

    @Test("Recording without the opt-in gives unknown(systemSoundsSuppressed) and plays nothing")
    func suppressedWhileRecording() throws {
        let (device, engine, observer) = make(observesVolume: false)
        device.setMuteSwitch(on: false)
        try device.clients.audioSession.setConfiguration(AudioSessionConfiguration(category: .playAndRecord))
        engine.start()
        device.advance(by: 3)
        #expect(observer.states == [.unknown(.systemSoundsSuppressed)])
        #expect(device.systemSoundPlays.isEmpty, "a probe would have completed at once and read as silent")
        // With the opt-in, system sounds play again and the probe can tell.
        try device.clients.audioSession.setConfiguration(
            AudioSessionConfiguration(
                category: .playAndRecord, allowsSystemSoundsDuringRecording: true))
        device.advance(by: 2)
        #expect(observer.states == [.unknown(.systemSoundsSuppressed), .ringing])
    }

    @Test("An iPad's Silent mode (Control Center) is probed like the switch: ringing, then silent")
    func ipadSilentMode() async {
        let (device, engine, observer) = make(SimulatedDevice.Configuration(kind: .ipad))
        engine.start()
        device.advance(by: 3)
        device.setSilentMode(on: true)
        device.advance(by: 3)
        #expect(observer.states == [.ringing, .silent])
        #expect(!device.systemSoundPlays.isEmpty)
    }

    @Test("An iPad without Silent mode (the envelope's other variant) reads ringing, never unavailable")
    func ipadWithoutSilentMode() async {
        var behaviour = DeviceBehaviour()
        behaviour.iPadSilent = .none
        let (device, engine, observer) = make(SimulatedDevice.Configuration(kind: .ipad, behaviour: behaviour))
        engine.start()
        device.setSilentMode(on: true)
        device.advance(by: 3)
        #expect(observer.states == [.ringing])
    }

    @Test("A lost completion becomes unknown(noCompletion), and probing goes on afterwards")
    func noCompletion() {
        let (device, engine, observer) = make(observesVolume: false)
        engine.start()
        device.advance(by: 1.5)
        device.dropsSoundCompletions = true
        device.advance(by: 3)
        #expect(observer.states == [.ringing, .unknown(.noCompletion)])
        device.dropsSoundCompletions = false
        device.advance(by: 2.5)
        #expect(observer.states == [.ringing, .unknown(.noCompletion), .ringing])
    }

    @Test("Real volume is 0 while silent and the output volume while ringing")
    func realVolume() {
        let (device, engine, observer) = make(SimulatedDevice.Configuration(volume: 0.5))
        engine.start()
        device.advance(by: 1)
        #expect(engine.realVolume == 0.5)
        device.setMuteSwitch(on: true)
        device.advance(by: 1.2)
        #expect(engine.realVolume == 0)
        #expect(engine.outputVolume == 0.5, "the output volume itself does not move")
        device.setMuteSwitch(on: false)
        device.advance(by: 1.2)
        #expect(observer.realVolumes == [0.5, 0, 0.5])
    }

    @Test("Volume changes carry old and new, also while silent")
    func volumeChanges() {
        let (device, engine, observer) = make(SimulatedDevice.Configuration(volume: 0.5))
        device.setMuteSwitch(on: true)
        engine.start()
        device.advance(by: 0.5)
        device.press(.up)
        device.advance(by: 0.5)
        device.press(.down)
        device.press(.down)
        device.advance(by: 0.5)
        #expect(
            observer.volumeChanges == [
                .volumeChanged(old: 0.5, new: 0.5625),
                .volumeChanged(old: 0.5625, new: 0.5),
                .volumeChanged(old: 0.5, new: 0.4375),
            ])
        #expect(engine.realVolume == 0)
    }

    @Test("Starting keeps other apps' audio playing, and stop puts the session back")
    func sessionManners() {
        let (device, engine, _) = make()
        device.isOtherAudioPlaying = true
        engine.start()
        device.advance(by: 2)
        #expect(device.isOtherAudioPlaying)
        #expect(device.isSessionActive)
        engine.stop()
        #expect(device.sessionConfiguration == .systemDefault)
        #expect(!device.isSessionActive)
        let plays = device.systemSoundPlays.count
        device.advance(by: 3)
        #expect(device.systemSoundPlays.count <= plays + 1, "no periodic probes after stop")
    }

    @Test("A volume change made in the background is reported on foreground")
    func backgroundVolumeChange() {
        let (device, engine, observer) = make(SimulatedDevice.Configuration(volume: 0.5))
        engine.start()
        device.advance(by: 1)
        device.background()
        device.press(.up)
        device.advance(by: 1)
        #expect(observer.volumeChanges.isEmpty)
        device.foreground()
        device.advance(by: 0.5)
        #expect(observer.volumeChanges == [.volumeChanged(old: 0.5, new: 0.5625)])
    }
}
