#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension VolumeKitClients {
    /// The same clients, recording everything that passes through them to `recorder`: every value the
    /// system delivers (KVO, notifications, lifecycle, capture events, view readiness, sound completions),
    /// every request the app makes (sets and through which view, sessions, sounds, store writes), every
    /// read with its answer (a route read repeating the record just before it left out: the poll's), and every
    /// diagnostic a button engine on them raises (``VolumeKitClients/diagnosticObserver``). Features need no code
    /// of their own: give them these clients.
    ///
    /// `feature` tags each record (`buttons`, `mute`), so that a replay can feed one feature its own inputs
    /// when several share a trace. The clock and the session lease pass through unrecorded. Port UIDs are
    /// written as the recorder's ``TraceRecorder/portNaming`` says (aliases by default); the clients still
    /// give the features the real ones.
    public func recording(to recorder: TraceRecorder, feature: String? = nil) -> VolumeKitClients {
        let tap = TraceTap(recorder: recorder, feature: feature)
        var clients = self
        clients.systemVolume = tap.wrap(systemVolume)
        clients.audioSession = tap.wrap(audioSession)
        clients.lifecycle = tap.wrap(lifecycle)
        clients.systemSounds = tap.wrap(systemSounds)
        clients.keyValueStore = tap.wrap(keyValueStore)
        clients.captureEvents = tap.wrap(captureEvents)
        // Not a client of the system, but what crossed from VolumeKit to the app: each diagnostic an engine on
        // these clients raises, recorded before the app hears of it (on a device and in the simulator alike).
        let observer = diagnosticObserver
        clients.diagnosticObserver = { diagnostic in
            tap.record(.diagnostic(diagnostic))
            observer(diagnostic)
        }
        return clients
    }
}

/// Wraps each client's closures so that what passes through is recorded, then passed on unchanged.
private struct TraceTap: Sendable {
    let recorder: TraceRecorder
    let feature: String?

    func record(_ event: TraceEvent) { recorder.record(event, feature: feature) }

    /// A read that records each answer (a `read` record), then returns it unchanged.
    func read<Value>(
        _ get: @escaping @Sendable () -> Value, _ reading: @escaping @Sendable (Value) -> TraceReading
    ) -> @Sendable () -> Value {
        {
            let value = get()
            record(.read(reading(value)))
            return value
        }
    }

    /// A read recorded unless it repeats the last record exactly (``TraceRecorder/recordUnlessRepeat(_:feature:)``):
    /// the route, read every `VolumeButtonsEngine.routePollInterval` as well as with each input, writes a record
    /// for a poll only when the poll finds news; each input's read is written as before.
    func readUnlessRepeated<Value: Sendable>(
        _ get: @escaping @Sendable () -> Value, _ reading: @escaping @Sendable (Value) -> TraceReading
    ) -> @Sendable () -> Value {
        {
            let value = get()
            recorder.recordUnlessRepeat(.read(reading(value)), feature: feature)
            return value
        }
    }

    /// Makes a request that may fail, then records it with the failure's text (`nil` when it succeeded) and
    /// passes the failure on.
    func request(_ event: (_ error: String?) -> TraceEvent, _ make: () throws -> Void) throws {
        do {
            try make()
            record(event(nil))
        } catch {
            record(event(String(describing: error)))
            throw error
        }
    }

    /// A subscription that records its deliveries under a fresh observer number, and its end.
    func observe<Value>(
        _ channel: TraceChannel,
        _ subscribe: @escaping @Sendable (@escaping @Sendable (Value) -> Void) -> CancellationHandle,
        _ event: @escaping @Sendable (Value, Int) -> TraceEvent
    ) -> @Sendable (@escaping @Sendable (Value) -> Void) -> CancellationHandle {
        { handler in
            let observer = recorder.newObserver()
            record(.subscribed(channel, observer: observer))
            let handle = subscribe { value in
                record(event(value, observer))
                handler(value)
            }
            return CancellationHandle {
                record(.unsubscribed(channel, observer: observer))
                handle.cancel()
            }
        }
    }

    func wrap(_ client: SystemVolumeClient) -> SystemVolumeClient {
        SystemVolumeClient(
            outputVolume: read(client.outputVolume) { .outputVolume($0) },
            observeOutputVolume: observe(.outputVolume, client.observeOutputVolume) { .outputVolume($0, observer: $1) },
            observeSystemNotifications: observe(.systemNotifications, client.observeSystemNotifications) {
                .systemNotification($0, observer: $1)
            },
            setVolume: { value in
                record(.setVolume(value, view: recorder.currentView))
                client.setVolume(value)
            },
            installVolumeView: { onReady in
                let view = recorder.installView()
                record(.volumeViewInstalled(view: view))
                let handle = client.installVolumeView {
                    record(.volumeViewReady(view: view))
                    onReady()
                }
                return CancellationHandle {
                    recorder.removeView(view)
                    record(.volumeViewRemoved(view: view))
                    handle.cancel()
                }
            },
            // Not a trace record: a replay takes every route as having volume control (docs/trace.md).
            hasVolumeControl: client.hasVolumeControl
        )
    }

    func wrap(_ client: AudioSessionClient) -> AudioSessionClient {
        var wrapped = AudioSessionClient(
            configuration: read(client.configuration) { .configuration($0) },
            setConfiguration: { configuration in
                try request({ .setCategory(configuration, error: $0) }) { try client.setConfiguration(configuration) }
            },
            setActive: { active, notifyOthers in
                try request({ .setActive(active, notifyOthers: notifyOthers, error: $0) }) {
                    try client.setActive(active, notifyOthers)
                }
            },
            isOtherAudioPlaying: read(client.isOtherAudioPlaying) { .otherAudioPlaying($0) },
            currentRoute: readUnlessRepeated(client.currentRoute) { .route($0) },
            primeOutput: {
                record(.primeOutput)
                client.primeOutput()
            },
            currentOutputs: client.currentOutputs
        )
        // A read like `isOtherAudioPlaying` (trace format 3): ``SessionReactivation`` takes the two together.
        wrapped.secondaryAudioShouldBeSilencedHint = read(client.secondaryAudioShouldBeSilencedHint) {
            .secondaryAudioShouldBeSilencedHint($0)
        }
        return wrapped
    }

    func wrap(_ client: AppLifecycleClient) -> AppLifecycleClient {
        AppLifecycleClient(
            state: read(client.state) { .appState($0) },
            observe: { handler in
                let observer = recorder.newObserver()
                record(.subscribed(.lifecycle, observer: observer))
                let handle = client.observe { event in
                    record(.lifecycle(event, observer: observer))
                    if let details = details(of: event, client, observer: observer) { record(details) }
                    handler(event)
                }
                // What the client keeps from its events still reaches the trace, under the same observer.
                let withheld = client.observeWithheldInterruptions { details in
                    record(.interruptionDetails(details, observer: observer))
                }
                return CancellationHandle {
                    record(.unsubscribed(.lifecycle, observer: observer))
                    handle.cancel()
                    withheld.cancel()
                }
            },
            lastRouteChange: client.lastRouteChange,
            lastInterruption: client.lastInterruption,
            observeWithheldInterruptions: client.observeWithheldInterruptions
        )
    }

    /// The record that follows `event`'s, when the platform gives its details: a route change's reason and
    /// ports, an interruption's reason, options and suspension flag (for the subscription `observer`).
    private func details(of event: AppLifecycleEvent, _ client: AppLifecycleClient, observer: Int) -> TraceEvent? {
        switch event {
        case .routeChanged:
            guard let change = client.lastRouteChange() else { return nil }
            let ports = change.outputs.map { TracePort(type: $0.type, uid: recorder.portName($0.uid)) }
            return .routeDetails(reason: change.reason, ports: ports)
        case .interruptionBegan, .interruptionEnded:
            guard let details = client.lastInterruption(), details.describes(event) else { return nil }
            return .interruptionDetails(details, observer: observer)
        default:
            return nil
        }
    }

    func wrap(_ client: SystemSoundClient) -> SystemSoundClient {
        SystemSoundClient(
            create: { url in
                do {
                    let id = try client.create(url)
                    record(.soundCreated(file: url.lastPathComponent, sound: id, status: nil))
                    return id
                } catch {
                    let status = (error as? SystemSoundError)?.status ?? -1
                    record(.soundCreated(file: url.lastPathComponent, sound: nil, status: status))
                    throw error
                }
            },
            play: { id, alert, completion in
                let play = recorder.newPlay()
                record(.soundStarted(sound: id, alert: alert, play: play))
                client.play(id, alert) {
                    record(.soundCompleted(play: play))
                    completion()
                }
            },
            setIsUISound: { id, isUISound in
                record(.soundMarkedUISound(sound: id, isUISound: isUISound))
                client.setIsUISound(id, isUISound)
            },
            dispose: { id in
                record(.soundDisposed(sound: id))
                client.dispose(id)
            }
        )
    }

    func wrap(_ client: KeyValueStoreClient) -> KeyValueStoreClient {
        KeyValueStoreClient(
            data: { key in
                let data = client.data(key)
                record(.read(.stored(key: key, data: recorder.storedData(data))))
                return data
            },
            setData: { data, key in
                record(.storeWrite(key: key, data: recorder.storedData(data)))
                client.setData(data, key)
            }
        )
    }

    func wrap(_ client: CaptureEventClient) -> CaptureEventClient {
        CaptureEventClient(
            isAvailable: read(client.isAvailable) { .captureAvailable($0) },
            observe: observe(.captureEvents, client.observe) { .captureEvent($0, observer: $1) }
        )
    }
}
