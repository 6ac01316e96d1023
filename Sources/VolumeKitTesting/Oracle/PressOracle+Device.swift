import Foundation
import VolumeKitCore

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
        var steps = [Instant]()
        // Each route's volume as the device starts: the speaker's, and the headphones' on every other route (a
        // route's first change may be another source's, e.g. a Bluetooth headset's sync on its first connect).
        var shown = [AudioRoute: Float]()
        for route in AudioRoute.allCases { shown[route] = device.configuration.startingVolume(on: route) }
        for entry in device.log {
            switch entry {
            case .volume(let time, let route, let value, let cause):
                if case .otherSource = cause, let before = shown[route],
                    PressOracle.pressCouldLand(from: before, to: value)
                {
                    steps.append(time)
                }
                shown[route] = value
            case .appEnded(let time): crashes.append(time)
            case .programmaticSet(let time, let value): sets.append((time, value))
            case .appState(_, let state): active = state == .active
            case .appLaunched: active = true
            case .systemHUD(let time, _) where active && windows.contains(where: { $0.contains(time) }):
                huds.append(time)
            default: break
            }
        }
        self.init(
            strategy: strategy, behaviour: device.behaviour, captureWindows: windows, systemHUDs: huds,
            crashes: crashes, landedSets: sets, otherSourceSteps: steps)
    }
}
