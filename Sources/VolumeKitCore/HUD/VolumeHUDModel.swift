#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which rail a press ran into: the level could not move because it was already at the end.
///
/// iOS reports no volume change for a press at 0 or 1 (`shared/facts/volume-hud.md` §4: "KVO outputVolume
/// never fires when at 1.0 pressing up / 0.0 pressing down"; seed 002 §3.1), so without this state a custom
/// HUD looks dead exactly when the user presses hardest.
public enum VolumeHUDBump: String, Sendable, Equatable, Hashable, CaseIterable, Codable {
    /// Volume down pressed at level 0.
    case minimum
    /// Volume up pressed at level 1.
    case maximum
}

/// What the HUD shows at one moment: the model's only output besides its deadline.
public struct VolumeHUDDisplay: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Whether the HUD is on screen.
    public var isVisible: Bool
    /// The level drawn, 0…1.
    public var level: Float
    /// Set while the HUD shows a press that hit a rail; cleared by the next level change or when hidden.
    public var bump: VolumeHUDBump?

    /// Creates a display state.
    public init(isVisible: Bool, level: Float, bump: VolumeHUDBump? = nil) {
        self.isVisible = isVisible
        self.level = level
        self.bump = bump
    }

    /// The hidden state at `level`.
    public static func hidden(level: Float) -> VolumeHUDDisplay { VolumeHUDDisplay(isVisible: false, level: level) }

    /// "visible 0.5", "visible 1.0 bump maximum", "hidden 0.25".
    public var description: String {
        (isVisible ? "visible " : "hidden ") + "\(level)" + (bump.map { " bump \($0.rawValue)" } ?? "")
    }

    /// One JSON line for event logs: `{"t":1.5,"type":"hud","level":0.5,"visible":true}`, plus
    /// `"bump":"maximum"` while a bump shows. (`volumekit simulate` prints the same fields through its own
    /// record formatter, `ScenarioRecord`, so that all its lines share one layout.)
    public func jsonLine(at time: Instant) -> String {
        var line =
            "{\"t\":\(VolumeHUDDisplay.number(time)),\"type\":\"hud\",\"level\":\(VolumeHUDDisplay.number(Double(level))),\"visible\":\(isVisible)"
        if let bump { line += ",\"bump\":\"\(bump.rawValue)\"" }
        return line + "}"
    }

    /// Shortest round-tripping decimal, never exponent notation for the small values a HUD carries.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 1_000_000).rounded() / 1_000_000
        if rounded == rounded.rounded() && abs(rounded) < 1e15 { return String(Int64(rounded)) }
        var text = cFormat("%.6f", rounded)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}

/// What the shell must do after an input to ``VolumeHUDModel``.
public enum VolumeHUDAction: Sendable, Equatable, Hashable {
    /// Draw this state: appear if it is visible and was not, disappear if it is hidden, otherwise update in place.
    case display(VolumeHUDDisplay)
    /// Tell VoiceOver users the new level (e.g. "Volume 50 percent"); see ``VolumeHUDAccessibility``.
    case announce(String)
}

/// The custom volume HUD as a pure state machine in virtual time.
///
/// Rules (seed 002; `shared/facts/volume-hud.md` §1–§2):
/// - every level change shows the HUD and restarts the hide timer (``hideDelay``, default 1.5 s, as
///   VolumeBar's `minimumVisibleDuration`); a level equal to the one drawn is not a change;
/// - a button press that cannot move the level (down at 0, up at 1) shows a distinct ``VolumeHUDBump``;
///   a press that can move the level changes nothing by itself — the level change that follows shows it;
/// - while the app is not active the HUD is hidden and ignores presses; levels are still recorded, so the
///   HUD shows the right level later without popping up on return (seed 002 "问题二": only react while active);
/// - levels come from any source (device volume, a remote device); NaN and infinities are ignored, other
///   values are clamped to 0…1.
///
/// Each input returns the ``VolumeHUDAction``s the shell carries out; time is passed in, never read.
public struct VolumeHUDModel: Sendable, Equatable {
    /// How long the HUD stays after the last change. Takes effect at the next change.
    public var hideDelay: TimeInterval
    /// What the HUD shows now.
    public private(set) var display: VolumeHUDDisplay
    /// When the HUD hides unless something changes first; `nil` while hidden. The shell calls ``tick(at:)``
    /// then (Core's one wake-up convention: a machine says when it next needs time; ``VolumeHUDEngine`` keeps
    /// one timer aimed there).
    public private(set) var deadline: Instant?
    /// Whether the app is active (the HUD reacts only then).
    public private(set) var isAppActive: Bool
    /// Whether ``display``'s level came from a real reading (a press cannot be judged against a guess).
    public private(set) var isLevelKnown: Bool
    /// The language of the ``VolumeHUDAction/announce(_:)`` texts (English unless given: a pure machine
    /// never reads the user's settings; ``VolumeHUDEngine`` passes the app's, ``VolumeHUDOptions/strings``).
    public var strings: VolumeKitStrings
    /// The last level change that reached a rail, and when: the press that caused it may be reported
    /// just after it (passive button detection sees a press *through* the change) and is no bump.
    private var railReached: RailReached?
    private struct RailReached: Sendable, Equatable {
        var button: VolumeButton
        var time: Instant
    }

    /// How soon after a change that reached a rail a press toward that rail counts as the press that caused
    /// it. Passive detection reports the press in the same main-queue turn as the change (VolumeKit's own
    /// KVO latency is ≈ 5 ms in the simulator); a person cannot press twice within 30 ms.
    public static let causingPressWindow: TimeInterval = 0.03

    /// A level this close to 0 or 1 counts as the rail (the system reports exact 0 and 1; remote devices may round).
    public static let railTolerance: Float = 0.0005

    /// Creates a hidden HUD.
    /// - Parameters:
    ///   - level: the current level if known (e.g. `AVAudioSession.outputVolume` at start), else `nil`.
    ///   - hideDelay: seconds the HUD stays after the last change (default 1.5 s).
    ///   - isAppActive: whether the app is active now.
    ///   - strings: the language of the announcements (English by default).
    public init(
        level: Float? = nil, hideDelay: TimeInterval = 1.5, isAppActive: Bool = true,
        strings: VolumeKitStrings = .english
    ) {
        self.strings = strings
        self.hideDelay = max(0, hideDelay.isFinite ? hideDelay : 1.5)
        let clean = level.flatMap(VolumeHUDModel.clean)
        display = .hidden(level: clean ?? 0)
        isLevelKnown = clean != nil
        deadline = nil
        self.isAppActive = isAppActive
    }

    /// The level changed (device volume KVO, a remote device's report, the app's own slider).
    ///
    /// Shows the HUD at the new level and restarts the hide timer, unless the app is inactive or the level
    /// equals the one already drawn.
    public mutating func levelChanged(_ level: Float, at time: Instant) -> [VolumeHUDAction] {
        guard let level = VolumeHUDModel.clean(level) else { return [] }
        let wasKnown = isLevelKnown
        isLevelKnown = true
        if wasKnown, level == display.level { return [] }
        let old = display.level
        railReached = nil
        if wasKnown, level >= 1 - VolumeHUDModel.railTolerance, level > old {
            railReached = RailReached(button: .up, time: time)
        }
        if wasKnown, level <= VolumeHUDModel.railTolerance, level < old {
            railReached = RailReached(button: .down, time: time)
        }
        guard isAppActive else {
            display.level = level
            return []
        }
        return present(VolumeHUDDisplay(isVisible: true, level: level), at: time, announce: true)
    }

    /// Shows the HUD at `level` even if it equals the level drawn (an explicit request by the app).
    public mutating func showLevel(_ level: Float, at time: Instant) -> [VolumeHUDAction] {
        guard let level = VolumeHUDModel.clean(level) else { return [] }
        isLevelKnown = true
        guard isAppActive else {
            display.level = level
            return []
        }
        return present(VolumeHUDDisplay(isVisible: true, level: level), at: time, announce: true)
    }

    /// A hardware button was pressed (``ButtonPhase/pressed`` or ``ButtonPhase/repeated``).
    ///
    /// At a rail (down at 0, up at 1) this shows the bump state; otherwise it does nothing and waits for the
    /// level change the press causes.
    public mutating func buttonPressed(_ button: VolumeButton, at time: Instant) -> [VolumeHUDAction] {
        guard isAppActive, isLevelKnown else { return [] }
        if let reached = railReached, reached.button == button,
            time - reached.time <= VolumeHUDModel.causingPressWindow, time >= reached.time
        {
            railReached = nil
            return []
        }
        let bump: VolumeHUDBump
        switch button {
        case .down where display.level <= VolumeHUDModel.railTolerance: bump = .minimum
        case .up where display.level >= 1 - VolumeHUDModel.railTolerance: bump = .maximum
        default: return []
        }
        let announce = !(display.isVisible && display.bump == bump)
        return present(
            VolumeHUDDisplay(isVisible: true, level: display.level, bump: bump), at: time, announce: announce)
    }

    /// Feeds a ``VolumeButtonEvent``: presses and repeats count as presses, releases are ignored.
    public mutating func handle(_ event: VolumeButtonEvent) -> [VolumeHUDAction] {
        event.phase == .released ? [] : buttonPressed(event.button, at: event.time)
    }

    /// The level is known to be `level` without the user changing it (a fresh reading, a hand-off from
    /// button capture): recorded without showing the HUD or announcing; a HUD already on screen is redrawn
    /// at that level and keeps its hide time.
    public mutating func levelKnown(_ level: Float) -> [VolumeHUDAction] {
        guard let level = VolumeHUDModel.clean(level) else { return [] }
        isLevelKnown = true
        guard level != display.level else { return [] }
        display.level = level
        display.bump = nil
        return display.isVisible ? [.display(display)] : []
    }

    /// The app became active. `level` is the volume read now, if any: it may have moved in Control Center
    /// while the app was inactive; it is recorded without showing the HUD.
    public mutating func appBecameActive(level: Float? = nil, at time: Instant) -> [VolumeHUDAction] {
        isAppActive = true
        if let level = level.flatMap(VolumeHUDModel.clean) {
            display.level = level
            isLevelKnown = true
        }
        return []
    }

    /// The app resigned active (Control Center, a call, the app switcher, background): hide at once.
    public mutating func appResignedActive(at time: Instant) -> [VolumeHUDAction] {
        isAppActive = false
        return hide()
    }

    /// Hides the HUD now (an explicit request by the app).
    public mutating func dismiss(at time: Instant) -> [VolumeHUDAction] { hide() }

    /// Time passed. Hides the HUD once its ``deadline`` is reached; an early tick changes nothing.
    public mutating func tick(at time: Instant) -> [VolumeHUDAction] {
        guard let deadline else { return [] }
        guard time >= deadline else { return [] }
        return hide()
    }

    private mutating func present(_ next: VolumeHUDDisplay, at time: Instant, announce: Bool) -> [VolumeHUDAction] {
        display = next
        let due = time + hideDelay
        deadline = due
        var actions: [VolumeHUDAction] = [.display(next)]
        if announce { actions.append(.announce(strings.announcement(level: next.level, bump: next.bump))) }
        return actions
    }

    private mutating func hide() -> [VolumeHUDAction] {
        guard display.isVisible || deadline != nil else { return [] }
        display = .hidden(level: display.level)
        deadline = nil
        return [.display(display)]
    }

    private static func clean(_ level: Float) -> Float? {
        level.isFinite ? min(1, max(0, level)) : nil
    }
}
