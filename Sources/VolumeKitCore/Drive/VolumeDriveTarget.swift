#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Something the hardware volume buttons drive: a network speaker, a player's own level.
///
/// ``VolumeDriveEngine`` starts it, gives it every button event, shows the levels it yields on the HUD, and
/// stops it once the last level it was asked for has been sent. `RemoteVolumeController` (module
/// `RemoteVolume`) conforms, so a speaker is driven with one line on iOS:
///
/// ```swift
/// SpeakerView()
///     .volumeButtons(driving: speaker, hud: .island)
/// ```
///
/// Requirements may be met by actor-isolated members (an actor conforms as it is).
public protocol VolumeDriveTarget: AnyObject, Sendable {
    /// Gets ready to be driven (e.g. reads the device's level and follows its changes). Throws when it cannot
    /// be driven; the drive then gives the buttons back to the system.
    func start() async throws
    /// One button event: ``ButtonPhase/pressed`` and ``ButtonPhase/repeated`` move the level one step;
    /// ``ButtonPhase/released`` may be ignored.
    func handle(_ event: VolumeButtonEvent) async
    /// The levels a HUD should show, 0…1 of the target's range: first the current level when it is known,
    /// then one element per change. The stream ends when ``stop()`` is called.
    func hudLevels() async -> AsyncStream<Float>
    /// Whether a level it was asked for is still on its way (sent but not confirmed, or waiting to be sent).
    var isBusy: Bool { get async }
    /// Stops following the device and ends the streams it gave.
    func stop() async
}
