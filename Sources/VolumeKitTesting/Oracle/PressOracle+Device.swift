import Foundation
import VolumeKitCore

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
        for entry in device.log {
            switch entry {
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
            crashes: crashes, landedSets: sets)
    }
}
