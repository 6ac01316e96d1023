#if os(iOS)
import AVFoundation
import MediaPlayer
import os
import UIKit
import VolumeKitCore

/// The one place VolumeKit keeps its `MPVolumeView`s, shared by every feature (button capture, the HUD,
/// recovery): while anyone asks for one, an off-screen view sits in a window of **every** foreground scene
/// of the app, never hidden, with an alpha small but above `FLT_EPSILON`.
///
/// Why each rule:
/// - the system HUD is suppressed only while an `MPVolumeView`'s slider is "on screen":
///   `MPVolumeSlider._isOffScreen` counts a view as off screen when it has no window, or when it or any
///   ancestor is hidden or has an alpha below `FLT_EPSILON`; frame and clipping are not checked
///   (`shared/facts/volume-hud.md` §4; seed 000: "MPVolumeView不能是hidden的也不能alpha=0");
/// - suppression is per `slider.window.windowScene` (decompiled `MPVolumeSlider.m`, iOS 18.2;
///   `shared/facts/envelope.md`), so iPad Split View and Stage Manager need one view per scene;
/// - only `session.role == .windowApplication` scenes host (not external displays), in the scene's key window
///   when it can, never in VolumeKit's HUD window (lowered below the app while hidden) nor in the keyboard's
///   windows (they come and go with the keyboard);
/// - foreground-inactive scenes host too: a permission alert or Face ID leaves the scene inactive, and
///   capture must not wait for it;
/// - readiness fires whenever a view lands in a window, however late (a launch into the background, a scene
///   connected later); a request still waiting after ``diagnosticDelay`` is logged;
/// - setting the volume works through any initialised view's slider, even without a window (Signal-iOS sets
///   the volume through a windowless `MPVolumeView`; the decompiled `setValue:animated:` path has no window
///   check), so a disconnected scene or a replaced root window never leaves the user's volume at an anchor;
/// - but a set through a view that is not ready yet is lost, windowless or not: the host makes its one
///   windowless view early (as the host itself is made) and keeps it, and a set asked for within ``readyDelay``
///   of that view's making is held and carried out once the delay is over (the last value asked for wins),
///   so the first restore lands instead of only its retry;
/// - after a media-services reset the views are made anew (`shared/facts/envelope.md`).
@available(iOSApplicationExtension, unavailable)
@MainActor
final class VolumeViewHost {
    static let shared = VolumeViewHost()

    /// The alpha VolumeKit gives its views: invisible to people, visible to MediaPlayer.
    static let alpha: CGFloat = 0.01
    /// How long after a view reaches a window it is treated as ready: ``VolumeViewReadiness/hostDelay``, the
    /// timer the simulated device uses too (the true readiness is 0.05–1 s; sets that are lost meanwhile are
    /// retried by the step machine).
    static let readyDelay: TimeInterval = VolumeViewReadiness.hostDelay
    /// How long a request may wait for a window before it is logged.
    static let diagnosticDelay: TimeInterval = 10

    private struct Request {
        var onReady: (@Sendable () -> Void)?
        var since: TimeInterval
    }

    private struct Hosted {
        weak var scene: UIWindowScene?
        let view: MPVolumeView
    }

    private var requests: [Int: Request] = [:]
    private var hosted: [ObjectIdentifier: Hosted] = [:]
    private var windowless: MPVolumeView?
    /// When ``windowless`` was made (`systemUptime`): it is treated as ready ``readyDelay`` later.
    private var windowlessMadeAt: TimeInterval = 0
    /// The last value asked for through the windowless view before it was ready; set once it is.
    private var heldWindowlessValue: Float?
    private var nextID = 0
    private var observers: [NSObjectProtocol] = []
    private var isPolling = false
    private var readyPending = false
    private var loggedMissingWindow = false
    private let log = Logger(subsystem: "VolumeKit", category: "VolumeViewHost")

    private init() {
        let center = NotificationCenter.default
        let names: [Notification.Name] = [
            UIScene.didActivateNotification, UIScene.willEnterForegroundNotification, UIScene.willConnectNotification,
            UIScene.didDisconnectNotification, UIWindow.didBecomeKeyNotification, UIWindow.didBecomeVisibleNotification,
            UIWindow.didBecomeHiddenNotification,
        ]
        observers = names.map { name in
            center.addObserver(forName: name, object: nil, queue: .main) { _ in
                MainActor.assumeIsolated { VolumeViewHost.shared.refresh() }
            }
        }
        observers.append(
            center.addObserver(forName: AVAudioSession.mediaServicesWereResetNotification, object: nil, queue: .main) {
                _ in
                MainActor.assumeIsolated { VolumeViewHost.shared.remakeViews() }
            })
        // One windowless view from the start, so it is ready by the time a restore without a window needs it.
        _ = windowlessView()
    }

    // MARK: - Requests

    /// Asks for the volume view; `onReady` runs once one is in a window and usable. Returns an id for ``remove(_:)``.
    func install(onReady: @escaping @Sendable () -> Void) -> Int {
        nextID += 1
        requests[nextID] = Request(onReady: onReady, since: ProcessInfo.processInfo.systemUptime)
        refresh()
        return nextID
    }

    /// Ends a request; the views go when nobody needs them any more.
    func remove(_ id: Int) {
        requests[id] = nil
        if requests.isEmpty {
            for entry in hosted.values { entry.view.removeFromSuperview() }
            hosted = [:]
        }
    }

    /// Whether the volume view in a window still has its slider: `MPVolumeView`'s `layoutSubviews` takes it out on
    /// a route without volume control (AirPlay, HDMI: "No volume available"; openradar 42881405, decompiled
    /// `MPVolumeView`, `shared/facts/volume-hud.md`). `true` while no view is in a window (nothing to tell).
    var hasVolumeControl: Bool {
        guard let view = hosted.values.map(\.view).first(where: { $0.window != nil }) else { return true }
        view.layoutIfNeeded()
        return Self.slider(in: view) != nil
    }

    /// Sets the volume through a view's slider: one in a window if any, else any initialised view (windowless).
    /// A set through the windowless view before it is ready is held until it is (the latest value wins).
    func setVolume(_ value: Float) {
        let views = hosted.values.map(\.view)
        if let view = views.first(where: { $0.window != nil }) ?? views.first {
            heldWindowlessValue = nil
            set(value, through: view)
            return
        }
        let view = windowlessView()
        let age = ProcessInfo.processInfo.systemUptime - windowlessMadeAt
        guard age < Self.readyDelay else {
            heldWindowlessValue = nil
            set(value, through: view)
            return
        }
        let alreadyHeld = heldWindowlessValue != nil
        heldWindowlessValue = value
        guard !alreadyHeld else { return }
        DispatchQueue.main.asyncAfter(deadline: .now() + (Self.readyDelay - age)) {
            MainActor.assumeIsolated { VolumeViewHost.shared.setHeldWindowlessValue() }
        }
    }

    /// The windowless view is ready now: the value held for it goes out (through a view in a window if one
    /// appeared meanwhile).
    private func setHeldWindowlessValue() {
        guard let value = heldWindowlessValue else { return }
        heldWindowlessValue = nil
        setVolume(value)
    }

    private func set(_ value: Float, through view: MPVolumeView) {
        guard let slider = Self.slider(in: view) else {
            log.error("No slider in the volume view: the volume could not be set")
            return
        }
        slider.setValue(value, animated: false)
        slider.sendActions(for: .valueChanged)
    }

    private func windowlessView() -> MPVolumeView {
        if let windowless { return windowless }
        let view = Self.makeView()
        windowless = view
        windowlessMadeAt = ProcessInfo.processInfo.systemUptime
        return view
    }

    // MARK: - Placement

    /// Puts a view in every foreground scene that lacks one (or whose window stopped being a good host),
    /// drops the views of scenes that are gone, and fires readiness once a view is in a window.
    private func refresh() {
        guard !requests.isEmpty else { return }
        for (key, entry) in hosted where entry.scene == nil || entry.scene?.activationState == .unattached {
            entry.view.removeFromSuperview()
            hosted[key] = nil
        }
        for scene in Self.hostScenes() {
            let key = ObjectIdentifier(scene)
            if let entry = hosted[key], let window = entry.view.window, Self.isHostable(window),
                window.windowScene === scene
            {
                continue
            }
            guard let window = Self.hostWindow(in: scene) else { continue }
            let view = hosted[key]?.view ?? Self.makeView()
            view.isHidden = false
            window.addSubview(view)
            hosted[key] = Hosted(scene: scene, view: view)
        }
        if hosted.values.contains(where: { $0.view.window != nil }) {
            scheduleReady()
        } else {
            poll()
        }
    }

    private func scheduleReady() {
        guard !readyPending, requests.values.contains(where: { $0.onReady != nil }) else { return }
        readyPending = true
        DispatchQueue.main.asyncAfter(deadline: .now() + Self.readyDelay) {
            MainActor.assumeIsolated { VolumeViewHost.shared.fireReady() }
        }
    }

    private func fireReady() {
        readyPending = false
        guard hosted.values.contains(where: { $0.view.window != nil }) else {
            refresh()
            return
        }
        loggedMissingWindow = false
        var ready: [@Sendable () -> Void] = []
        for (id, request) in requests {
            if let onReady = request.onReady {
                ready.append(onReady)
                requests[id]?.onReady = nil
            }
        }
        ready.forEach { $0() }
    }

    /// No window yet (launching, returning from the background): look again shortly. Scene and window
    /// notifications also call ``refresh()``, so a late window is found however late it comes.
    private func poll() {
        let now = ProcessInfo.processInfo.systemUptime
        let waiting = requests.values.filter { $0.onReady != nil }
        guard !isPolling, !waiting.isEmpty else { return }
        if let oldest = waiting.map(\.since).min(), now - oldest >= Self.diagnosticDelay {
            guard !loggedMissingWindow else { return }
            loggedMissingWindow = true
            log.error(
                "No window of the app's scenes could host VolumeKit's volume view after \(Self.diagnosticDelay, privacy: .public) s: capture and HUD suppression start once one appears"
            )
            return
        }
        isPolling = true
        DispatchQueue.main.asyncAfter(deadline: .now() + 0.25) {
            MainActor.assumeIsolated {
                VolumeViewHost.shared.isPolling = false
                VolumeViewHost.shared.refresh()
            }
        }
    }

    /// After a media-services reset the old views may be dead: replace each in its window.
    private func remakeViews() {
        windowless = nil
        _ = windowlessView()
        for (key, entry) in hosted {
            let window = entry.view.window
            entry.view.removeFromSuperview()
            let view = Self.makeView()
            window?.addSubview(view)
            hosted[key] = Hosted(scene: entry.scene, view: view)
        }
        refresh()
    }

    // MARK: - Rules

    /// The app's own window scenes in the foreground (active first).
    static func hostScenes() -> [UIWindowScene] {
        let scenes = UIApplication.shared.connectedScenes.compactMap { $0 as? UIWindowScene }
            .filter { $0.session.role == .windowApplication }
        return scenes.filter { $0.activationState == .foregroundActive }
            + scenes.filter { $0.activationState == .foregroundInactive }
    }

    /// The scene's key window if it can host, else its first window that can.
    static func hostWindow(in scene: UIWindowScene) -> UIWindow? {
        let candidates = scene.windows.filter(isHostable)
        return candidates.first(where: \.isKeyWindow) ?? candidates.first
    }

    /// Not hidden, not VolumeKit's HUD window, not one of the keyboard's windows.
    static func isHostable(_ window: UIWindow) -> Bool {
        guard !window.isHidden, !(window is VolumeHUDWindow) else { return false }
        let name = NSStringFromClass(type(of: window))
        return !keyboardWindowClassNames.contains { name.hasPrefix($0) }
    }

    /// The windows UIKit makes for the keyboard and text effects (`UIRemoteKeyboardWindow`,
    /// `UITextEffectsWindow`): they appear and vanish with the keyboard.
    static let keyboardWindowClassNames = ["UIRemoteKeyboardWindow", "UITextEffectsWindow"]

    private static func makeView() -> MPVolumeView {
        let view = MPVolumeView(frame: CGRect(x: -2000, y: -2000, width: 1, height: 1))
        view.alpha = alpha
        view.isUserInteractionEnabled = false
        view.accessibilityElementsHidden = true
        return view
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
