#if os(iOS)
import UIKit

/// The hardware volume buttons driving a speaker (any ``/VolumeKitCore/VolumeDriveTarget``, e.g.
/// `RemoteVolumeController`), with VolumeKit's HUD showing the speaker's level: the UIKit twin of
/// ``SwiftUI/View/volumeButtons(driving:hud:configuration:clients:onDiagnostic:)``.
///
/// ```swift
/// final class SpeakerViewController: UIViewController {
///     var drive: VolumeDrive!
///
///     override func viewDidAppear(_ animated: Bool) {
///         super.viewDidAppear(animated)
///         drive = VolumeDrive(driving: speaker, hud: .island)
///         try? drive.start()
///     }
///
///     override func viewWillDisappear(_ animated: Bool) {
///         super.viewWillDisappear(animated)
///         drive.stop()
///     }
/// }
/// ```
///
/// ``start()`` starts button capture and the HUD at once and the speaker in the background (its first read);
/// ``stop()`` gives the buttons and the system HUD back at once and stops the speaker once the last level
/// asked for is on it (at most ``/VolumeKitCore/VolumeDriveEngine/stopTimeout``). All rules live in
/// ``/VolumeKitCore/VolumeDriveEngine``, tested on Linux against the simulated iPhone and a real UPnP renderer; this
/// class connects it to ``VolumeHUD`` and the live system.
@available(
    iOSApplicationExtension, unavailable, message: "needs the app (UIApplication): see the App extensions article"
)
@MainActor
public final class VolumeDrive {
    /// What the buttons drive.
    public nonisolated var target: any VolumeDriveTarget { engine.target }
    /// The HUD showing the target's level (``/VolumeKitCore/VolumeHUDLevelSource/external``), or `nil` without one.
    public let hud: VolumeHUD?
    /// Called with problems that did not stop the drive, and when the target could not start (then capture
    /// and the HUD are stopped: the buttons change the phone's volume again).
    public var onDiagnostic: ((VolumeDriveDiagnostic) -> Void)?

    private let engine: VolumeDriveEngine
    private let hub = DriveHub()

    /// Creates a stopped drive.
    /// - Parameters:
    ///   - target: what the buttons drive, e.g. a `RemoteVolumeController` (module `RemoteVolume`).
    ///   - style: the HUD's look; `nil` for no HUD.
    ///   - configuration: how the buttons are captured (capture mode by default: presses leave the phone's
    ///     volume alone).
    ///   - captureView: for ``/VolumeKitCore/ButtonStrategy/captureEvents``, the camera screen's view (with the live
    ///     clients).
    ///   - clients: the system to run against; the live one by default (pass `SimulatedDevice.clients` to
    ///     drive it from your app's tests).
    public init(
        driving target: any VolumeDriveTarget,
        hud style: VolumeHUDStyle? = .classic,
        configuration: VolumeButtonsConfiguration = VolumeButtonsConfiguration(),
        captureView: UIView? = nil,
        clients: VolumeKitClients? = nil
    ) {
        let clients = clients ?? .live(captureView: captureView)
        let hud = style.map {
            VolumeHUD(style: $0, options: VolumeHUDOptions(levelSource: .external), clients: clients)
        }
        self.hud = hud
        let hub = self.hub
        engine = VolumeDriveEngine(
            target: target,
            configuration: configuration,
            hud: hud.map(MainActorHUD.init),
            clients: clients,
            onDiagnostic: { diagnostic in onMain { hub.send(diagnostic) } }
        )
        hub.onDiagnostic = { [weak self] diagnostic in self?.onDiagnostic?(diagnostic) }
    }

    /// Letting go stops everything, as ``stop()`` does.
    deinit {
        engine.stop()
    }

    /// Whether ``start()`` was called without a matching ``stop()`` (and the target has not failed to start).
    public var isRunning: Bool { engine.isRunning }

    /// Whether presses are being captured right now.
    public var isCapturing: Bool { engine.isCapturing }

    /// Starts capture and the HUD, and the target in the background. Throws ``/VolumeKitCore/VolumeButtonsError`` when
    /// capture cannot start (nothing is left running then).
    public func start() throws {
        try engine.start()
    }

    /// Gives the buttons and the system HUD back now; the target stops once its last level is sent.
    public func stop() {
        engine.stop()
    }
}

/// ``VolumeHUD`` as the drive's HUD: the engine calls from the clients' thread (main on iOS), the shell is
/// main-actor bound.
@available(iOSApplicationExtension, unavailable)
private struct MainActorHUD: VolumeDriveHUD {
    let hud: VolumeHUD

    func start() { onMain { [hud] in hud.start() } }
    func stop() { onMain { [hud] in hud.stop() } }
    func show(level: Float) { onMain { [hud] in hud.show(level: level) } }
    func handle(_ event: VolumeButtonEvent) { onMain { [hud] in hud.handle(event) } }
}

/// Forwards the engine's reports to the shell on the main actor.
@MainActor
private final class DriveHub: Sendable {
    var onDiagnostic: ((VolumeDriveDiagnostic) -> Void)?
    func send(_ diagnostic: VolumeDriveDiagnostic) { onDiagnostic?(diagnostic) }
}
#endif
