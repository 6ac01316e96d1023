#if os(iOS)
import SwiftUI
import VolumeKitCore

/// The HUD's bar as a SwiftUI view: the same ``/VolumeKitCore/VolumeHUDDrawing`` shapes as the UIKit view and the SVG
/// preview, fixed size from the style (Dynamic Type-independent), Increase Contrast aware, read by VoiceOver as
/// "Volume, 50 percent" in the app's language (`strings`), with that language as the view's locale.
public struct VolumeHUDView: View {
    private let level: Float
    private let bump: VolumeHUDBump?
    private let style: VolumeHUDStyle
    private let axis: VolumeHUDAxis
    private let strings: VolumeKitStrings
    @Environment(\.colorSchemeContrast) private var contrast

    /// Creates the view. `strings` gives the accessibility label and value and their speech language (the
    /// app's language by default, ``/VolumeKitCore/VolumeKitStrings/current``).
    public init(
        level: Float,
        bump: VolumeHUDBump? = nil,
        style: VolumeHUDStyle = .classic,
        axis: VolumeHUDAxis = .horizontal,
        strings: VolumeKitStrings = .current
    ) {
        self.level = level
        self.bump = bump
        self.style = style
        self.axis = axis
        self.strings = strings
    }

    /// The bar.
    public var body: some View {
        let size = VolumeHUDView.plateSize(style: style, axis: axis)
        let palette = style.palette(increaseContrast: contrast == .increased)
        let drawing = VolumeHUDDrawing(style: style, size: size, axis: axis, level: level, bump: bump)
        Canvas { context, _ in
            for shape in drawing.shapes {
                let path = Path(roundedRect: shape.rect, cornerRadius: shape.cornerRadius)
                context.fill(path, with: .color(Color(palette.color(for: shape.role))))
                if shape.role == .plate, palette.outline.alpha > 0 {
                    context.stroke(
                        Path(
                            roundedRect: shape.rect.insetBy(dx: 0.5, dy: 0.5),
                            cornerRadius: max(0, shape.cornerRadius - 0.5)),
                        with: .color(Color(palette.outline)), lineWidth: 1)
                }
            }
        }
        .frame(width: size.width, height: size.height)
        .accessibilityElement()
        .accessibilityLabel(Text(verbatim: strings.hudLabel))
        .accessibilityValue(Text(verbatim: strings.hudValue(level: level)))
        .accessibilityAddTraits(.updatesFrequently)
        .environment(\.locale, Locale(identifier: strings.language.rawValue))  // the language the label is in
    }

    static func plateSize(style: VolumeHUDStyle, axis: VolumeHUDAxis) -> CGSize {
        let along = style.length + 2 * style.padding
        let across = style.thickness + 2 * style.padding
        return axis == .horizontal ? CGSize(width: along, height: across) : CGSize(width: across, height: along)
    }
}

extension Color {
    /// The SwiftUI colour for a HUD colour (sRGB).
    public init(_ color: VolumeHUDColor) {
        self.init(.sRGB, red: color.red, green: color.green, blue: color.blue, opacity: color.alpha)
    }
}

extension View {
    /// Replaces the system volume HUD with VolumeKit's while this view is on screen.
    ///
    /// Built on `.task`: a ``VolumeHUD`` starts when the view appears and stops when it disappears or the
    /// style, options or clients change. Apply it once, near the root of a scene.
    ///
    /// ```swift
    /// ContentView()
    ///     .volumeHUD(.island)                                   // the user's volume
    /// SpeakerView()
    ///     .volumeHUD(.island, options: .init(levelSource: .external),
    ///                level: speaker.level, buttonEvent: lastPress) // a remote level, with the bump
    /// ```
    /// - Parameters:
    ///   - style: the look.
    ///   - isEnabled: `false` leaves the system HUD alone.
    ///   - options: level source, suppression, session activation
    ///     (``/VolumeKitCore/VolumeHUDOptions/sessionActivation``) and language, as for ``VolumeHUD``.
    ///   - level: a level to show (0…1), e.g. a remote speaker's: each new value shows the HUD at it, as
    ///     ``VolumeHUD/show(level:)``. `nil` shows nothing.
    ///   - buttonEvent: the latest button event (e.g. from
    ///     ``SwiftUI/View/onVolumeButton(_:clients:onError:perform:)``): each new one is fed to
    ///     ``VolumeHUD/handle(_:)`` for the bump at a rail.
    ///   - clients: the system to run against (live by default).
    ///   - onChange: called on the main actor with each display change (e.g. for your own UI or logging);
    ///     the closure of the latest update of this view is the one called (a new one restarts nothing).
    @available(
        iOSApplicationExtension, unavailable, message: "needs the app (UIApplication): see the App extensions article"
    )
    public func volumeHUD(
        _ style: VolumeHUDStyle = .classic,
        isEnabled: Bool = true,
        options: VolumeHUDOptions = VolumeHUDOptions(),
        level: Float? = nil,
        buttonEvent: VolumeButtonEvent? = nil,
        clients: VolumeKitClients? = nil,
        onChange: (@MainActor (VolumeHUDDisplay) -> Void)? = nil
    ) -> some View {
        modifier(
            VolumeHUDModifier(
                settings: .init(style: style, isEnabled: isEnabled, options: options), level: level,
                buttonEvent: buttonEvent, clients: clients, onChange: onChange
            ))
    }
}

@available(iOSApplicationExtension, unavailable)
private struct VolumeHUDModifier: ViewModifier {
    /// The inputs whose change makes a new `VolumeHUD` (a level or a button event is shown by the running one).
    struct Settings: Equatable {
        var style: VolumeHUDStyle
        var isEnabled: Bool
        var options: VolumeHUDOptions
    }

    /// The task's identity: the settings, and whether clients were given (they are not `Equatable`).
    struct Key: Equatable {
        var settings: Settings
        var hasClients: Bool
    }

    let settings: Settings
    let level: Float?
    let buttonEvent: VolumeButtonEvent?
    let clients: VolumeKitClients?
    let onChange: (@MainActor (VolumeHUDDisplay) -> Void)?
    @State private var hud: VolumeHUD?
    /// The `onChange` of the latest update: the task, started once, calls through it.
    @State private var latest = LatestHUDChangeHandler()

    func body(content: Content) -> some View {
        latest.onChange = onChange
        return
            content
            .task(id: Key(settings: settings, hasClients: clients != nil)) {
                @MainActor in
                guard settings.isEnabled else { return }
                let latest = latest
                let hud = VolumeHUD(style: settings.style, options: settings.options, clients: clients)
                self.hud = hud
                hud.start()
                for await display in hud.displays {
                    latest.onChange?(display)
                }
                hud.stop()
                if self.hud === hud { self.hud = nil }
            }
            .onChange(of: level) { level in
                if let level { hud?.show(level: level) }
            }
            .onChange(of: buttonEvent) { event in
                if let event { hud?.handle(event) }
            }
    }
}
/// The `onChange` that `volumeHUD(…)` was given by the latest update of its view (a `.task` keeps the values
/// of the update that started it).
@MainActor
private final class LatestHUDChangeHandler {
    var onChange: (@MainActor (VolumeHUDDisplay) -> Void)?
}
#endif
