import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

@Suite("ambiguousStep: a step that may be a hold's first repeat or a second tap, reported as the app chose")
struct AmbiguousStepPolicyTests {
    /// The phases `classifier` reports for steps of up at `times`, then 2 s of quiet.
    static func phases(_ policy: AmbiguousStepPolicy, _ times: [Instant]) -> [ButtonPhase] {
        var classifier = PressClassifier()
        classifier.ambiguousStep = policy
        var events = [VolumeButtonEvent]()
        for time in times { events += classifier.step(.up, at: time) }
        events += classifier.tick(at: (times.last ?? 0) + 2)
        return events.map(\.phase)
    }

    @Test("two taps 0.5 s apart: one press and a repeat by default, two presses with .pressed")
    func twoTaps() {
        #expect(Self.phases(.repeated, [0, 0.5]) == [.pressed, .repeated, .released])
        #expect(Self.phases(.pressed, [0, 0.5]) == [.pressed, .released, .pressed, .released])
    }

    @Test(
        "a hold (first repeat 0.5 s, then every 0.1 s): one press by default; with .pressed its start counts twice, then its repeats"
    )
    func hold() {
        let steps: [Instant] = [0, 0.5, 0.6, 0.7, 0.8]
        #expect(Self.phases(.repeated, steps) == [.pressed, .repeated, .repeated, .repeated, .repeated, .released])
        #expect(
            Self.phases(.pressed, steps) == [.pressed, .released, .pressed, .repeated, .repeated, .repeated, .released])
    }

    @Test("four taps 0.4 s apart on a phone that has shown no hold: 4 presses with .pressed, 2 by default")
    func tapsOnDevice() throws {
        func presses(_ policy: AmbiguousStepPolicy) throws -> Int {
            var configuration = VolumeButtonsConfiguration()
            configuration.ambiguousStep = policy
            let run = try CaptureRun(["firstRepeatDelay=0.65"], configuration: configuration)
            for _ in 0..<4 {
                run.device.press(.up)
                run.device.advance(by: 0.4)
            }
            run.device.advance(by: 1)
            #expect(run.diagnostics.current.contains(.ambiguousStep))
            return run.events.current.filter { $0.phase == .pressed }.count
        }
        #expect(try presses(.pressed) == 4)
        #expect(try presses(.repeated) == 2)
    }
}
