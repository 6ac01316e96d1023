#if os(iOS)
import UIKit
import VolumeKitCore

/// The overlay window that carries the custom HUD. (The `MPVolumeView` that hides the system HUD is never
/// here: `VolumeViewHost` keeps it in the app's own windows, since this one is lowered below them while hidden.)
///
/// Rules, reviewed against `shared/facts/volume-hud.md` §5 and seed 002 §4:
/// - **never key**: `canBecomeKey` is `false` and nothing calls `makeKeyAndVisible()` / `makeKey()`; it is
///   shown with `isHidden = false`. A key-stealing overlay dismisses the keyboard (hyperoslo/Whisper #186) and
///   breaks alert presentation from `keyWindow.rootViewController` (FlowBarButtonItem #3, MTStatusBarOverlay #64);
///   seed 002 had to override `becomeKeyWindow` to hand key status back — `canBecomeKey` prevents it up front;
/// - **scene-attached**: created with `init(windowScene:)` when the app has a window scene (a `UIWindow(frame:)`
///   is not shown in scene apps: NotificationBanner #235, ZFPlayer #948), `init(frame:)` only as a fallback;
/// - **transparent to touches**: `isUserInteractionEnabled = false` and `hitTest` returns `nil`, so the
///   hidden volume view's route button can never swallow taps (VolumeBar #6);
/// - **status bar and rotation stay the app's**: the topmost window decides the status bar (openradar
///   15573442), so the root view controller forwards status-bar and orientation questions to the app's
///   top view controller; `VolumeHUD` also lowers the window below the app's while the HUD is hidden;
/// - it cannot draw over the status bar (iOS 13+ renders it out of process), which ``/VolumeKitCore/VolumeHUDLayout``
///   respects.
final class VolumeHUDWindow: UIWindow {
    override var canBecomeKey: Bool { false }

    override func hitTest(_ point: CGPoint, with event: UIEvent?) -> UIView? { nil }

    /// Sets up a window that is transparent, inert and not yet shown.
    func configure() {
        backgroundColor = .clear
        isOpaque = false
        isUserInteractionEnabled = false
        accessibilityViewIsModal = false
    }
}

/// The overlay window's root: hosts the HUD view, lays out the HUD with ``/VolumeKitCore/VolumeHUDLayout``
/// and forwards status-bar and orientation decisions to the app.
@available(iOSApplicationExtension, unavailable)
final class VolumeHUDRootViewController: UIViewController {
    let hudView: VolumeHUDUIView
    /// Called whenever size, safe area or orientation may have changed.
    var onLayout: (() -> Void)?

    init(hudView: VolumeHUDUIView) {
        self.hudView = hudView
        super.init(nibName: nil, bundle: nil)
    }

    @available(*, unavailable)
    required init?(coder: NSCoder) { fatalError("init(coder:) is not supported") }

    override func loadView() {
        let root = UIView()
        root.backgroundColor = .clear
        root.isUserInteractionEnabled = false
        hudView.alpha = 0
        root.addSubview(hudView)
        view = root
    }

    override func viewDidLayoutSubviews() {
        super.viewDidLayoutSubviews()
        onLayout?()
    }

    override func viewWillTransition(to size: CGSize, with coordinator: UIViewControllerTransitionCoordinator) {
        super.viewWillTransition(to: size, with: coordinator)
        coordinator.animate(alongsideTransition: { [weak self] _ in self?.onLayout?() })
    }

    /// The app's top view controller in the same scene (the key window's, else the first visible app window's).
    private var appViewController: UIViewController? {
        var window: UIWindow?
        if let scene = view.window?.windowScene {
            let appWindows = scene.windows.filter { !($0 is VolumeHUDWindow) }
            window = appWindows.first(where: \.isKeyWindow) ?? appWindows.first { !$0.isHidden }
        } else {
            window = UIApplication.shared.delegate?.window ?? nil
        }
        var controller = window?.rootViewController
        while let presented = controller?.presentedViewController, !presented.isBeingDismissed {
            controller = presented
        }
        return controller
    }

    private var statusBarController: UIViewController? {
        var controller = appViewController
        while let child = controller?.childForStatusBarStyle { controller = child }
        return controller
    }

    override var preferredStatusBarStyle: UIStatusBarStyle { statusBarController?.preferredStatusBarStyle ?? .default }

    override var prefersStatusBarHidden: Bool {
        var controller = appViewController
        while let child = controller?.childForStatusBarHidden { controller = child }
        return controller?.prefersStatusBarHidden ?? false
    }

    override var supportedInterfaceOrientations: UIInterfaceOrientationMask {
        appViewController?.supportedInterfaceOrientations ?? .all
    }

    override var shouldAutorotate: Bool { appViewController?.shouldAutorotate ?? true }
}
#endif
