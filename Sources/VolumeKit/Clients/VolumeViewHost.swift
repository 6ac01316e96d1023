#if os(iOS)
import MediaPlayer
import UIKit

/// Keeps the `MPVolumeView`s VolumeKit needs: one per request, each in a window of the foreground-active
/// scene, off screen, never hidden, with an alpha small but above `FLT_EPSILON`.
///
/// Why each rule: the system HUD is suppressed only while an `MPVolumeView`'s slider is "on screen", and
/// `MPVolumeSlider._isOffScreen` counts a view as off screen when it has no window, or when it or any
/// ancestor is hidden or has an alpha below `FLT_EPSILON`; frame and clipping are not checked
/// (`shared/facts/volume-hud.md` §4; seed 000: "MPVolumeView不能是hidden的也不能alpha=0"). Its slider is also
/// the only public way to set the volume, and it is usable a moment after it reaches a window (the HUD
/// controller's update is coalesced through the main queue; JPSVolumeButtonHandler waits up to 1 s).
@MainActor
final class VolumeViewHost {
    static let shared = VolumeViewHost()

    /// The alpha VolumeKit gives its views: invisible to people, visible to MediaPlayer.
    static let alpha: CGFloat = 0.01
    /// How long after a view reaches a window it is treated as ready.
    static let readyDelay: TimeInterval = 0.15

    private var views: [Int: MPVolumeView] = [:]
    private var nextID = 0
    private var sceneObserver: NSObjectProtocol?

    private init() {
        // When another scene becomes active (iPad multitasking, a second window) or the app's window changes,
        // the views move to the now-active window: suppression only works from a window of the active scene.
        sceneObserver = NotificationCenter.default.addObserver(
            forName: UIScene.didActivateNotification, object: nil, queue: .main
        ) { _ in
            MainActor.assumeIsolated { VolumeViewHost.shared.moveToActiveWindow() }
        }
    }

    private func moveToActiveWindow() {
        guard let window = Self.activeWindow() else { return }
        for view in views.values where view.window !== window || view.isHidden {
            view.isHidden = false
            window.addSubview(view)
        }
    }

    /// Adds a view; `onReady` runs once it is in a window and usable. Returns an id for ``remove(_:)``.
    func install(onReady: @escaping @Sendable () -> Void) -> Int {
        nextID += 1
        let id = nextID
        let view = MPVolumeView(frame: CGRect(x: -2000, y: -2000, width: 1, height: 1))
        view.alpha = Self.alpha
        view.isUserInteractionEnabled = false
        view.accessibilityElementsHidden = true
        views[id] = view
        attach(id, attempt: 0, onReady: onReady)
        return id
    }

    /// Removes a view installed by ``install(onReady:)``.
    func remove(_ id: Int) {
        views.removeValue(forKey: id)?.removeFromSuperview()
    }

    /// Sets the volume through a ready view's slider.
    func setVolume(_ value: Float) {
        guard let slider = views.values.lazy.compactMap({ $0.window == nil ? nil : Self.slider(in: $0) }).first else { return }
        slider.setValue(value, animated: false)
        slider.sendActions(for: .valueChanged)
    }

    private func attach(_ id: Int, attempt: Int, onReady: @escaping @Sendable () -> Void) {
        guard let view = views[id] else { return }
        if let window = Self.activeWindow() {
            window.addSubview(view)
            DispatchQueue.main.asyncAfter(deadline: .now() + Self.readyDelay) { [weak self] in
                guard self?.views[id]?.window != nil else { return }
                onReady()
            }
        } else if attempt < 50 {
            // No foreground-active scene yet (launching, or returning from the background): try again.
            DispatchQueue.main.asyncAfter(deadline: .now() + 0.2) { [weak self] in
                self?.attach(id, attempt: attempt + 1, onReady: onReady)
            }
        }
    }

    /// The key window of the foreground-active `UIWindowScene` (every iOS 13+ app has scenes, declared or not),
    /// else its first window.
    static func activeWindow() -> UIWindow? {
        let scenes = UIApplication.shared.connectedScenes.compactMap { $0 as? UIWindowScene }
        guard let scene = scenes.first(where: { $0.activationState == .foregroundActive }) else { return nil }
        return scene.windows.first(where: \.isKeyWindow) ?? scene.windows.first(where: { !$0.isHidden })
    }

    private static func slider(in view: UIView) -> UISlider? {
        for subview in view.subviews {
            if let slider = subview as? UISlider { return slider }
            if let slider = slider(in: subview) { return slider }
        }
        return nil
    }
}
#endif
