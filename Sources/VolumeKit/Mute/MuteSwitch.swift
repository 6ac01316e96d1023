#if os(iOS)
import Foundation
import VolumeKitCore

/// The Ring/Silent switch, the real volume and volume changes: the three answers of seeds 001/004, on the
/// main actor. A thin shell over ``/VolumeKitCore/MuteSwitchEngine``, whose rules are tested on Linux.
///
/// ```swift
/// let mute = MuteSwitch()
/// mute.muteBlock = { isMute in print(isMute ? "silent" : "ringing") }
/// mute.realVolumeBlock = { volume in print("real volume", volume) }     // 0 while silent
/// mute.volumeChangeBlock = { old, new in print(old, "→", new) }
/// mute.start()
/// for await state in mute.states { print(state) }                      // silent, ringing, unknown(…), unavailable
/// let now = await mute.check()                                         // one check, started or not
/// ```
@available(
    iOSApplicationExtension, unavailable, message: "needs the app (UIApplication): see the App extensions article"
)
@MainActor
public final class MuteSwitch {
    /// The bundled silent sound (`mute-probe.caf`, see ``/VolumeKitCore/MuteProbeSound``).
    public static var soundURL: URL? {
        Bundle.module.url(forResource: MuteProbeSound.resourceName, withExtension: MuteProbeSound.fileExtension)
    }

    /// The state last reported since ``start()``, `nil` before the first report.
    public private(set) var state: MuteState?
    /// ``state`` in words for VoiceOver and labels, in the app's language ("Silent mode on", "静音模式已开启").
    public var stateDescription: String? { state.map(VolumeKitStrings.current.muteState) }
    /// The real volume (0 while silent), `nil` while unknown.
    public private(set) var realVolume: Float?
    /// The output volume last seen.
    public private(set) var outputVolume: Float?

    /// The seed's `muteBlock`: called with `true` (silent) or `false` (ringing) when the known state changes.
    /// Unknown and unavailable states are not guessed into a Bool: see ``stateChangeBlock``.
    public var muteBlock: ((_ isMute: Bool) -> Void)?
    /// Every reported change, including unknown and unavailable, with old, new and the initial mark.
    public var stateChangeBlock: ((MuteStateChange) -> Void)?
    /// The seed's `realVolumeBlock`: the real volume, 0 while silent, each time it changes.
    public var realVolumeBlock: ((_ realVolume: Float) -> Void)?
    /// The seed's `volumeChangeBlock`: the output volume's old and new values (not 0 while silent, as in the seed).
    public var volumeChangeBlock: ((_ oldVolume: Float, _ newVolume: Float) -> Void)?

    private let engine: MuteSwitchEngine?
    private var changeContinuations: [UUID: AsyncStream<MuteStateChange>.Continuation] = [:]
    private var volumeContinuations: [UUID: AsyncStream<RealVolumeTracker.Action>.Continuation] = [:]

    /// Creates a detector with the live system and the bundled sound.
    /// - Parameters:
    ///   - configuration: the check interval (default 1 s, at least 0.5 s) and probe timing.
    ///   - observesVolume: also report the real volume and volume changes (activates an audio session; an
    ///     app on the default category is moved to `.ambient`, which mixes with other audio).
    public convenience init(
        configuration: MuteMonitor.Configuration = MuteMonitor.Configuration(), observesVolume: Bool = true
    ) {
        let url = Self.soundURL
        self.init(
            configuration: configuration,
            observesVolume: observesVolume,
            clients: .live(),
            soundURL: url ?? URL(fileURLWithPath: "/missing/mute-probe.caf")
        )
    }

    /// Creates a detector on the given clients (e.g. a `SimulatedDevice`'s) and sound.
    public init(
        configuration: MuteMonitor.Configuration, observesVolume: Bool, clients: VolumeKitClients, soundURL: URL
    ) {
        let relay = MuteRelay()
        engine = MuteSwitchEngine(
            configuration: configuration,
            observesVolume: observesVolume,
            soundURL: soundURL,
            clients: clients,
            onChange: { change in
                DispatchQueue.main.async { MainActor.assumeIsolated { relay.target?.apply(change) } }
            },
            onVolume: { action in
                DispatchQueue.main.async { MainActor.assumeIsolated { relay.target?.apply(action) } }
            }
        )
        relay.target = self
    }

    /// Stopping is part of letting go: a dropped detector gives back its hold on the audio session (which
    /// otherwise stays active, in `.ambient` for an app on the default category).
    deinit {
        engine?.stop()
    }

    /// Whether periodic checks are on.
    public var isStarted: Bool { engine?.isStarted ?? false }

    /// Starts checking: at once, then every interval while the app is in the foreground.
    public func start() { engine?.start() }

    /// Stops checking and puts the audio session back.
    public func stop() { engine?.stop() }

    /// Checks once, started or not; concurrent checks share one probe.
    public func check() async -> MuteState {
        guard let engine else { return .unknown(.soundUnavailable) }
        return await engine.check()
    }

    /// Each reported state change, from now on, the first since ``start()`` marked initial.
    public var changes: AsyncStream<MuteStateChange> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<MuteStateChange>.makeStream()
        changeContinuations[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { @MainActor in self?.changeContinuations[id] = nil }
        }
        return stream
    }

    /// The current state (when known) and then each new one.
    public var states: AsyncStream<MuteState> {
        let changes = self.changes
        let current = state
        return AsyncStream { continuation in
            if let current { continuation.yield(current) }
            let task = Task {
                for await change in changes { continuation.yield(change.new) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Volume changes and real-volume changes, from now on.
    public var volumeEvents: AsyncStream<RealVolumeTracker.Action> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<RealVolumeTracker.Action>.makeStream()
        volumeContinuations[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { @MainActor in self?.volumeContinuations[id] = nil }
        }
        return stream
    }

    private func apply(_ change: MuteStateChange) {
        state = change.new
        stateChangeBlock?(change)
        if let isMute = change.new.isSilent, isMute != change.old?.isSilent { muteBlock?(isMute) }
        for continuation in changeContinuations.values { continuation.yield(change) }
    }

    private func apply(_ action: RealVolumeTracker.Action) {
        switch action {
        case .volumeChanged(let old, let new):
            outputVolume = new
            volumeChangeBlock?(old, new)
        case .realVolumeChanged(let value):
            realVolume = value
            realVolumeBlock?(value)
        }
        for continuation in volumeContinuations.values { continuation.yield(action) }
    }
}
/// Forwards the engine's reports to a detector that may have gone away (held weakly, so a dropped detector
/// is released and stops).
@available(iOSApplicationExtension, unavailable)
@MainActor
private final class MuteRelay: Sendable {
    weak var target: MuteSwitch?
}
#endif
