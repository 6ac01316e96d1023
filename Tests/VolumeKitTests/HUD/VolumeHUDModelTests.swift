import Foundation
import Testing
import VolumeKitCore

/// Runs a ``VolumeHUDModel`` the way the engine does: one timer aimed at the model's deadline, fired when
/// virtual time reaches it, and every display change logged as the simulator's JSON line.
private struct Timeline {
    var model: VolumeHUDModel
    var pendingTick: Instant? { model.deadline }
    var log: [String] = []
    var announcements: [String] = []
    var now: Instant = 0

    init(_ model: VolumeHUDModel) { self.model = model }

    mutating func advance(to time: Instant) {
        while let due = pendingTick, due <= time {
            now = due
            apply(model.tick(at: due))
        }
        now = time
    }

    mutating func run(at time: Instant, _ input: (inout VolumeHUDModel, Instant) -> [VolumeHUDAction]) {
        advance(to: time)
        apply(input(&model, time))
    }

    mutating func apply(_ actions: [VolumeHUDAction]) {
        for action in actions {
            switch action {
            case .display(let display): log.append(display.jsonLine(at: now))
            case .announce(let text): announcements.append(text)
            }
        }
    }
}

@Suite("VolumeHUDModel")
struct VolumeHUDModelTests {
    @Test("a level change shows the HUD, announces it and schedules the hide 1.5 s later")
    func showsOnChange() {
        var model = VolumeHUDModel(level: 0.5)
        let actions = model.levelChanged(0.5625, at: 10)
        #expect(
            actions == [
                .display(VolumeHUDDisplay(isVisible: true, level: 0.5625)),
                .announce("Volume 56 percent"),
            ])
        #expect(model.display.isVisible)
        #expect(model.deadline == 11.5)
    }

    @Test("each change restarts the hide timer; the HUD hides 1.5 s after the last one")
    func restartsAndHides() {
        var timeline = Timeline(VolumeHUDModel(level: 0.5))
        timeline.run(at: 10) { $0.levelChanged(0.5625, at: $1) }
        timeline.run(at: 11) { $0.levelChanged(0.625, at: $1) }
        timeline.advance(to: 12.4)
        #expect(timeline.model.display.isVisible, "1.4 s after the last change it is still up")
        timeline.advance(to: 13)
        #expect(
            timeline.log == [
                #"{"t":10,"type":"hud","level":0.5625,"visible":true}"#,
                #"{"t":11,"type":"hud","level":0.625,"visible":true}"#,
                #"{"t":12.5,"type":"hud","level":0.625,"visible":false}"#,
            ])
        #expect(timeline.pendingTick == nil)
    }

    @Test("an early tick keeps the HUD and re-arms the same deadline")
    func earlyTick() {
        var model = VolumeHUDModel(level: 0)
        _ = model.levelChanged(0.25, at: 0)
        #expect(model.tick(at: 1) == [])
        #expect(model.deadline == 1.5)
        #expect(model.display.isVisible)
        #expect(model.tick(at: 1.5) == [.display(.hidden(level: 0.25))])
        #expect(model.deadline == nil)
        #expect(model.tick(at: 2) == [], "a late tick after hiding does nothing")
    }

    @Test("the hide delay comes from the caller (the style's autoHideDelay)")
    func customDelay() {
        var model = VolumeHUDModel(level: 0.5, hideDelay: VolumeHUDStyle.classic.named("x").autoHideDelay * 2)
        _ = model.levelChanged(0.75, at: 4)
        #expect(model.deadline == 7)
    }

    @Test("down at 0 shows a minimum bump that a level change clears")
    func bumpAtZero() {
        var timeline = Timeline(VolumeHUDModel(level: 0))
        timeline.run(at: 1) { $0.buttonPressed(.down, at: $1) }
        #expect(timeline.model.display == VolumeHUDDisplay(isVisible: true, level: 0, bump: .minimum))
        #expect(timeline.announcements == ["Volume 0 percent, minimum"])
        timeline.run(at: 1.2) { $0.buttonPressed(.down, at: $1) }
        #expect(timeline.announcements.count == 1, "a repeated bump restarts the timer but does not re-announce")
        #expect(timeline.pendingTick == 2.7)
        timeline.run(at: 2) { $0.levelChanged(0.0625, at: $1) }
        #expect(timeline.model.display == VolumeHUDDisplay(isVisible: true, level: 0.0625))
        timeline.advance(to: 5)
        #expect(
            timeline.log == [
                #"{"t":1,"type":"hud","level":0,"visible":true,"bump":"minimum"}"#,
                #"{"t":1.2,"type":"hud","level":0,"visible":true,"bump":"minimum"}"#,
                #"{"t":2,"type":"hud","level":0.0625,"visible":true}"#,
                #"{"t":3.5,"type":"hud","level":0.0625,"visible":false}"#,
            ])
    }

    @Test("up at 1 shows a maximum bump; presses that can move the level wait for the change")
    func bumpAtOne() {
        var model = VolumeHUDModel(level: 1)
        #expect(model.buttonPressed(.down, at: 0) == [], "down at 1 moves the level: the level change will show it")
        let actions = model.buttonPressed(.up, at: 0.5)
        #expect(actions.first == .display(VolumeHUDDisplay(isVisible: true, level: 1, bump: .maximum)))
        #expect(actions.contains(.announce("Volume 100 percent, maximum")))
        var middle = VolumeHUDModel(level: 0.5)
        #expect(middle.buttonPressed(.up, at: 0) == [])
        #expect(middle.buttonPressed(.down, at: 0) == [])
    }

    @Test("a press cannot be judged before any level is known")
    func unknownLevel() {
        var model = VolumeHUDModel()
        #expect(model.buttonPressed(.down, at: 0) == [])
        _ = model.levelChanged(0, at: 1)
        #expect(
            model.buttonPressed(.down, at: 1.1).first
                == .display(VolumeHUDDisplay(isVisible: true, level: 0, bump: .minimum)))
    }

    @Test("button events: presses and repeats count, releases do not")
    func buttonEvents() {
        var model = VolumeHUDModel(level: 1)
        #expect(model.handle(VolumeButtonEvent(button: .up, phase: .released, time: 0)) == [])
        #expect(!model.handle(VolumeButtonEvent(button: .up, phase: .repeated, time: 0)).isEmpty)
    }

    @Test("resigning active hides at once; while inactive nothing shows; levels are kept for later")
    func inactive() {
        var timeline = Timeline(VolumeHUDModel(level: 0.5))
        timeline.run(at: 0) { $0.levelChanged(0.5625, at: $1) }
        timeline.run(at: 0.5) { $0.appResignedActive(at: $1) }
        #expect(!timeline.model.display.isVisible)
        #expect(timeline.pendingTick == nil)
        timeline.run(at: 1) { $0.levelChanged(0.75, at: $1) }
        timeline.run(at: 1.1) { $0.levelChanged(1, at: $1) }
        timeline.run(at: 1.2) { $0.buttonPressed(.up, at: $1) }
        timeline.run(at: 2) { $0.appBecameActive(level: 0.875, at: $1) }
        #expect(!timeline.model.display.isVisible, "becoming active does not pop the HUD up")
        timeline.run(at: 3) { $0.buttonPressed(.up, at: $1) }
        #expect(timeline.model.display.isVisible == false, "0.875 read on activation is not a rail")
        timeline.run(at: 4) { $0.levelChanged(0.9375, at: $1) }
        #expect(
            timeline.log == [
                #"{"t":0,"type":"hud","level":0.5625,"visible":true}"#,
                #"{"t":0.5,"type":"hud","level":0.5625,"visible":false}"#,
                #"{"t":4,"type":"hud","level":0.9375,"visible":true}"#,
            ])
    }

    @Test("a level equal to the one drawn is not a change; showLevel forces it")
    func equalLevel() {
        var model = VolumeHUDModel(level: 0.5)
        #expect(model.levelChanged(0.5, at: 0) == [])
        #expect(model.showLevel(0.5, at: 0).first == .display(VolumeHUDDisplay(isVisible: true, level: 0.5)))
        #expect(model.levelChanged(0.5, at: 1) == [], "a duplicate report does not extend the timer")
        #expect(model.deadline == 1.5)
    }

    @Test("hostile levels: NaN and infinity are ignored, out-of-range values clamped")
    func hostileLevels() {
        var model = VolumeHUDModel(level: 0.5)
        #expect(model.levelChanged(.nan, at: 0) == [])
        #expect(model.levelChanged(.infinity, at: 0) == [])
        #expect(model.levelChanged(1.7, at: 0).first == .display(VolumeHUDDisplay(isVisible: true, level: 1)))
        #expect(
            model.buttonPressed(.up, at: 0.1).first
                == .display(VolumeHUDDisplay(isVisible: true, level: 1, bump: .maximum)))
        #expect(VolumeHUDModel(level: -3).display.level == 0)
    }

    @Test("dismiss hides and cancels the tick")
    func dismiss() {
        var model = VolumeHUDModel(level: 0.5)
        _ = model.levelChanged(0.25, at: 0)
        #expect(model.dismiss(at: 0.2) == [.display(.hidden(level: 0.25))])
        #expect(model.deadline == nil)
        #expect(model.dismiss(at: 0.3) == [])
    }

    @Test("an event-driven runner without timers: tick at `deadline` before each input, print .display lines")
    func eventDrivenRunner() {
        var hud = VolumeHUDModel(level: 0.5)
        var lines: [String] = []
        func emit(_ actions: [VolumeHUDAction], at t: Instant) {
            for case .display(let display) in actions { lines.append(display.jsonLine(at: t)) }
        }
        func flush(until t: Instant) {
            while let due = hud.deadline, due <= t { emit(hud.tick(at: due), at: due) }
        }
        let script: [(Instant, Float)] = [(1, 0.5625), (1.5, 0.625), (5, 0.5625)]
        for (t, level) in script {
            flush(until: t)
            emit(hud.levelChanged(level, at: t), at: t)
        }
        flush(until: .infinity)
        #expect(
            lines == [
                #"{"t":1,"type":"hud","level":0.5625,"visible":true}"#,
                #"{"t":1.5,"type":"hud","level":0.625,"visible":true}"#,
                #"{"t":3,"type":"hud","level":0.625,"visible":false}"#,
                #"{"t":5,"type":"hud","level":0.5625,"visible":true}"#,
                #"{"t":6.5,"type":"hud","level":0.5625,"visible":false}"#,
            ])
    }
}
