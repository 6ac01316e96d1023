#if os(iOS)
import SwiftUI
import UIKit

extension View {
    /// Captures the hardware volume buttons while this view is on screen and calls `action` for each event.
    ///
    /// ```swift
    /// CameraView()
    ///     .onVolumeButton(.init(strategy: .captureEvents)) { event in
    ///         if event.phase == .pressed { camera.capture() }
    ///     }
    /// ```
    ///
    /// Built on `.task(id:)`: capture starts when the view appears, restarts when `configuration` changes,
    /// and stops (restoring the user's volume) when the view disappears. Errors starting capture are passed
    /// to `onError`. Each event goes to the `action` of the latest update of this view (a parent re-rendered
    /// with a new closure is called from then on, without restarting capture); the same for `onError`.
    ///
    /// With ``/VolumeKitCore/ButtonStrategy/captureEvents`` the `AVCaptureEventInteraction` is attached to a view
    /// placed behind this one, so capture starts once it is in a window. Capture events reach only an app that is
    /// actively using the camera (a running `AVCaptureSession` with its preview on screen, iOS 17.2+;
    /// `shared/facts/volume-buttons.md` §3); they need no audio session.
    /// - Parameters:
    ///   - configuration: strategy, mode, session and timing, as for ``VolumeButtons``.
    ///   - clients: the system to run against (live by default; for ``/VolumeKitCore/ButtonStrategy/captureEvents``
    ///     the live clients are made with the view behind this one).
    ///   - onError: called on the main actor when capture cannot start.
    ///   - action: called on the main actor with each event.
    @available(
        iOSApplicationExtension, unavailable, message: "needs the app (UIApplication): see the App extensions article"
    )
    public func onVolumeButton(
        _ configuration: VolumeButtonsConfiguration = VolumeButtonsConfiguration(),
        clients: VolumeKitClients? = nil,
        onError: @escaping @MainActor (VolumeButtonsError) -> Void = { _ in },
        perform action: @escaping @MainActor (VolumeButtonEvent) -> Void
    ) -> some View {
        modifier(
            VolumeButtonsModifier(configuration: configuration, clients: clients, onError: onError, action: action))
    }
}

@available(iOSApplicationExtension, unavailable)
private struct VolumeButtonsModifier: ViewModifier {
    struct Key: Equatable {
        var configuration: VolumeButtonsConfiguration
        var anchor: ObjectIdentifier?
        var hasClients: Bool
    }

    let configuration: VolumeButtonsConfiguration
    let clients: VolumeKitClients?
    let onError: @MainActor (VolumeButtonsError) -> Void
    let action: @MainActor (VolumeButtonEvent) -> Void
    @State private var anchor: CaptureAnchorView?
    /// The closures of the latest update: the task, started once, calls through it.
    @State private var latest = LatestVolumeButtonHandlers()

    private var needsAnchor: Bool { configuration.strategy == .captureEvents && clients == nil }

    func body(content: Content) -> some View {
        latest.action = action
        latest.onError = onError
        return
            content
            .background(needsAnchor ? CaptureAnchor { anchor = $0 } : nil)
            .task(
                id: Key(
                    configuration: configuration, anchor: anchor.map(ObjectIdentifier.init), hasClients: clients != nil)
            ) { @MainActor in
                // Capture events need the anchor in a window; the task runs again once it is.
                if needsAnchor, anchor == nil { return }
                let latest = latest
                let buttons = VolumeButtons(configuration, captureView: anchor, clients: clients)
                do {
                    try buttons.start()
                } catch {
                    latest.onError(error as? VolumeButtonsError ?? .audioSession(String(describing: error)))
                    return
                }
                // Ends when the task is cancelled (the view went away or the configuration changed).
                for await event in buttons.events() { latest.action(event) }
                buttons.stop()
            }
    }
}

/// The closures `onVolumeButton` was given by the latest update of its view. A `.task` captures the values
/// of the update that started it; reading the closures through this reference instead calls the ones a
/// re-rendered parent passed since.
@MainActor
private final class LatestVolumeButtonHandlers {
    var action: @MainActor (VolumeButtonEvent) -> Void = { _ in }
    var onError: @MainActor (VolumeButtonsError) -> Void = { _ in }
}

/// An empty view behind the modified one that carries the `AVCaptureEventInteraction`.
private struct CaptureAnchor: UIViewRepresentable {
    let onWindow: @MainActor (CaptureAnchorView?) -> Void

    func makeUIView(context: Context) -> CaptureAnchorView {
        let view = CaptureAnchorView()
        view.onWindow = onWindow
        return view
    }

    func updateUIView(_ view: CaptureAnchorView, context: Context) {
        view.onWindow = onWindow
    }
}

/// Reports when it enters or leaves a window.
final class CaptureAnchorView: UIView {
    var onWindow: (@MainActor (CaptureAnchorView?) -> Void)?

    override func didMoveToWindow() {
        super.didMoveToWindow()
        let report = onWindow
        let view: CaptureAnchorView? = window == nil ? nil : self
        // Not during the view update that moved it: SwiftUI state changes then are not allowed.
        DispatchQueue.main.async { report?(view) }
    }
}
#endif
