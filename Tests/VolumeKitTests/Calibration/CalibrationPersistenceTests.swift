import Foundation
import TestSupport
import Testing
import VolumeKitCore
import VolumeKitTesting

@Suite("Calibration kept across launches: saved at stop, loaded at the next start, per model and iOS version")
struct CalibrationPersistenceTests {
    /// A capture run on `device` that holds up for 2 s (a hold shows the rhythm, the resets the round trip).
    static func holdRun(on device: SimulatedDevice) throws -> VolumeButtonsEngine {
        let engine = VolumeButtonsEngine(clients: device.clients) { _ in }
        try CalibrationOnDeviceTests.holdUp(engine, on: device)
        return engine
    }

    @Test("a new engine on the same phone starts with what the last run learned, before any press")
    func loadedAtStart() throws {
        var configuration = SimulatedDevice.Configuration(behaviour: .sample(3))
        configuration.volume = 0.5
        let device = SimulatedDevice(configuration)
        let first = try Self.holdRun(on: device)
        let learned = try #require(first.calibration.value(of: .firstRepeatDelay))
        let later = VolumeButtonsEngine(clients: device.clients) { _ in }
        #expect(later.calibration.estimates.isEmpty, "nothing before start")
        try later.start()
        #expect(later.calibration.value(of: .firstRepeatDelay) == learned)
        #expect(later.calibration.estimates[.roundTrip]?.samples == first.calibration.estimates[.roundTrip]?.samples)
        later.stop()
        device.advance(by: 2)
    }

    @Test("calibrationUpdates: the newest calibration once something was learned; nothing before")
    func updatesStream() async throws {
        var configuration = SimulatedDevice.Configuration(behaviour: .sample(3))
        configuration.volume = 0.5
        let device = SimulatedDevice(configuration)
        let engine = VolumeButtonsEngine(clients: device.clients) { _ in }
        let updates = engine.calibrationUpdates()
        try engine.start()
        device.advance(by: 1.5)
        device.hold(.up, for: 2)
        device.advance(by: 3)
        var iterator = updates.makeAsyncIterator()
        let newest = try #require(await iterator.next())
        #expect(newest.value(of: .firstRepeatDelay) == engine.calibration.value(of: .firstRepeatDelay))
        #expect(newest.value(of: .firstRepeatDelay) != nil)
        engine.stop()
        device.advance(by: 2)
    }

    @Test("an entry learned on another iOS version, or another model, is not used and is replaced at the next save")
    func otherVersionStartsAfresh() throws {
        var configuration = SimulatedDevice.Configuration(behaviour: .sample(3))
        configuration.volume = 0.5
        let device = SimulatedDevice(configuration)
        var elsewhere = CalibrationMachine()
        elsewhere.setMade(0.5, at: 0)
        _ = elsewhere.observed(0.5, at: 0.1)
        for other in [DeviceInfo(osVersion: OSVersion(16, 0), kind: .iphone), device.clients.device] {
            var info = other
            if info.modelIdentifier != nil { info.modelIdentifier = "iPhone15,2" }
            device.keyValueStore.setData(CalibrationStore.encode(elsewhere, for: info), CalibrationStore.key)
            let engine = VolumeButtonsEngine(clients: device.clients) { _ in }
            try engine.start()
            #expect(engine.calibration.estimates.isEmpty, "\(info.modelIdentifier ?? "no model") \(info.osVersion)")
            engine.stop()
            device.advance(by: 2)
        }
        _ = try Self.holdRun(on: device)
        let stored = try #require(device.keyValueStore.data(CalibrationStore.key))
        let reloaded = try CalibrationStore.machine(reading: stored, for: device.clients.device)
        #expect(reloaded.value(of: .firstRepeatDelay) != nil, "replaced by this phone's entry")
    }

    @Test("two engines of one app save in turn: a rule only the other learned (capture events' tap length) is kept")
    func enginesSaveInTurn() throws {
        let device = DeviceInfo(osVersion: OSVersion(17, 4), kind: .iphone)
        let memory = Locked([String: Data]())
        let kv = KeyValueStoreClient(
            data: { key in memory.withLock { $0[key] } }, setData: { data, key in memory.withLock { $0[key] = data } })
        var camera = CalibrationMachine()
        _ = camera.tap(began: 0, ended: 0.08)
        CalibrationStore.save(camera, for: device, to: kv)
        var capture = CalibrationMachine()
        capture.setMade(0.5, at: 1)
        _ = capture.observed(0.5, at: 1.06)
        CalibrationStore.save(capture, for: device, to: kv)
        let both = try #require(CalibrationStore.load(for: device, from: kv))
        #expect(both.value(of: .tapLength) != nil, "the camera's tap length kept")
        #expect(both.value(of: .roundTrip) != nil)
        #expect(memory.current.count == 1)
    }

    @Test("a corrupt store is refused: capture starts with nothing learned and saves afresh")
    func corruptStore() throws {
        var configuration = SimulatedDevice.Configuration(behaviour: .default)
        configuration.volume = 0.5
        let device = SimulatedDevice(configuration)
        device.keyValueStore.setData(Data("{\"version\":1,".utf8), CalibrationStore.key)
        let engine = try Self.holdRun(on: device)
        #expect(engine.calibration.value(of: .repeatInterval) != nil)
        let stored = try #require(device.keyValueStore.data(CalibrationStore.key))
        #expect(
            try CalibrationStore.machine(reading: stored, for: device.clients.device).value(of: .repeatInterval) != nil)
    }

    @Test(
        "simulate --calibration FILE: a missing file starts empty and is written; the next run starts warm; a corrupt one is refused with a sentence"
    )
    func commandLine() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: volumekitExecutable.path), "build volumekit first")
        let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../scenarios").standardized
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("vk-calibration-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let learn = try await TraceDiagnosticTests.volumekit([
            "simulate", "--json", "--profile", "sample:7", "--calibration", file.path,
            scenarios.appendingPathComponent("calibrate.txt").path,
        ])
        #expect(learn.status == 0)
        let stored = try Data(contentsOf: file)
        let machine = try CalibrationStore.machine(
            reading: stored, for: SimulatedDevice(.init(behaviour: .sample(7))).clients.device)
        let first = try #require(machine.value(of: .firstRepeatDelay))
        #expect(abs(first - DeviceBehaviour.sample(7).firstRepeatDelay) <= 0.02)
        // A script with no hold: its end record still knows the rhythm, from the file.
        let warm = try await TraceDiagnosticTests.volumekit([
            "simulate", "--json", "--profile", "sample:7", "--calibration", file.path,
            scenarios.appendingPathComponent("single-presses.txt").path,
        ])
        #expect(warm.status == 0)
        #expect(warm.output.split(separator: "\n").last?.contains("\"firstRepeatDelay\":{") == true)
        try Data("not json".utf8).write(to: file)
        let refused = try await runChildProcess(
            volumekitExecutable,
            ["simulate", "--calibration", file.path, scenarios.appendingPathComponent("hold.txt").path])
        #expect(refused.status != 0)
        #expect(refused.error.contains("is not the JSON VolumeKit writes; delete it to start afresh"))
        #expect(refused.output.isEmpty, "refused before the run")
    }
}
