#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The HUD a ``VolumeDriveEngine`` shows the target's level on.
///
/// ``VolumeHUDEngine`` conforms (give it ``VolumeHUDLevelSource/external`` options: the level is the
/// target's, not the phone's); on iOS the `VolumeHUD` shell is passed through a main-actor adapter by
/// `VolumeDrive`. The drive calls these on the clients' callback thread (the main thread on iOS).
public protocol VolumeDriveHUD: Sendable {
    /// Starts hiding the system HUD and showing levels.
    func start()
    /// Hides the HUD and gives the system HUD back.
    func stop()
    /// Shows the HUD at `level` (0…1), even if it equals the level shown.
    func show(level: Float)
    /// A button event: a press at a rail (down at 0, up at 1) shows the bump.
    func handle(_ event: VolumeButtonEvent)
}

extension VolumeHUDEngine: VolumeDriveHUD {}
