import Foundation
import Testing
import VolumeKitCore
import VolumeKitTesting

/// Presses on devices whose reads, steps and rhythm differ (the envelope audit, issue 11 item 5): each counted once,
/// and the user's volume back at the end.
@Suite("Correct across the envelope: every press counted once")
struct PressCountTests {
    @Test("Rounded reads: presses are classified with a tolerance and the user's volume comes back")
    func roundedReads() throws {
        let run = try CaptureRun(["stepQuantization=rounded"], volume: 1.0 / 3)
        for button in [VolumeButton.up, .down, .up, .down] {
            run.device.press(button)
            run.device.advance(by: 0.5)
        }
        run.device.advance(by: 1)
        #expect(run.pressed == [.up, .down, .up, .down])
        #expect(run.repeats == 0)
        run.stop()
        #expect(abs(run.device.volume - 1.0 / 3) < 1e-4)
    }

    @Test("Grid-snapped presses from an off-grid volume: every press counted once")
    func gridPresses() throws {
        let run = try CaptureRun(["stepQuantization=grid"], volume: 0.33)
        for _ in 0..<3 { run.device.press(.down); run.device.advance(by: 0.15) }
        run.device.advance(by: 1)
        for _ in 0..<3 { run.device.press(.up); run.device.advance(by: 0.15) }
        run.device.advance(by: 1)
        #expect(run.pressed == [.down, .down, .down, .up, .up, .up])
        #expect(run.pressHUDs == 0)
        run.stop()
        #expect(abs(run.device.volume - 0.33) < 1e-6)
    }

    @Test("A fast hold rhythm is one hold, not a train of presses")
    func fastHoldRhythm() throws {
        let run = try CaptureRun(["firstRepeatDelay=0.3", "repeatInterval=0.06"])
        run.device.hold(.up, for: 1.5)
        run.device.advance(by: 2.5)
        #expect(run.pressed == [.up])
        #expect(run.repeats >= 15)
        #expect(run.events.current.last?.phase == .released)
        run.stop()
        #expect(run.device.volume == 0.5)
    }

    @Test("Dropped sets (a stale slider cache): the next opposite press is not taken for an echo")
    func droppedSets() throws {
        let run = try CaptureRun(["downPressRefusal=cachedEqualSetDrop", "volumeCacheDelay=0.1"])
        run.device.press(.up)
        run.device.advance(by: 0.15)
        run.device.press(.down)
        run.device.advance(by: 1)
        #expect(run.pressed == [.up, .down])
        run.stop()
        #expect(run.device.volume == 0.5)
    }
}
