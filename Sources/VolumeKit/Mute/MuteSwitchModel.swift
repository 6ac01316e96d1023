#if os(iOS)
import Combine
import SwiftUI
import VolumeKitCore

/// ``MuteSwitch`` for SwiftUI: an `ObservableObject` publishing the state, the real volume and the output volume.
///
/// ```swift
/// struct RingerView: View {
///     @StateObject private var mute = MuteSwitchModel()
///     var body: some View {
///         Text(mute.stateDescription ?? "…")
///             .onAppear { mute.start() }
///             .onDisappear { mute.stop() }
///     }
/// }
/// ```
///
/// The initializers are `nonisolated`, so `@StateObject private var mute = MuteSwitchModel()` compiles in
/// any view (against SDKs where `View` is not main-actor isolated, such as iOS 17.4's). The detector is made
/// on the main actor when first used. A model that goes away stops its detector.
@available(
    iOSApplicationExtension, unavailable, message: "needs the app (UIApplication): see the App extensions article"
)
@MainActor
public final class MuteSwitchModel: ObservableObject {
    /// The state last reported, `nil` before the first report.
    @Published public private(set) var state: MuteState?
    /// The real volume (0 while silent), `nil` while unknown.
    @Published public private(set) var realVolume: Float?
    /// The output volume, as the last volume change left it.
    @Published public private(set) var outputVolume: Float?

    private let makeMuteSwitch: @MainActor @Sendable () -> MuteSwitch
    private var madeMuteSwitch: MuteSwitch?
    private var tasks: [Task<Void, Never>] = []

    /// Creates a model over `muteSwitch` (e.g. one made on a `SimulatedDevice`'s clients), by default the
    /// live detector with the bundled sound.
    public nonisolated init(muteSwitch: MuteSwitch? = nil) {
        makeMuteSwitch = { muteSwitch ?? MuteSwitch() }
    }

    /// Creates a model over the detector `make` returns, called on the main actor when first needed.
    public nonisolated init(making make: @escaping @MainActor @Sendable () -> MuteSwitch) {
        makeMuteSwitch = make
    }

    deinit {
        // The detector stops itself when it goes away with the model (see `MuteSwitch`'s deinit).
        for task in tasks { task.cancel() }
    }

    /// The detector underneath.
    public var muteSwitch: MuteSwitch {
        if let madeMuteSwitch { return madeMuteSwitch }
        let made = makeMuteSwitch()
        madeMuteSwitch = made
        return made
    }

    /// ``state`` in words for VoiceOver and labels, in the app's language ("Silent mode on", "무음 모드 켬").
    public var stateDescription: String? { state.map(VolumeKitStrings.current.muteState) }

    /// Starts the detector and publishes what it reports.
    public func start() {
        guard tasks.isEmpty else { return }
        let muteSwitch = self.muteSwitch
        let changes = muteSwitch.changes
        let volumes = muteSwitch.volumeEvents
        tasks = [
            Task { [weak self] in
                for await change in changes { self?.state = change.new }
            },
            Task { [weak self] in
                for await event in volumes {
                    switch event {
                    case .volumeChanged(_, let new): self?.outputVolume = new
                    case .realVolumeChanged(let value): self?.realVolume = value
                    }
                }
            },
        ]
        muteSwitch.start()
    }

    /// Stops the detector.
    public func stop() {
        tasks.forEach { $0.cancel() }
        tasks = []
        madeMuteSwitch?.stop()
    }
}

/// The documented `MuteSwitchModel` usage, compiled with the library: a view that is *not* marked
/// `@MainActor` holding the model in a `@StateObject`, which fails to compile against the iOS 17.4 SDK
/// when the model's initializer is main-actor isolated.
@available(iOSApplicationExtension, unavailable)
struct MuteSwitchModelUsageCheck: View {
    @StateObject private var mute = MuteSwitchModel()

    var body: some View {
        Text(mute.stateDescription ?? "…")
            .onAppear { mute.start() }
            .onDisappear { mute.stop() }
    }
}

extension View {
    /// Runs `action` for each Ring/Silent switch change `muteSwitch` reports while the view is on screen
    /// (built on `.task`: it stops with the view). Start the detector yourself, e.g. in `onAppear`.
    @available(
        iOSApplicationExtension, unavailable, message: "needs the app (UIApplication): see the App extensions article"
    )
    public func onMuteSwitchChange(
        _ muteSwitch: MuteSwitch,
        perform action: @escaping @MainActor (MuteStateChange) -> Void
    ) -> some View {
        task {
            for await change in await muteSwitch.changes { await action(change) }
        }
    }
}
#endif
