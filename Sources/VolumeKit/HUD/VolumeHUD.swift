#if os(iOS)
import Combine
@preconcurrency import UIKit
import VolumeKitCore

/// Replaces the system volume HUD with VolumeKit's own, drawn in an overlay window above the app.
///
/// A thin shell around ``/VolumeKitCore/VolumeHUDEngine`` (all rules live there and in
/// ``/VolumeKitCore/VolumeHUDModel``, tested on Linux against the simulated device): the engine follows the user's
/// volume through the clients every VolumeKit feature uses, and this class draws what it reports, animates, and speaks
/// its announcements to VoiceOver.
///
/// ```swift
/// let hud = VolumeHUD(style: .island)
/// hud.start()      // e.g. in scene(_:willConnectTo:options:) or viewDidAppear
/// ```
///
/// - The level is the user's. With ``VolumeButtons`` capturing at the same time, the HUD shows the user's own
///   level, never the anchor capture holds the system volume at — automatically (``/VolumeKitCore/VolumeHoldBoard``).
/// - The window is attached to the app's foreground `UIWindowScene` (`session.role == .windowApplication`),
///   never becomes key, passes every touch through and sits above the app only while the HUD shows
///   (see `VolumeHUDWindow`; `shared/facts/volume-hud.md` §5). It follows rotation and moves to the scene
///   that becomes active.
/// - The system HUD is hidden through VolumeKit's one shared volume view, in every foreground scene (§4).
/// - It reacts only while the app is active (seed 002 "问题二"): resigning active hides the HUD at once.
/// - Reduce Motion turns slides into fades; Increase Contrast switches to the style's high-contrast colours;
///   VoiceOver hears "Volume 50 percent" on each change, in the app's language and spoken in it
///   (``/VolumeKitCore/VolumeHUDOptions/strings``: the user's preferred languages the app is localized in, or
///   ``/VolumeKitCore/VolumeHUDOptions/language`` when set).
/// - iOS hides its own HUD, and `outputVolume` follows presses, only while the app's audio session is active
///   (seed 002 §1). With default options, in an app that has no session of its own, VolumeKit activates one that
///   mixes with others (`.playback` + `.mixWithOthers`: other apps' audio keeps playing) and gives the app's
///   default back on ``stop()``. An app that set its own category keeps it untouched and activates it itself
///   (or passes ``/VolumeKitCore/VolumeHUDSessionActivation/always``); the HUD then reports
///   ``/VolumeKitCore/VolumeHUDDiagnostic/sessionNotLive(_:)``. Returning to the foreground never re-activates a
///   non-mixing session over audio the user started meanwhile (``/VolumeKitCore/SessionReactivation``).
/// - iOS reports no change for a press at 0 or 1; push button events with ``handle(_:)`` (e.g. from
///   ``VolumeButtons`` in passive mode, or with a remote level) to get the bump feedback there.
@available(
    iOSApplicationExtension, unavailable, message: "needs the app (UIApplication): see the App extensions article"
)
@MainActor
public final class VolumeHUD: ObservableObject {
    /// The look. Changing it applies at once (hide delay from the next change).
    public var style: VolumeHUDStyle {
        didSet {
            engine.hideDelay = style.autoHideDelay
            hudView?.style = style
            layoutHUD()
        }
    }
    /// What the HUD shows now.
    @Published public private(set) var display: VolumeHUDDisplay
    /// Whether ``start()`` was called without a matching ``stop()``.
    public var isRunning: Bool { engine.isRunning }
    /// Called with problems that did not stop the HUD (the session could not be activated, no window for the
    /// volume view in time).
    public var onDiagnostic: ((VolumeHUDDiagnostic) -> Void)?

    /// The options in force.
    public var options: VolumeHUDOptions { engine.options }

    /// Whether the system HUD stays hidden now: the volume view is ready and VolumeKit knows the app's audio
    /// session is live (``/VolumeKitCore/VolumeHUDEngine/isSystemHUDSuppressed``). When it is not,
    /// ``onDiagnostic`` was told why.
    public var isSystemHUDSuppressed: Bool { engine.isSystemHUDSuppressed }

    private let engine: VolumeHUDEngine
    private let strings: VolumeKitStrings
    private let hub = HUDHub()
    private var window: VolumeHUDWindow?
    private var rootController: VolumeHUDRootViewController?
    private var hudView: VolumeHUDUIView?
    /// The notification observers of a running HUD; a `let` of a `Sendable` type so `deinit` can remove them.
    private let observers = NotificationObservers()
    private var continuations: [UUID: AsyncStream<VolumeHUDDisplay>.Continuation] = [:]
    private var lastLayout: VolumeHUDLayout?

    /// Creates a stopped HUD.
    /// - Parameters:
    ///   - style: the look (``/VolumeKitCore/VolumeHUDStyle/classic`` by default).
    ///   - options: the level source, suppression, session activation and language (the hide delay is the style's).
    ///   - clients: the system to run against; the live one by default (pass `SimulatedDevice.clients` to drive
    ///     the HUD from your app's tests).
    public init(
        style: VolumeHUDStyle = .classic, options: VolumeHUDOptions = VolumeHUDOptions(),
        clients: VolumeKitClients? = nil
    ) {
        self.style = style
        var options = options
        options.hideDelay = style.autoHideDelay
        strings = options.strings  // the engine's announcements are in the same words
        let hub = self.hub
        engine = VolumeHUDEngine(
            options: options,
            clients: clients ?? .live(),
            onDisplay: { display, _ in onMain { hub.display(display) } },
            onAnnouncement: { text in onMain { hub.announce(text) } },
            onDiagnostic: { diagnostic in onMain { hub.diagnose(diagnostic) } }
        )
        display = engine.display
        hub.onDisplay = { [weak self] display in self?.apply(display) }
        let language = strings.language.rawValue
        hub.onAnnounce = { text in
            guard UIAccessibility.isVoiceOverRunning else { return }
            // Spoken in the words' own language: VoiceOver would read "음량 50%" with the device's voice otherwise.
            let speech = NSAttributedString(
                string: text,
                attributes: [.accessibilitySpeechQueueAnnouncement: false, .accessibilitySpeechLanguage: language])
            UIAccessibility.post(notification: .announcement, argument: speech)
        }
        hub.onDiagnostic = { [weak self] diagnostic in self?.onDiagnostic?(diagnostic) }
    }

    /// Creates a stopped HUD the way earlier versions did.
    /// - Parameters:
    ///   - style: the look.
    ///   - observesSystemVolume: follow the user's volume; `false` drives the HUD only with ``show(level:)``
    ///     (``/VolumeKitCore/VolumeHUDLevelSource/external``, e.g. for a remote speaker's level).
    ///   - suppressesSystemHUD: hide the system volume HUD while running.
    ///   - activatesAudioSession: join VolumeKit's hold on the audio session whatever the app's category
    ///     (``/VolumeKitCore/VolumeHUDSessionActivation/always``); `false`, the default, is
    ///     ``/VolumeKitCore/VolumeHUDSessionActivation/automatic`` (a mixing session when the app has none).
    public convenience init(
        style: VolumeHUDStyle = .classic,
        observesSystemVolume: Bool,
        suppressesSystemHUD: Bool = true,
        activatesAudioSession: Bool = false
    ) {
        self.init(
            style: style,
            options: VolumeHUDOptions(
                levelSource: observesSystemVolume ? .systemVolume : .external,
                suppressesSystemHUD: suppressesSystemHUD,
                activatesAudioSession: activatesAudioSession
            ))
    }

    /// Stopping is part of letting go: a dropped HUD gives the system HUD and the session back, and its
    /// notification observers are removed.
    deinit {
        engine.stop()
        observers.removeAll()
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

    /// Creates the overlay window in the app's foreground scene, starts hiding the system HUD and following
    /// the volume.
    public func start() {
        guard !isRunning else { return }
        attachWindow(to: VolumeHUD.hostScene())
        engine.start()
        publish(engine.display)
        observe(UIScene.didActivateNotification) { hud, scene in
            if let scene = scene as? UIWindowScene, scene.session.role == .windowApplication { hud.move(to: scene) }
        }
        observe(UIApplication.didBecomeActiveNotification) { hud, _ in
            if let scene = VolumeHUD.hostScene() { hud.move(to: scene) }
        }
        observe(UIAccessibility.darkerSystemColorsStatusDidChangeNotification) { hud, _ in
            hud.hudView?.setNeedsDisplay()
        }
    }

    /// Removes the window (the system HUD comes back) and stops following.
    public func stop() {
        guard isRunning else { return }
        engine.stop()
        observers.removeAll()
        window?.isHidden = true
        window = nil
        rootController = nil
        hudView = nil
    }

    /// Shows the HUD at `level` (0…1) from any source — your own slider, a remote speaker — even if it equals
    /// the level shown.
    public func show(level: Float) {
        engine.show(level: level)
    }

    /// Feeds a hardware button event: a press at 0 or 1 shows the bump state. Its instant is replaced by
    /// the clients' clock, so events from any clock work.
    public func handle(_ event: VolumeButtonEvent) {
        engine.handle(event)
    }

    /// Hides the HUD now.
    public func dismiss() {
        engine.dismiss()
    }

    // MARK: - Carrying out what the engine reports

    private func apply(_ next: VolumeHUDDisplay) {
        render(next)
        publish(next)
    }

    private func publish(_ next: VolumeHUDDisplay) {
        display = next
        for continuation in continuations.values { continuation.yield(next) }
    }

    private func observe(_ name: Notification.Name, _ handler: @escaping @MainActor (VolumeHUD, Any?) -> Void) {
        let token = NotificationCenter.default.addObserver(forName: name, object: nil, queue: .main) {
            [weak self] note in
            let object = note.object
            nonisolated(unsafe) let unsafeObject = object
            MainActor.assumeIsolated {
                guard let self else { return }
                handler(self, unsafeObject)
            }
        }
        observers.add(token)
    }

    // MARK: - Window

    /// The app's foreground window scene (`session.role == .windowApplication`, active first), else `nil`.
    private static func hostScene() -> UIWindowScene? {
        VolumeViewHost.hostScenes().first
    }

    private func attachWindow(to scene: UIWindowScene?) {
        let hudView = VolumeHUDUIView(style: style)
        hudView.strings = strings
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
        // Shown without becoming key (never makeKeyAndVisible): `shared/facts/volume-hud.md` §5.
        window.isHidden = false
        self.window = window
        self.rootController = controller
        self.hudView = hudView
        layoutHUD()
    }

    /// Follows the active scene (iPad multitasking). Suppression needs no move: the shared volume view host
    /// keeps a view in every foreground scene (facts §4).
    private func move(to scene: UIWindowScene) {
        guard isRunning, let window, window.windowScene !== scene else { return }
        window.windowScene = scene
        window.frame = scene.coordinateSpace.bounds
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
        let slide =
            lastLayout.map { CGAffineTransform(translationX: $0.slideOffset.x, y: $0.slideOffset.y) } ?? .identity
        let newBump = next.bump != nil && next.bump != display.bump
        hudView.level = next.level
        hudView.bump = next.bump

        if next.isVisible && !wasVisible {
            window.windowLevel = VolumeHUD.visibleLevel
            layoutHUD()
            hudView.transform = animation == .slide ? slide : .identity
            let appear = {
                hudView.alpha = 1; hudView.transform = .identity
            }
            if animation == .none {
                appear()
            } else {
                UIView.animate(
                    withDuration: animation.duration, delay: 0, options: [.beginFromCurrentState, .curveEaseOut],
                    animations: appear)
            }
        } else if !next.isVisible && wasVisible {
            let disappear = {
                hudView.alpha = 0; if animation == .slide { hudView.transform = slide }
            }
            let lower = { [weak self] (_: Bool) in
                guard let self, !self.display.isVisible else { return }
                self.window?.windowLevel = VolumeHUD.hiddenLevel
            }
            if animation == .none {
                disappear(); lower(true)
            } else {
                UIView.animate(
                    withDuration: animation.duration, delay: 0, options: [.beginFromCurrentState, .curveEaseIn],
                    animations: disappear, completion: lower)
            }
        }
        if newBump && next.isVisible && !UIAccessibility.isReduceMotionEnabled {
            // A short nudge toward the rail: the press was felt even though the level cannot move.
            let axis = lastLayout?.axis ?? .horizontal
            let push: CGFloat = next.bump == .maximum ? 4 : -4
            let nudge =
                axis == .horizontal
                ? CGAffineTransform(translationX: push, y: 0) : CGAffineTransform(translationX: 0, y: -push)
            UIView.animate(
                withDuration: 0.08, delay: 0, options: [.beginFromCurrentState, .curveEaseOut],
                animations: {
                    hudView.transform = nudge
                },
                completion: { _ in
                    UIView.animate(
                        withDuration: 0.18, delay: 0, usingSpringWithDamping: 0.5, initialSpringVelocity: 0,
                        options: [.beginFromCurrentState],
                        animations: {
                            hudView.transform = .identity
                        })
                })
        }
    }

}

/// Notification-center observer tokens that can be removed from any thread (`NotificationCenter` is
/// thread-safe), so a HUD's nonisolated `deinit` can remove them.
private final class NotificationObservers: Sendable {
    private let tokens = Locked<[NSObjectProtocol]>([])

    func add(_ token: NSObjectProtocol) {
        tokens.withLock { $0.append(token) }
    }

    func removeAll() {
        let removed = tokens.withLock { tokens in
            defer { tokens = [] }
            return tokens
        }
        removed.forEach(NotificationCenter.default.removeObserver)
    }
}

/// Forwards the engine's reports to the shell on the main actor.
@MainActor
private final class HUDHub: Sendable {
    var onDisplay: ((VolumeHUDDisplay) -> Void)?
    var onAnnounce: ((String) -> Void)?
    var onDiagnostic: ((VolumeHUDDiagnostic) -> Void)?
    func display(_ display: VolumeHUDDisplay) { onDisplay?(display) }
    func announce(_ text: String) { onAnnounce?(text) }
    func diagnose(_ diagnostic: VolumeHUDDiagnostic) { onDiagnostic?(diagnostic) }
}
#endif
