#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The detection machine: turns what the system reports into ``VolumeButtonEvent``s.
///
/// Two kinds of input:
/// - **steps** (``step(_:at:)``): one volume step seen through KVO or the system notification. A step is a
///   press, or an auto-repeat when it arrives soon enough after the previous one (``ButtonTiming``'s delays
///   are upper bounds of iOS's unmeasured rhythm); the release is inferred when the rhythm stops
///   (``tick(at:)`` at ``nextDeadline``).
/// - **real edges** (``buttonDown(_:at:)`` / ``buttonUp(_:at:)``), from capture events: the release is real,
///   and repeats are produced on the same rhythm while the button stays down.
///
/// Pure: time comes in with each input; the caller schedules a tick at ``nextDeadline``.
/// Every `pressed` is followed by exactly one `released` of the same button.
public struct PressClassifier: Sendable, Equatable {
    private struct Held: Sendable, Equatable {
        var button: VolumeButton
        var lastEvent: Instant
        var repeats: Int
        var isPhysicallyDown: Bool
        /// Pressed on an ambiguous step (``AmbiguousStepPolicy/pressed``): a step on a hold's later rhythm next
        /// shows it was a hold, and is its repeat.
        var onAmbiguousStep = false
        /// Whether the next step is judged on the later repeats' rhythm.
        var isRepeating: Bool { repeats > 0 || onAmbiguousStep }
    }

    /// The most missed repeats one late tick produces.
    public static let maximumCatchUp = 3

    /// The timing rules in force.
    public var timing: ButtonTiming
    /// What a step that may be a hold's first repeat or a second tap is reported as.
    public var ambiguousStep: AmbiguousStepPolicy = .repeated
    private var held: Held?

    /// Creates a classifier.
    public init(timing: ButtonTiming = .standard) {
        self.timing = timing
    }

    /// The button currently considered down, if any.
    public var heldButton: VolumeButton? { held?.button }

    /// Whether the last step (``step(_:at:)``) was read as a hold's first auto-repeat from its timing alone: its
    /// gap from the press lies where iOS's first repeat may come (0.3–0.7 s, `shared/facts/envelope.md`), and
    /// a second tap made at that pace looks the same.
    public private(set) var lastStepWasFirstRepeat = false

    /// When ``tick(at:)`` must be called next, if anything is pending.
    public var nextDeadline: Instant? {
        guard let held else { return nil }
        if held.isPhysicallyDown {
            return held.lastEvent + (held.repeats == 0 ? timing.firstRepeatDelay : timing.repeatInterval)
        }
        return held.lastEvent + (held.isRepeating ? timing.releaseAfterRepeat : timing.releaseAfterPress)
    }

    /// One volume step of `button` observed at `time`. (Coalesced steps are fed one at a time.)
    public mutating func step(_ button: VolumeButton, at time: Instant) -> SmallList<VolumeButtonEvent> {
        var events = SmallList<VolumeButtonEvent>()
        tick(at: time, into: &events)
        lastStepWasFirstRepeat = false
        var onAmbiguousStep = false
        if var current = held, current.button == button, !current.isPhysicallyDown {
            // The rhythm's delays are upper bounds (`shared/facts/envelope.md`): any step soon enough is a repeat.
            let elapsed = time - current.lastEvent
            let isRepeat =
                !current.isRepeating
                ? elapsed >= timing.firstRepeatMinimum - timing.tolerance && elapsed <= timing.releaseAfterPress
                : elapsed <= timing.repeatInterval + timing.tolerance
            #if VOLUMEKIT_MUTANTS
            let repeats = isRepeat && !Mutant.isOn(.noRepeats)
            #else
            let repeats = isRepeat
            #endif
            if repeats {
                lastStepWasFirstRepeat = !current.isRepeating
                // A first repeat by its timing alone, taken for a second tap (``AmbiguousStepPolicy/pressed``): a
                // new press below, whose next step on the later rhythm shows a hold (its repeats follow this press).
                onAmbiguousStep = lastStepWasFirstRepeat && ambiguousStep == .pressed
                if !onAmbiguousStep {
                    current.repeats += 1
                    current.lastEvent = time
                    held = current
                    events.append(VolumeButtonEvent(button: button, phase: .repeated, time: time))
                    return events
                }
            }
        }
        release(at: time, into: &events)
        held = Held(
            button: button, lastEvent: time, repeats: 0, isPhysicallyDown: false, onAmbiguousStep: onAmbiguousStep)
        events.append(VolumeButtonEvent(button: button, phase: .pressed, time: time))
        #if VOLUMEKIT_MUTANTS
        if Mutant.isOn(.earlyRelease) { release(at: time, into: &events) }
        #endif
        return events
    }

    /// The button went down (a real edge).
    public mutating func buttonDown(_ button: VolumeButton, at time: Instant) -> SmallList<VolumeButtonEvent> {
        var events = SmallList<VolumeButtonEvent>()
        tick(at: time, into: &events)
        if let current = held, current.button == button, current.isPhysicallyDown { return events }
        release(at: time, into: &events)
        held = Held(button: button, lastEvent: time, repeats: 0, isPhysicallyDown: true)
        events.append(VolumeButtonEvent(button: button, phase: .pressed, time: time))
        return events
    }

    /// The button came up (a real edge).
    public mutating func buttonUp(_ button: VolumeButton, at time: Instant) -> SmallList<VolumeButtonEvent> {
        var events = SmallList<VolumeButtonEvent>()
        tick(at: time, into: &events)
        guard held?.button == button else { return events }
        release(at: time, into: &events)
        return events
    }

    /// Time passed: produces repeats for a button that is really down, and inferred releases. When ticks came
    /// late (a blocked main thread), at most ``maximumCatchUp`` missed repeats are produced.
    public mutating func tick(at time: Instant) -> SmallList<VolumeButtonEvent> {
        var events = SmallList<VolumeButtonEvent>()
        tick(at: time, into: &events)
        return events
    }

    /// ``tick(at:)``, its events appended to `events`. (Each input appends to one list: lists returned and joined
    /// were copied whole — the detection machine's budget is 100 ns an observation.)
    private mutating func tick(at time: Instant, into events: inout SmallList<VolumeButtonEvent>) {
        let start = events.count
        if let current = held, current.isPhysicallyDown, let deadline = nextDeadline,
            time - deadline > timing.repeatInterval * Double(Self.maximumCatchUp)
        {
            // Skip the repeats that cannot be caught up: resume the rhythm from now.
            held?.lastEvent = time - timing.repeatInterval * Double(Self.maximumCatchUp)
            held?.repeats = max(current.repeats, 1)
        }
        while events.count - start <= Self.maximumCatchUp, let deadline = nextDeadline, deadline <= time,
            let current = held
        {
            if current.isPhysicallyDown {
                held?.repeats += 1
                held?.lastEvent = deadline
                events.append(VolumeButtonEvent(button: current.button, phase: .repeated, time: deadline))
            } else {
                release(at: deadline, into: &events)
            }
        }
    }

    /// Releases whatever is held now (capture stopped, app resigned active).
    public mutating func release(at time: Instant) -> SmallList<VolumeButtonEvent> {
        var events = SmallList<VolumeButtonEvent>()
        release(at: time, into: &events)
        return events
    }

    /// ``release(at:)``, its event appended to `events`.
    private mutating func release(at time: Instant, into events: inout SmallList<VolumeButtonEvent>) {
        guard let current = held else { return }
        held = nil
        events.append(VolumeButtonEvent(button: current.button, phase: .released, time: time))
    }
}

/// What a volume step is reported as when its timing alone cannot tell a hold's first auto-repeat from a second
/// tap (0.3–0.7 s after a press, `shared/facts/envelope.md`; ``VolumeButtonsDiagnostic/ambiguousStep``), until
/// the phone's own rhythm is learned (``ButtonTiming/narrowed(toFirstRepeat:window:)``).
public enum AmbiguousStepPolicy: String, Sendable, Equatable, CaseIterable {
    /// A repeat (the default): a hold is one `pressed` and its repeats, as iOS means it; a second tap at that
    /// pace is a `repeated` — an app that acts on every step (a speaker's volume) loses nothing.
    case repeated
    /// A new press: taps at any pace are `pressed` — a shutter or page turner misses none — and a hold begins
    /// with two (`pressed`, `released`, `pressed`, then its repeats).
    case pressed
}
