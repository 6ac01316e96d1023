#if os(iOS)
import AVFoundation
import Combine
import MediaPlayer
@preconcurrency import UIKit
import VolumeKitCore

/// Replaces the system volume HUD with VolumeKit's own, drawn in an overlay window above the app.
///
/// A thin shell around ``VolumeHUDModel`` (all timing and state rules live there and are tested on Linux):
/// it feeds the model the system volume (key-value observation of `AVAudioSession.outputVolume`), the
/// levels and button events you push (``show(level:)``, ``handle(_:)``) and the app's active state, and
/// carries out its actions: draw, animate, announce to VoiceOver, re-arm the hide timer.
///
/// ```swift
/// let hud = VolumeHUD(style: .island)
/// hud.start()      // e.g. in scene(_:willConnectTo:options:) or viewDidAppear
/// ```
///
/// - The window is attached to the foreground-active `UIWindowScene`, never becomes key, passes every touch
///   through and sits above the app only while the HUD shows (see `VolumeHUDWindow`;
///   `shared/facts/volume-hud.md` §5). It follows rotation and moves to the scene that becomes active.
/// - While running, an `MPVolumeView` in that window hides the system HUD for that scene (§4).
/// - It reacts only while the app is active (seed 002 "问题二"): resigning active hides the HUD at once.
/// - Reduce Motion turns slides into fades; Increase Contrast switches to the style's high-contrast colours;
///   VoiceOver hears "Volume 50 percent" on each change.
/// - `outputVolume` only changes while the app's audio session is active (seed 002 §1). VolumeKit does not
///   touch your session unless you pass `activatesAudioSession: true`: activating a non-mixing session
///   stops other apps' audio (VolumeBar #1), so choose your category first.
/// - iOS reports no change for a press at 0 or 1; push button events with ``handle(_:)`` (e.g. from
///   VolumeKit's button detection) to get the bump feedback there.
@MainActor
public final class VolumeHUD: ObservableObject {
    /// The look. Changing it applies at once (hide delay from the next change).
    public var style: VolumeHUDStyle {
        didSet {
            model.hideDelay = style.autoHideDelay
            hudView?.style = style
            layoutHUD()
        }
    }
    /// What the HUD shows now.
    @Published public private(set) var display: VolumeHUDDisplay
    /// Whether ``start()`` was called without a matching ``stop()``.
    public private(set) var isRunning = false

    private let observesSystemVolume: Bool
    private let suppressesSystemHUD: Bool
    private let activatesAudioSession: Bool
    private var model: VolumeHUDModel
    private var window: VolumeHUDWindow?
    private var rootController: VolumeHUDRootViewController?
    private var hudView: VolumeHUDUIView?
    private var volumeView: MPVolumeView?
    private var volumeObservation: NSKeyValueObservation?
    private var notificationTokens: [NSObjectProtocol] = []
    private var tickTask: Task<Void, Never>?
    private var continuations: [UUID: AsyncStream<VolumeHUDDisplay>.Continuation] = [:]
    private var lastLayout: VolumeHUDLayout?

    /// Creates a stopped HUD.
    /// - Parameters:
    ///   - style: the look (``VolumeHUDStyle/classic`` by default).
    ///   - observesSystemVolume: follow `AVAudioSession.outputVolume`; pass `false` to drive the HUD only
    ///     with ``show(level:)`` (e.g. for a remote speaker's level).
    ///   - suppressesSystemHUD: hide the system volume HUD while running.
    ///   - activatesAudioSession: call `AVAudioSession.setActive(true)` on start and on each return to the
    ///     foreground (seed 002 §1). Off by default: your session, your category.
    public init(
        style: VolumeHUDStyle = .classic,
        observesSystemVolume: Bool = true,
        suppressesSystemHUD: Bool = true,
        activatesAudioSession: Bool = false
    ) {
        self.style = style
        self.observesSystemVolume = observesSystemVolume
        self.suppressesSystemHUD = suppressesSystemHUD
        self.activatesAudioSession = activatesAudioSession
        model = VolumeHUDModel(hideDelay: style.autoHideDelay)
        display = model.display
    }

    /// Every display change, as an `AsyncStream` (a new stream per call; it ends when the task iterating it
    /// is cancelled).
    public var displays: AsyncStream<VolumeHUDDisplay> {
        AsyncStream { continuation in
            let id = UUID()
            continuations[id] = continuation
            continuation.onTermination = { [weak self] _ in
                Task { @MainActor in self?.continuations[id] = nil }
            }
        }
    }

    /// Creates the overlay window in the active scene, starts hiding the system HUD and observing the volume.
    public func start() {
        guard !isRunning else { return }
        isRunning = true
        if activatesAudioSession { try? AVAudioSession.sharedInstance().setActive(true) }
        let session = AVAudioSession.sharedInstance()
        model = VolumeHUDModel(
            level: observesSystemVolume ? session.outputVolume : nil,
            hideDelay: style.autoHideDelay,
            isAppActive: UIApplication.shared.applicationState == .active
        )
        publish(model.display)
        attachWindow(to: VolumeHUD.activeWindowScene())
        if observesSystemVolume {
            volumeObservation = session.observe(\.outputVolume, options: [.new]) { [weak self] _, change in
                guard let level = change.newValue else { return }
                Task { @MainActor in self?.systemVolumeChanged(level) }
            }
        }
        observe(UIApplication.didBecomeActiveNotification) { hud, _ in hud.appBecameActive() }
        observe(UIApplication.willResignActiveNotification) { hud, _ in hud.apply(hud.model.appResignedActive(at: VolumeHUD.now())) }
        observe(UIApplication.willEnterForegroundNotification) { hud, _ in
            if hud.activatesAudioSession { try? AVAudioSession.sharedInstance().setActive(true) }
        }
        observe(UIScene.didActivateNotification) { hud, scene in
            if let scene = scene as? UIWindowScene { hud.move(to: scene) }
        }
        observe(UIAccessibility.darkerSystemColorsStatusDidChangeNotification) { hud, _ in hud.hudView?.setNeedsDisplay() }
    }

    /// Removes the window (the system HUD comes back) and stops observing.
    public func stop() {
        guard isRunning else { return }
        isRunning = false
        volumeObservation?.invalidate()
        volumeObservation = nil
        notificationTokens.forEach(NotificationCenter.default.removeObserver)
        notificationTokens = []
        tickTask?.cancel()
        tickTask = nil
        apply(model.dismiss(at: VolumeHUD.now()))
        volumeView?.removeFromSuperview()
        volumeView = nil
        window?.isHidden = true
        window = nil
        rootController = nil
        hudView = nil
    }

    /// Shows the HUD at `level` (0…1) from any source — your own slider, a remote speaker — even if it equals
    /// the level shown.
    public func show(level: Float) {
        apply(model.showLevel(level, at: VolumeHUD.now()))
    }

    /// Feeds a hardware button event: a press at 0 or 1 shows the bump state. Its instant is replaced by
    /// this shell's clock, so events from any clock work.
    public func handle(_ event: VolumeButtonEvent) {
        guard event.phase != .released else { return }
        apply(model.buttonPressed(event.button, at: VolumeHUD.now()))
    }

    /// Hides the HUD now.
    public func dismiss() {
        apply(model.dismiss(at: VolumeHUD.now()))
    }

    // MARK: - Inputs

    private func systemVolumeChanged(_ level: Float) {
        apply(model.levelChanged(level, at: VolumeHUD.now()))
    }

    private func appBecameActive() {
        let level: Float? = observesSystemVolume ? AVAudioSession.sharedInstance().outputVolume : nil
        apply(model.appBecameActive(level: level, at: VolumeHUD.now()))
        if let scene = VolumeHUD.activeWindowScene() { move(to: scene) }
    }

    private func observe(_ name: Notification.Name, _ handler: @escaping @MainActor (VolumeHUD, Any?) -> Void) {
        let token = NotificationCenter.default.addObserver(forName: name, object: nil, queue: .main) { [weak self] note in
            let object = note.object
            nonisolated(unsafe) let unsafeObject = object
            MainActor.assumeIsolated {
                guard let self else { return }
                handler(self, unsafeObject)
            }
        }
        notificationTokens.append(token)
    }

    // MARK: - Actions

    private func apply(_ actions: [VolumeHUDAction]) {
        for action in actions {
            switch action {
            case .display(let next):
                render(next)
                publish(next)
            case .announce(let text):
                guard UIAccessibility.isVoiceOverRunning else { continue }
                let speech = NSAttributedString(string: text, attributes: [.accessibilitySpeechQueueAnnouncement: false])
                UIAccessibility.post(notification: .announcement, argument: speech)
            case .scheduleTick(let due):
                tickTask?.cancel()
                let delay = max(0, due - VolumeHUD.now())
                tickTask = Task { @MainActor [weak self] in
                    try? await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
                    guard !Task.isCancelled, let self else { return }
                    self.apply(self.model.tick(at: VolumeHUD.now()))
                }
            case .cancelTick:
                tickTask?.cancel()
                tickTask = nil
            }
        }
    }

    private func publish(_ next: VolumeHUDDisplay) {
        display = next
        for continuation in continuations.values { continuation.yield(next) }
    }

    // MARK: - Window

    /// The foreground-active window scene, else a foreground-inactive one, else `nil` (non-scene app).
    private static func activeWindowScene() -> UIWindowScene? {
        let scenes = UIApplication.shared.connectedScenes.compactMap { $0 as? UIWindowScene }
        return scenes.first { $0.activationState == .foregroundActive }
            ?? scenes.first { $0.activationState == .foregroundInactive }
    }

    private func attachWindow(to scene: UIWindowScene?) {
        let hudView = VolumeHUDUIView(style: style)
        let controller = VolumeHUDRootViewController(hudView: hudView)
        controller.onLayout = { [weak self] in self?.layoutHUD() }
        let window: VolumeHUDWindow
        if let scene {
            window = VolumeHUDWindow(windowScene: scene)
        } else {
            window = VolumeHUDWindow(frame: UIScreen.main.bounds)
        }
        window.configure()
        window.windowLevel = VolumeHUD.hiddenLevel
        window.rootViewController = controller
        if suppressesSystemHUD {
            let volumeView = VolumeHUDSuppressor.makeVolumeView()
            controller.view.addSubview(volumeView)
            self.volumeView = volumeView
        }
        // Shown without becoming key (never makeKeyAndVisible): `shared/facts/volume-hud.md` §5.
        window.isHidden = false
        self.window = window
        self.rootController = controller
        self.hudView = hudView
        layoutHUD()
    }

    /// Follows the active scene (iPad multitasking): re-attach the window and re-add the volume view so that
    /// MediaPlayer re-registers it for the new scene (suppression is per scene, facts §4).
    private func move(to scene: UIWindowScene) {
        guard isRunning, let window, window.windowScene !== scene else { return }
        window.windowScene = scene
        window.frame = scene.coordinateSpace.bounds
        if let volumeView, let root = rootController?.view {
            volumeView.removeFromSuperview()
            root.addSubview(volumeView)
        }
        layoutHUD()
    }

    /// Below the app's windows while hidden, so the app keeps deciding status bar and rotation; above
    /// everything the app shows (alerts included) while visible.
    private static let hiddenLevel = UIWindow.Level(rawValue: UIWindow.Level.normal.rawValue - 1)
    private static let visibleLevel = UIWindow.Level(rawValue: UIWindow.Level.alert.rawValue + 1)

    private func currentScreen() -> VolumeHUDScreen? {
        guard let root = rootController?.view, root.bounds.width > 0 else { return nil }
        let orientation: VolumeHUDOrientation
        switch window?.windowScene?.interfaceOrientation {
        case .landscapeLeft?: orientation = .landscapeLeft
        case .landscapeRight?: orientation = .landscapeRight
        default: orientation = root.bounds.width > root.bounds.height ? .landscapeLeft : .portrait
        }
        let insets = root.safeAreaInsets
        let safe = VolumeHUDInsets(top: insets.top, left: insets.left, bottom: insets.bottom, right: insets.right)
        let isPad = root.traitCollection.userInterfaceIdiom == .pad
        return VolumeHUDScreen(
            size: root.bounds.size,
            safeArea: safe,
            orientation: orientation,
            cutout: VolumeHUDCutout.inferred(from: safe, orientation: orientation, isPad: isPad),
            isRightToLeft: root.effectiveUserInterfaceLayoutDirection == .rightToLeft
        )
    }

    private func layoutHUD() {
        guard let hudView, let screen = currentScreen() else { return }
        let layout = VolumeHUDLayout(style: style, screen: screen)
        lastLayout = layout
        hudView.axis = layout.axis
        hudView.bounds = CGRect(origin: .zero, size: layout.frame.size)
        hudView.center = CGPoint(x: layout.frame.midX, y: layout.frame.midY)
    }

    private func render(_ next: VolumeHUDDisplay) {
        guard let hudView, let window else { return }
        let wasVisible = display.isVisible
        let animation = style.animation.resolved(reduceMotion: UIAccessibility.isReduceMotionEnabled)
        let slide = lastLayout.map { CGAffineTransform(translationX: $0.slideOffset.x, y: $0.slideOffset.y) } ?? .identity
        let newBump = next.bump != nil && next.bump != display.bump
        hudView.level = next.level
        hudView.bump = next.bump

        if next.isVisible && !wasVisible {
            window.windowLevel = VolumeHUD.visibleLevel
            layoutHUD()
            hudView.transform = animation == .slide ? slide : .identity
            let appear = { hudView.alpha = 1; hudView.transform = .identity }
            if animation == .none { appear() } else {
                UIView.animate(withDuration: animation.duration, delay: 0, options: [.beginFromCurrentState, .curveEaseOut], animations: appear)
            }
        } else if !next.isVisible && wasVisible {
            let disappear = { hudView.alpha = 0; if animation == .slide { hudView.transform = slide } }
            let lower = { [weak self] (_: Bool) in
                guard let self, !self.display.isVisible else { return }
                self.window?.windowLevel = VolumeHUD.hiddenLevel
            }
            if animation == .none { disappear(); lower(true) } else {
                UIView.animate(withDuration: animation.duration, delay: 0, options: [.beginFromCurrentState, .curveEaseIn], animations: disappear, completion: lower)
            }
        }
        if newBump && next.isVisible && !UIAccessibility.isReduceMotionEnabled {
            // A short nudge toward the rail: the press was felt even though the level cannot move.
            let axis = lastLayout?.axis ?? .horizontal
            let push: CGFloat = next.bump == .maximum ? 4 : -4
            let nudge = axis == .horizontal ? CGAffineTransform(translationX: push, y: 0) : CGAffineTransform(translationX: 0, y: -push)
            UIView.animate(withDuration: 0.08, delay: 0, options: [.beginFromCurrentState, .curveEaseOut], animations: {
                hudView.transform = nudge
            }, completion: { _ in
                UIView.animate(withDuration: 0.18, delay: 0, usingSpringWithDamping: 0.5, initialSpringVelocity: 0, options: [.beginFromCurrentState], animations: {
                    hudView.transform = .identity
                })
            })
        }
    }

    /// The monotonic clock the model runs on.
    private static func now() -> Instant { ProcessInfo.processInfo.systemUptime }
}
#endif
