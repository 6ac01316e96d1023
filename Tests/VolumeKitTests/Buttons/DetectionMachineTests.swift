import Testing
import VolumeKitCore

@Suite("Detection machines")
struct DetectionMachineTests {
    private func phases(_ events: SmallList<VolumeButtonEvent>) -> [String] { events.map(\.description) }

    @Test("Steps within iOS's repeat timeouts are a hold; sooner steps are taps, later ones new presses")
    func repeatRhythm() {
        var classifier = PressClassifier()
        #expect(phases(classifier.step(.up, at: 0)) == ["up pressed"])
        #expect(phases(classifier.step(.up, at: 0.65)) == ["up repeated"])
        #expect(phases(classifier.step(.up, at: 0.85)) == ["up repeated"])
        #expect(
            phases(classifier.step(.up, at: 0.9)) == ["up repeated"],
            "a faster rhythm is still the hold (timeouts are upper bounds)")
        #expect(
            phases(classifier.step(.up, at: 1.2)) == ["up released", "up pressed"],
            "past the 0.25 s timeout: a new press")
        #expect(classifier.nextDeadline == 1.2 + ButtonTiming.standard.releaseAfterPress)
        #expect(
            phases(classifier.step(.up, at: 1.3)) == ["up released", "up pressed"],
            "0.1 s after a press: a tap, not a repeat")
        #expect(phases(classifier.step(.up, at: 1.6)) == ["up repeated"], "a first repeat as early as 0.3 s")
        #expect(phases(classifier.tick(at: 3)) == ["up released"])
        #expect(classifier.heldButton == nil)
    }

    @Test("Real edges give press and release, with repeats produced while the button stays down")
    func realEdges() {
        var classifier = PressClassifier()
        #expect(phases(classifier.buttonDown(.down, at: 1)) == ["down pressed"])
        #expect(phases(classifier.tick(at: 1.65)) == ["down repeated"])
        #expect(phases(classifier.tick(at: 1.85)) == ["down repeated"])
        #expect(phases(classifier.buttonUp(.down, at: 1.9)) == ["down released"])
        #expect(phases(classifier.buttonUp(.down, at: 2)).isEmpty, "no second release")
    }

    @Test("A late tick produces a bounded catch-up of repeats")
    func lateTickIsBounded() {
        var classifier = PressClassifier()
        _ = classifier.buttonDown(.up, at: 0)
        let events = classifier.tick(at: 30)
        #expect(events.count == PressClassifier.maximumCatchUp)
        #expect(events.allSatisfy { $0.phase == .repeated })
    }

    @Test("Our own sets are never reported as presses; off-grid changes are the user's")
    func echoesAndUserChanges() {
        var machine = VolumeStepMachine()
        #expect(Array(machine.start(volume: 0, at: 0)) == [.setVolume(0.125)])
        #expect(machine.observe(0.125, at: 0.02).isEmpty, "the echo of our own set")
        let actions = Array(machine.observe(0.0625, at: 1))
        #expect(actions.first == .steps(.down, count: 1))
        #expect(actions.contains(.setVolume(0.125 - VolumeStepMachine.nudge)), "just below the pre-press value")
        #expect(Array(machine.observe(0.3, at: 2)).first == .userVolumeChanged(0.3))
        #expect(machine.userVolume == 0.3)
    }

    @Test("Stop gives the user's volume back and reports when it is confirmed")
    func stopRestores() {
        var machine = VolumeStepMachine()
        _ = machine.start(volume: 1, at: 0)
        _ = machine.observe(0.875, at: 0.02)
        // A nudge beside the user's value first: a slider whose cache holds their value drops a lone set of it.
        #expect(Array(machine.stop(at: 1)) == [.setVolume(1 - VolumeStepMachine.nudge), .setVolume(1)])
        #expect(machine.observe(1 - VolumeStepMachine.nudge, at: 1.02).isEmpty)
        #expect(Array(machine.observe(1, at: 1.02)) == [.restored])
        #expect(machine.phase == .idle)
    }

    @Test("A refused set is retried until confirmed, then given up with a diagnostic")
    func retries() {
        var machine = VolumeStepMachine(configuration: .init(maximumAttempts: 2))
        _ = machine.start(volume: 0, at: 0)
        #expect(Array(machine.tick(at: 0.2)) == [.setVolume(0.125)])
        #expect(Array(machine.tick(at: 0.41)) == [.setVolume(0.125)])
        #expect(Array(machine.tick(at: 0.62)) == [.setFailed(0.125)])
    }

    @Test(
        "Odd notification payloads give typed errors",
        arguments: [
            (SystemVolumeNotification(name: "Other", userInfo: [:]), VolumeNotificationError.unknownName("Other")),
            (
                SystemVolumeNotification(name: "SystemVolumeDidChange", userInfo: ["Volume": .number(0.5)]),
                .missingValue(key: "Reason")
            ),
            (
                SystemVolumeNotification(
                    name: "SystemVolumeDidChange", userInfo: ["Reason": .number(1), "Volume": .number(0.5)]),
                .wrongType(key: "Reason", found: .number(1))
            ),
            (
                SystemVolumeNotification(
                    name: "SystemVolumeDidChange",
                    userInfo: ["Reason": .string("ExplicitVolumeChange"), "Volume": .string("loud")]),
                .wrongType(key: "Volume", found: .string("loud"))
            ),
            (
                SystemVolumeNotification(
                    name: "SystemVolumeDidChange",
                    userInfo: ["Reason": .string("ExplicitVolumeChange"), "Volume": .number(3)]),
                .volumeOutOfRange(3)
            ),
            (
                SystemVolumeNotification(
                    name: "SystemVolumeDidChange",
                    userInfo: ["Reason": .string("ExplicitVolumeChange"), "Volume": .number(.nan)]),
                .volumeOutOfRange(.nan)
            ),
        ])
    func oddPayloads(notification: SystemVolumeNotification, expected: VolumeNotificationError) {
        do {
            _ = try notification.parse()
            Issue.record("parsed an odd payload")
        } catch let error as VolumeNotificationError {
            if case .volumeOutOfRange(let value) = expected, value.isNaN {
                guard case .volumeOutOfRange(let got) = error else { Issue.record("\(error)"); return }
                #expect(got.isNaN)
            } else {
                #expect(error == expected)
            }
        } catch {
            Issue.record("untyped error \(error)")
        }
    }

    @Test("Both notification generations parse to the same meaning")
    func parsesBothNames() throws {
        let legacy = SystemVolumeNotification(
            name: VolumeChangeNotification.legacyName,
            userInfo: [
                "AVSystemController_AudioVolumeChangeReasonNotificationParameter": .string("RouteChange"),
                "AVSystemController_AudioVolumeNotificationParameter": .number(0.25),
            ])
        #expect(try legacy.parse() == VolumeChangeNotification(reason: .routeChange, volume: 0.25))
        let modern = SystemVolumeNotification(
            name: VolumeChangeNotification.modernName,
            userInfo: [
                "Reason": .string("ExplicitVolumeChange"), "Volume": .number(0.125),
                "AudioCategory": .string("PhoneCall"), "SequenceNumber": .number(1498),
            ])
        #expect(
            try modern.parse()
                == VolumeChangeNotification(
                    reason: .explicitVolumeChange, volume: 0.125, category: "PhoneCall", sequenceNumber: 1498))
    }

    @Test("SmallList keeps order through removals and traps past its capacity only by contract")
    func smallList() {
        var list: SmallList<Int> = [1, 2, 3, 4, 5]
        list.removeFirst(2)
        #expect(Array(list) == [3, 4, 5])
        list.removeAll { $0 == 4 }
        #expect(Array(list) == [3, 5])
        list.append(contentsOf: [6, 7, 8, 9, 10, 11, 12, 13, 14, 15])
        #expect(list.isFull && Array(list) == [3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15])
    }
}
