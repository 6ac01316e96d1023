import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// HUD suppression: when the system volume HUD stays hidden, and the app's `MPVolumeView`s.
extension SimulatedDevice {
    /// `MPVolumeSlider._isOffScreen` treats a view as off screen when it or an ancestor is hidden or has an
    /// alpha below `FLT_EPSILON` (`shared/facts/volume-hud.md` §4).
    public static let visibleAlphaThreshold: Float = 1.1920929e-7

    /// Whether the app is active with a ready volume view in a window of the active scene, with no hidden or
    /// near-zero-alpha ancestor (its frame does not matter; `shared/facts/volume-hud.md` §4).
    var hasVisibleReadyView: Bool {
        guard let app, app.state == .active else { return false }
        return app.volumeViews.values.contains { $0.ready && $0.visible }
    }

    /// Whether the system HUD stays hidden on a press: a visible ready view (``hasVisibleReadyView``) while
    /// the app's session is active and not taken over by another component (SubtleVolume's README; seed 000;
    /// SubtleVolume #25 for the take-over), on a route with volume control (on one without, `MPVolumeView`'s
    /// `layoutSubviews` takes the slider out of the view, which no longer hides the HUD:
    /// `shared/facts/volume-hud.md`).
    var isHUDSuppressed: Bool {
        guard let app, app.sessionActive, !app.sessionTakenOver, routeHasVolumeControl else { return false }
        return hasVisibleReadyView
    }

    /// Adds a volume view; it becomes ready ``DeviceBehaviour/volumeViewReadyDelay`` later (it takes sets and
    /// hides the HUD from then), but — as on iOS, which gives no readiness signal — `onReady` runs on the host's
    /// own timer, ``VolumeViewReadiness/hostDelay`` after the view is added, earlier or later than that.
    func appInstallVolumeView(alpha: Float, hidden: Bool, inActiveSceneWindow: Bool, onReady: (@Sendable () -> Void)?)
        -> Int?
    {
        guard app != nil else { return nil }
        let id = newObserverID()
        app?.volumeViews[id] = VolumeView(
            ready: false, alpha: alpha, hidden: hidden, inActiveSceneWindow: inActiveSceneWindow)
        inApp(after: behaviour.volumeViewReadyDelay) { [unowned self] in
            self.app?.volumeViews[id]?.ready = true
        }
        inApp(after: VolumeViewReadiness.hostDelay) { [unowned self] in
            guard self.app?.volumeViews[id] != nil else { return }
            onReady?()
        }
        return id
    }
}
