import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RemoteVolumeController {
    /// Moves the device with every event of `events` until the sequence ends or the calling task is cancelled.
    ///
    /// `pressed` and `repeated` each move the level one ``RemoteVolumeSync/Configuration/step`` (iOS repeats a
    /// held button about every 0.2 s, so holding keeps moving the speaker); `released` does nothing. Presses go
    /// through the sync machine: a burst never becomes one request per press. Any source of
    /// ``/VolumeKitCore/VolumeButtonEvent``s works — VolumeKit's `VolumeButtons.events()`, a test stream, a remote control.
    ///
    /// ```swift
    /// Task { await speaker.drive(with: buttons.events()) }
    /// ```
    ///
    /// Rethrows whatever `events` throws; the presses handled before it stay in effect.
    public nonisolated func drive<Events: AsyncSequence>(with events: Events) async rethrows
    where Events.Element == VolumeButtonEvent {
        for try await event in events {
            if Task.isCancelled { return }
            await handle(event)
        }
    }

    /// The level a HUD should show now, 0…1 of the device's range: the optimistic level (presses not yet
    /// confirmed included), or `nil` before the first read.
    public var hudLevel: Float? {
        level.map(device.fraction(ofLevel:))
    }

    /// The levels a HUD should show, 0…1 of the device's range (see ``RemoteVolumeDevice/fraction(ofLevel:)``).
    ///
    /// The first element is the current level, if known (so a HUD learns where the speaker is when it
    /// connects); then one element per change of the optimistic level: at each press that moves it, and when
    /// the device reports a level of its own (someone used the speaker's own controls) or a failure makes the
    /// HUD fall back to the device's level. Feed it to VolumeKit's `VolumeHUD.show(level:)`:
    ///
    /// ```swift
    /// Task { for await level in await speaker.hudLevels() { hud.show(level: level) } }
    /// ```
    ///
    /// Each call makes a new subscriber; the stream ends when ``stop()`` is called or its consumer is cancelled.
    public func hudLevels() -> AsyncStream<Float> {
        let updates = updates()
        let device = self.device
        let (levels, continuation) = AsyncStream<Float>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let forwarding = Task {
            for await update in updates {
                if case .level(let level) = update { continuation.yield(device.fraction(ofLevel: level)) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in forwarding.cancel() }
        return levels
    }
}
