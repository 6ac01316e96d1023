import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

@Suite("A restart is told by the boot time, not the uptime (issue 13 item 8)")
struct BootTimeTests {
    @Test("Records carry the boot time; after a restart whose uptime is past the saved one, the record is stale")
    func rebootWithLargerUptime() throws {
        let device = SimulatedDevice(.init(volume: 0))
        _ = try startCapture(on: device, settle: 0.5)
        let held = device.volume
        #expect(held == 0.125, "capture holds the volume away from the user's")
        let record = try #require(PendingRestores.load(from: device.clients.keyValueStore).byRoute[.speaker])
        #expect(record.bootTime == device.clients.device.bootTime)
        device.advance(by: 100)
        device.reboot()
        #expect(device.now > record.savedAtUptime, "the uptime rule alone cannot see this restart")
        #expect(recover(device, settle: 1).outcome == .handled)
        #expect(device.volume == held, "a record from before the restart is not applied")
        #expect(PendingRestores.load(from: device.clients.keyValueStore).byRoute.isEmpty)
    }

    @Test("Without a restart (a crash, then a launch) the same record gives the user's volume back")
    func crashWithoutReboot() throws {
        let device = SimulatedDevice(.init(volume: 0))
        _ = try startCapture(on: device, settle: 0.5)
        device.advance(by: 100)
        device.crash()
        device.launch()
        #expect(device.volume == 0.125)
        #expect(recover(device, settle: 1).outcome == .handled)
        #expect(device.volume == 0)
    }

    @Test("The rule: the same boot within the tolerance restores, another boot discards, no boot time falls back")
    func rule() {
        let record = PendingRestore(userVolume: 0.2, heldVolume: 0.5, savedAtUptime: 100, bootTime: 1_000_000)
        let drift = RecoveryRule.bootTimeTolerance - 1
        #expect(
            RecoveryRule.decide(record, currentVolume: 0.5, uptime: 200, bootTime: 1_000_000 + drift) == .restore(0.2))
        #expect(
            RecoveryRule.decide(record, currentVolume: 0.5, uptime: 200, bootTime: 1_000_000 - drift) == .restore(0.2))
        #expect(
            RecoveryRule.decide(record, currentVolume: 0.5, uptime: 200, bootTime: 1_000_300)
                == .discard(.deviceRestarted))
        #expect(RecoveryRule.decide(record, currentVolume: 0.5, uptime: 200, bootTime: nil) == .restore(0.2))
        #expect(
            RecoveryRule.decide(record, currentVolume: 0.5, uptime: 50, bootTime: 1_000_000)
                == .discard(.deviceRestarted))
        #expect(DeviceInfo.bootTime(wallClock: 1_000_500, uptime: 500) == 1_000_000)
    }

    @Test("A record saved before boot times were (uptime only) still decodes and is restored")
    func oldRecordDecodes() throws {
        let device = SimulatedDevice(.init(volume: 0.5))
        // What an earlier VolumeKit wrote: no bootTime, no portUID.
        let old = #"{"speaker":{"userVolume":0.25,"heldVolume":0.5,"savedAtUptime":0}}"#
        device.keyValueStore.setData(Data(old.utf8), PendingRestores.key)
        let record = try #require(PendingRestores.load(from: device.clients.keyValueStore).byRoute[.speaker])
        #expect(record.bootTime == nil)
        #expect(record.userVolume == 0.25)
        #expect(recover(device, settle: 1).outcome == .handled)
        #expect(device.volume == 0.25)
    }
}

@Suite("Each output keeps its own record: the earpiece, each Bluetooth headset (issue 13 item 8)")
struct OutputRecordTests {
    @Test("The earpiece is a route of its own: its volume and record are apart from the speaker's")
    func receiver() throws {
        let device = SimulatedDevice(.init(volume: 0.5, headphonesVolume: 0.75))
        device.connect(.receiver)
        let engine = try startCapture(on: device, settle: 0.5)
        #expect(device.volume(on: .speaker) == 0.5)
        let records = PendingRestores.load(from: device.clients.keyValueStore)
        #expect(records.byRoute[.receiver]?.userVolume == 0.75)
        #expect(records.byRoute[.speaker] == nil)
        engine.stop()
        device.advance(by: 1)
        #expect(device.volume(on: .receiver) == 0.75)
        #expect(device.volume(on: .speaker) == 0.5)
    }

    @Test("Two Bluetooth headsets do not share a record: each gets its own volume back")
    func twoHeadsets() throws {
        let device = SimulatedDevice(.init(volume: 0.5, headphonesVolume: 0))
        device.connect(.bluetooth, headset: "AA:AA")
        let engine = try startCapture(on: device, settle: 0.5)
        #expect(device.volume == 0.125, "headset A held at the anchor")
        // The output moves to headset B (its own volume, 0 too) while A is held: A's record waits.
        device.connect(.bluetooth, headset: "BB:BB")
        device.advance(by: 1)
        #expect(device.bluetoothHeadset == "BB:BB")
        let records = PendingRestores.load(from: device.clients.keyValueStore)
        #expect(records[AudioOutput(route: .bluetooth, portUID: "BB:BB")]?.portUID == "BB:BB")
        engine.stop()
        device.advance(by: 1)
        #expect(device.volume == 0, "headset B is back at its user's volume")
        let left = PendingRestores.load(from: device.clients.keyValueStore)
        let recordA = try #require(left[AudioOutput(route: .bluetooth, portUID: "AA:AA")])
        #expect(recordA.userVolume == 0)
        #expect(left[AudioOutput(route: .bluetooth, portUID: "BB:BB")] == nil, "B's volume is the user's")
        // Back on headset A, A gets its own volume back at once (the app alive: VolumeRecovery's watch).
        device.connect(.bluetooth, headset: "AA:AA")
        #expect(device.volume == 0.125, "headset A was left at the anchor")
        device.advance(by: 1)
        #expect(device.volume == 0)
        #expect(recover(device, settle: 1).outcome == .nothingPending)
    }

    @Test("Records by headset survive the store: other headsets are saved under their UID")
    func storeRoundTrip() {
        var records = PendingRestores()
        let a = AudioOutput(route: .bluetooth, portUID: "AA")
        let b = AudioOutput(route: .bluetooth, portUID: "BB")
        records[a] = PendingRestore(userVolume: 0.1, heldVolume: 0.3, savedAtUptime: 1)
        records[b] = PendingRestore(userVolume: 0.2, heldVolume: 0.4, savedAtUptime: 2)
        records[AudioOutput(route: .speaker)] = PendingRestore(userVolume: 0.6, heldVolume: 0.7, savedAtUptime: 3)
        #expect(records[a]?.userVolume == 0.1)
        #expect(records[b]?.userVolume == 0.2)
        let store = KeyValueStoreClient.inMemory()
        records.save(to: store)
        let loaded = PendingRestores.load(from: store)
        #expect(loaded == records)
        #expect(loaded[a]?.userVolume == 0.1)
        #expect(loaded[b]?.userVolume == 0.2)
        var cleared = loaded
        cleared[a] = nil
        cleared[b] = nil
        #expect(cleared[a] == nil && cleared[b] == nil)
        #expect(cleared.byRoute[.speaker]?.userVolume == 0.6)
    }

    @Test("The same records are the same bytes in every process: the store's JSON has sorted keys")
    func storeBytesAreCanonical() throws {
        var records = PendingRestores()
        for (index, route) in [AudioRoute.speaker, .headphones, .receiver, .bluetooth].enumerated() {
            records[AudioOutput(route: route, portUID: route == .bluetooth ? "AA" : nil)] = PendingRestore(
                userVolume: 0.1 * Float(index), heldVolume: 0.5, savedAtUptime: Double(index), bootTime: 1_800_000_000)
        }
        records[AudioOutput(route: .bluetooth, portUID: "BB")] = PendingRestore(
            userVolume: 0.9, heldVolume: 0.5, savedAtUptime: 9)
        let store = KeyValueStoreClient.inMemory()
        records.save(to: store)
        let data = try #require(store.data(PendingRestores.key))
        // Dictionaries' order is seeded per process; the bytes written must not depend on it.
        let sorted = try JSONSerialization.data(
            withJSONObject: try JSONSerialization.jsonObject(with: data), options: .sortedKeys)
        #expect(String(decoding: data, as: UTF8.self) == String(decoding: sorted, as: UTF8.self))
    }
}

@Suite("Route changes are recorded with their reason and ports (issue 14 item 1)")
struct RouteDetailsTraceTests {
    @Test("clients.recording(to:) writes each route change's reason and output ports after it")
    func recordsRouteDetails() throws {
        let device = SimulatedDevice()
        let recorder = TraceRecorder(
            header: .simulator(device, note: "test"), clock: device.clock, keepsRecords: true, portNaming: .uids)
        let clients = device.clients.recording(to: recorder)
        let subscription = clients.lifecycle.observe { _ in }
        device.connect(.headphones)
        device.advance(by: 0.5)
        device.connect(.bluetooth, headset: "AA:BB")
        device.advance(by: 0.5)
        device.resetMediaServices()
        subscription.cancel()
        let events = recorder.records.map(\.event)
        let details = events.compactMap { event -> (String, [TracePort])? in
            if case .routeDetails(let reason, let ports) = event { return (reason, ports) }
            return nil
        }
        #expect(details.map(\.0) == ["newDeviceAvailable", "newDeviceAvailable"])
        #expect(
            details.map(\.1) == [
                [TracePort(type: "Headphones", uid: "Wired Headphones")],
                [TracePort(type: "BluetoothA2DPOutput", uid: "AA:BB")],
            ])
        let first = try #require(events.firstIndex { if case .routeDetails = $0 { true } else { false } })
        #expect(events[first - 1] == .lifecycle(.routeChanged(.headphones), observer: 1))
        #expect(clients.audioSession.currentOutputs() == [AudioPort(type: "BluetoothA2DPOutput", uid: "AA:BB")])
        #expect(events.contains(.lifecycle(.mediaServicesWereReset, observer: 1)))
        // The file format carries both: the trace reads back as it was written.
        let trace = recorder.trace
        #expect(try Trace(jsonLines: Data(trace.jsonLines.utf8)) == trace)
    }
}

@Suite("The hold board is a client (issue 13)")
struct HoldBoardClientTests {
    @Test("A HUD engine and a buttons engine on the same clients share the board; the HUD keeps the user's level")
    func sharedBoard() throws {
        let device = SimulatedDevice(.init(volume: 0))
        let clients = device.clients
        #expect(clients.holdBoard === device.clients.holdBoard)
        let hud = VolumeHUDEngine(clients: clients) { _, _ in }
        hud.start()
        let buttons = VolumeButtonsEngine(configuration: .fixedHeadroom, clients: clients, onEvent: { _ in })
        try buttons.start()
        device.advance(by: 1)
        #expect(clients.holdBoard.isHeld)
        #expect(device.volume == 0.125, "the device holds VolumeKit's anchor")
        #expect(hud.display.level == 0, "the HUD shows the user's level, not the anchor")
        buttons.stop()
        device.advance(by: 1)
        #expect(!clients.holdBoard.isHeld)
        #expect(hud.display.level == 0)
        hud.stop()
        // Clients of another process (a relaunch) have a board of their own.
        device.crash()
        device.launch()
        #expect(device.clients.holdBoard !== clients.holdBoard)
    }
}
