import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PressOracle {
    /// Whether a press of the phone's buttons could move the volume from `old` to `new` — the README's rule,
    /// written here apart from VolumeKit's own (`shared/facts/envelope.md`, `stepQuantization`): one step from the
    /// value, give or take VolumeKit's nudges left in it (2/1000), or onto a point of the 1/16 grid a step away at
    /// most (a press snapped there), a rail included.
    public static func pressCouldLand(from old: Float, to new: Float) -> Bool {
        let step: Float = 1.0 / 16
        let moved = abs(new - old)
        guard moved > 1e-4, moved < step + 0.01 else { return false }
        let onGrid = new <= 0 || new >= 1 || abs(new / step - (new / step).rounded()) * step < 1e-4
        return abs(moved - step) <= 0.002 || onGrid
    }
}

extension PressOracle.Run {
    /// Describes a run on `device` from its log: the system HUD shown for a press while the app was active and
    /// capturing (a hold's repeats after the app left or capture stopped are the system's again), the crashes,
    /// and each landing of the app's sets.
    public init(
        observing device: SimulatedDevice, strategy: SimulatedStrategy, captureWindows windows: [Range<Instant>]
    ) {
        var active = true
        var huds = [Instant]()
        var crashes = [Instant]()
        var sets = [(time: Instant, value: Float)]()
        var dropped = [(time: Instant, value: Float)]()
        var buttonSteps = [(time: Instant, value: Float)]()
        var steps = [Instant]()
        var changes = [(time: Instant, route: AudioRoute, value: Float)]()
        // Each route's volume as the device starts: the speaker's, and the headphones' on every other route (a
        // route's first change may be another source's, e.g. a Bluetooth headset's sync on its first connect).
        var shown = [AudioRoute: Float]()
        for route in AudioRoute.allCases { shown[route] = device.configuration.startingVolume(on: route) }
        let starting = shown
        for entry in device.log {
            switch entry {
            case .volume(let time, let route, let value, let cause):
                if case .otherSource = cause, let before = shown[route],
                    PressOracle.pressCouldLand(from: before, to: value)
                {
                    steps.append(time)
                }
                if case .button = cause { buttonSteps.append((time, value)) }
                shown[route] = value
                changes.append((time, route, value))
            case .appEnded(let time): crashes.append(time)
            case .programmaticSet(let time, let value): sets.append((time, value))
            case .setRefused(let time, let value): dropped.append((time, value))
            case .appState(_, let state): active = state == .active
            case .appLaunched: active = true
            case .systemHUD(let time, _) where active && windows.contains(where: { $0.contains(time) }):
                huds.append(time)
            default: break
            }
        }
        self.init(
            strategy: strategy, behaviour: device.behaviour, captureWindows: windows, systemHUDs: huds,
            crashes: crashes, landedSets: sets, otherSourceSteps: steps, volumes: (starting, changes))
        self.droppedSets = dropped
        self.buttonSteps = buttonSteps
    }

    /// `route`'s volume just before `time` (its last change before it, else its starting volume), if known.
    func volume(on route: AudioRoute, before time: Instant) -> Float? {
        volumes.changes.last { $0.route == route && $0.time < time - 1e-9 }?.value ?? volumes.starting[route]
    }

    /// Whether the route change at `change`, from `old` to `new`, left the output volume where it was (no KVO
    /// of its own) and nothing changed the new route's volume from then until `time`: the first change KVO
    /// reports after it comes at or after `time`.
    func quietSinceRouteChange(at change: Instant, from old: AudioRoute, to new: AudioRoute, until time: Instant)
        -> Bool
    {
        guard let before = volume(on: old, before: change), let after = volume(on: new, before: change),
            abs(before - after) <= 1e-4
        else { return false }
        // A press at a rail is logged with the value it left, unchanged: no change KVO could report.
        return !volumes.changes.contains {
            $0.route == new && $0.time >= change - 1e-9 && $0.time < time - 1e-9 && abs($0.value - after) > 1e-4
        }
    }
}
