#if os(iOS)
import SwiftUI

extension View {
    /// While this view is on screen, the hardware volume buttons drive `target` (e.g. a
    /// `RemoteVolumeController` for a network speaker) and VolumeKit's HUD shows its level, with the bump when
    /// a press hits 0 or 100 %.
    ///
    /// ```swift
    /// let speaker = RemoteVolumeController(device: try await UPnPRenderer.connect(to: url))
    /// SpeakerView()
    ///     .volumeButtons(driving: speaker, hud: .island)
    /// ```
    ///
    /// Built on `.task(id:)`: when the view appears, button capture and the HUD start at once and the target
    /// starts in the background (presses made while it connects are kept and reach it in order); when the
    /// view disappears, the buttons and the system HUD are given back at once and the target is stopped once
    /// the last level asked for is on it (bounded, see ``/VolumeKitCore/VolumeDriveEngine/stopTimeout``). Changing the
    /// target, the style or the configuration restarts the drive. Stopping the target ends every stream it
    /// gave (for a `RemoteVolumeController`, all its `updates()`). Diagnostics go to the `onDiagnostic` of
    /// the latest update of this view (a new closure from a re-rendered parent restarts nothing).
    /// - Parameters:
    ///   - target: what the buttons drive.
    ///   - style: the HUD's look; `nil` for no HUD.
    ///   - configuration: how the buttons are captured (capture mode by default: the phone's volume stays).
    ///   - clients: the system to run against (live by default).
    ///   - onDiagnostic: called on the main actor with problems: capture that could not start, a target that
    ///     could not start (the buttons are the phone's again then), a last level not confirmed in time.
    @available(
        iOSApplicationExtension, unavailable, message: "needs the app (UIApplication): see the App extensions article"
    )
    public func volumeButtons(
        driving target: any VolumeDriveTarget,
        hud style: VolumeHUDStyle? = .classic,
        configuration: VolumeButtonsConfiguration = VolumeButtonsConfiguration(),
        clients: VolumeKitClients? = nil,
        onDiagnostic: @escaping @MainActor (VolumeDriveDiagnostic) -> Void = { _ in }
    ) -> some View {
        modifier(
            VolumeDriveModifier(
                target: target, style: style, configuration: configuration, clients: clients, onDiagnostic: onDiagnostic
            ))
    }
}

@available(iOSApplicationExtension, unavailable)
private struct VolumeDriveModifier: ViewModifier {
    struct Key: Equatable {
        var target: ObjectIdentifier
        var style: VolumeHUDStyle?
        var configuration: VolumeButtonsConfiguration
        var hasClients: Bool
    }

    let target: any VolumeDriveTarget
    let style: VolumeHUDStyle?
    let configuration: VolumeButtonsConfiguration
    let clients: VolumeKitClients?
    let onDiagnostic: @MainActor (VolumeDriveDiagnostic) -> Void
    /// The `onDiagnostic` of the latest update: the task, started once, calls through it.
    @State private var latest = LatestDriveDiagnosticHandler()

    func body(content: Content) -> some View {
        latest.onDiagnostic = onDiagnostic
        return
            content
            .task(
                id: Key(
                    target: ObjectIdentifier(target), style: style, configuration: configuration,
                    hasClients: clients != nil)
            ) { @MainActor in
                let latest = latest
                let drive = VolumeDrive(driving: target, hud: style, configuration: configuration, clients: clients)
                drive.onDiagnostic = { diagnostic in latest.onDiagnostic(diagnostic) }
                do {
                    try drive.start()
                } catch {
                    latest.onDiagnostic(
                        .captureUnavailable(error as? VolumeButtonsError ?? .audioSession(String(describing: error))))
                    return
                }
                // Until the view goes away or the key changes: the task is cancelled then.
                while !Task.isCancelled {
                    try? await Task.sleep(nanoseconds: 3_600_000_000_000)
                }
                drive.stop()
            }
    }
}
/// The `onDiagnostic` that `volumeButtons(driving:…)` was given by the latest update of its view (a `.task`
/// keeps the values of the update that started it).
@MainActor
private final class LatestDriveDiagnosticHandler {
    var onDiagnostic: @MainActor (VolumeDriveDiagnostic) -> Void = { _ in }
}
#endif
