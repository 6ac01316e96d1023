import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A controller is what the volume buttons drive with VolumeKit's one line:
///
/// ```swift
/// let speaker = RemoteVolumeController(device: try await UPnPRenderer.connect(to: url))
/// SpeakerView()
///     .volumeButtons(driving: speaker, hud: .island)   // module VolumeKit, on iOS
/// ```
///
/// The drive (``VolumeKitCore/VolumeDriveEngine``) calls ``start()`` (first read and device events),
/// ``handle(_:)`` for each button event (coalesced, see ``RemoteVolumeSync``), shows ``hudLevels()`` as 0…1
/// of the device's range, and when the view goes away waits — bounded — until ``isBusy`` is `false` (the last
/// wanted level is on the device) before calling ``stop()``, which ends every stream of this controller.
extension RemoteVolumeController: VolumeDriveTarget {
    /// Stops the controller as ``stop(flushTimeout:)`` does with its default timeout: the last wanted level is
    /// sent first (at most ``defaultFlushTimeout`` seconds), then every stream ends.
    public func stop() async {
        await stop(flushTimeout: Self.defaultFlushTimeout)
    }
}
