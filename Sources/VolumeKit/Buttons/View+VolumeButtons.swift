#if os(iOS)
import SwiftUI

extension View {
    /// Captures the hardware volume buttons while this view is on screen and calls `action` for each event.
    ///
    /// ```swift
    /// CameraView()
    ///     .onVolumeButton { event in
    ///         if event.phase == .pressed { camera.capture() }
    ///     }
    /// ```
    ///
    /// Built on `.task(id:)`: capture starts when the view appears, restarts when `configuration` changes,
    /// and stops (restoring the user's volume) when the view disappears. Errors starting capture are passed
    /// to `onError`.
    public func onVolumeButton(
        _ configuration: VolumeButtonsConfiguration = VolumeButtonsConfiguration(),
        onError: @escaping @MainActor (VolumeButtonsError) -> Void = { _ in },
        perform action: @escaping @MainActor (VolumeButtonEvent) -> Void
    ) -> some View {
        task(id: configuration) { @MainActor in
            let buttons = VolumeButtons(configuration)
            do {
                try buttons.start()
            } catch {
                onError(error as? VolumeButtonsError ?? .audioSession(String(describing: error)))
                return
            }
            for await event in buttons.events() { action(event) }
            buttons.stop()
        }
    }
}
#endif
