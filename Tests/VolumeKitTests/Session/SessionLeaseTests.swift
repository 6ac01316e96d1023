import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

@Suite("One audio session shared by VolumeKit's features")
struct SessionLeaseTests {
    @Test(
        "Stopping the buttons while the Ring/Silent monitor runs leaves the session active; the last one gives it back")
    func buttonsAndMuteShareTheSession() throws {
        let device = SimulatedDevice(.init(volume: 0.5))
        let clients = device.clients
        let mute = MuteSwitchEngine(soundURL: URL(fileURLWithPath: "/probe.caf"), clients: clients)
        mute.start()
        let buttons = VolumeButtonsEngine(clients: clients, onEvent: { _ in })
        try buttons.start()
        device.advance(by: 0.5)
        #expect(clients.sessionLease.users == 2)
        buttons.stop()
        device.advance(by: 1)
        #expect(device.isSessionActive, "the monitor still needs live volume reads")
        #expect(device.sessionConfiguration == .playbackMixing, "the configuration stays until the last user leaves")
        mute.stop()
        device.advance(by: 0.5)
        #expect(!device.isSessionActive)
        #expect(device.sessionConfiguration == .systemDefault)
    }

    @Test("An app that set up its own session keeps it active when VolumeKit leaves")
    func appOwnedSessionStaysActive() throws {
        let device = SimulatedDevice(.init(volume: 0.5))
        let clients = device.clients
        try clients.audioSession.setConfiguration(.playbackMixing)
        try clients.audioSession.setActive(true, false)
        let buttons = VolumeButtonsEngine(clients: clients, onEvent: { _ in })
        try buttons.start()
        device.advance(by: 0.5)
        buttons.stop()
        device.advance(by: 1)
        #expect(device.isSessionActive)
    }
}
