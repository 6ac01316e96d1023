#if os(iOS)
import Combine
import SwiftUI
import VolumeKitCore

/// ``MuteSwitch`` for SwiftUI: an `ObservableObject` publishing the state, the real volume and the output volume.
///
/// ```swift
/// @StateObject private var mute = MuteSwitchModel()
/// var body: some View {
///     Text(mute.state?.description ?? "…")
///         .onAppear { mute.start() }
///         .onDisappear { mute.stop() }
/// }
/// ```
@MainActor
public final class MuteSwitchModel: ObservableObject {
    /// The state last reported, `nil` before the first report.
    @Published public private(set) var state: MuteState?
    /// The real volume (0 while silent), `nil` while unknown.
    @Published public private(set) var realVolume: Float?
    /// The output volume, as the last volume change left it.
    @Published public private(set) var outputVolume: Float?

    /// The detector underneath.
    public let muteSwitch: MuteSwitch
    private var tasks: [Task<Void, Never>] = []

    /// Creates a model over a detector (by default the live one with the bundled sound).
    public init(muteSwitch: MuteSwitch? = nil) {
        self.muteSwitch = muteSwitch ?? MuteSwitch()
    }

    /// Starts the detector and publishes what it reports.
    public func start() {
        guard tasks.isEmpty else { return }
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
        muteSwitch.stop()
    }
}

extension View {
    /// Runs `action` for each Ring/Silent switch change `muteSwitch` reports while the view is on screen
    /// (built on `.task`: it stops with the view). Start the detector yourself, e.g. in `onAppear`.
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
