import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Clients that tell a test about every call made through them: the unimplemented clients a test gives code that
/// must not reach the system, and any clients watched call by call.
extension VolumeKitClients {
    /// Clients for code that must not reach the system: every member — each closure of each client, and
    /// ``/VolumeKitCore/VolumeKitClients/diagnosticObserver`` — first calls `onUnexpected` with the client's
    /// and the member's name (`"audioSession.setActive"`, `"systemVolume.setVolume"`), then answers as a
    /// silent device would: volume 0 and no volume control, the default session on the speaker, an active
    /// app, nothing stored, no capture events, subscriptions that deliver nothing and a clock that stands at 0
    /// and never fires. Nothing throws: the call is the failure, reported through `onUnexpected`.
    ///
    /// Make `onUnexpected` fail the test (with swift-testing, `Issue.record`), then take the clients the code
    /// under test must leave alone from here and the others from a ``SimulatedDevice``:
    ///
    /// ```swift
    /// var clients = device.clients
    /// clients.audioSession = VolumeKitClients.unimplemented { call in
    ///     Issue.record("captureEvents must take no audio session, but called \(call)")
    /// }.audioSession
    /// ```
    ///
    /// The session lease and the hold board are new, unshared objects, not calls; a subscription's handle
    /// cancels nothing (cancelling it is not reported).
    ///
    /// - Parameters:
    ///   - device: The device the clients describe (a value, read without a call).
    ///   - onUnexpected: Called with `client.member` before every call, on the caller's thread.
    /// - Returns: Clients on which every call is reported.
    public static func unimplemented(
        device: DeviceInfo = DeviceInfo(osVersion: OSVersion(17, 4), kind: .iphone),
        onUnexpected: @escaping @Sendable (_ call: String) -> Void
    ) -> VolumeKitClients {
        var clients = VolumeKitClients(
            device: device,
            clock: ClockClient(now: { 0 }, schedule: { _, _ in .none }),
            systemVolume: SystemVolumeClient(
                outputVolume: { 0 }, observeOutputVolume: { _ in .none }, observeSystemNotifications: { _ in .none },
                setVolume: { _ in }, installVolumeView: { _ in .none }, hasVolumeControl: { false }),
            audioSession: AudioSessionClient(
                configuration: { .systemDefault }, setConfiguration: { _ in }, setActive: { _, _ in },
                isOtherAudioPlaying: { false }, currentRoute: { .speaker }, primeOutput: {}, currentOutputs: { [] }),
            lifecycle: AppLifecycleClient(
                state: { .active }, observe: { _ in .none }, lastRouteChange: { nil }, lastInterruption: { nil },
                observeWithheldInterruptions: { _ in .none }),
            systemSounds: SystemSoundClient(
                create: { _ in 0 }, play: { _, _, _ in }, setIsUISound: { _, _ in }, dispose: { _ in }),
            keyValueStore: KeyValueStoreClient(data: { _ in nil }, setData: { _, _ in }),
            captureEvents: CaptureEventClient(isAvailable: { false }, observe: { _ in .none }),
            sessionLease: AudioSessionLease()
        )
        clients.diagnosticObserver = { _ in }
        return clients.reportingCalls(to: onUnexpected)
    }

    /// The same clients, each member — each closure of each client, and
    /// ``/VolumeKitCore/VolumeKitClients/diagnosticObserver`` — calling `onCall` with the client's and the
    /// member's name (`"systemVolume.setVolume"`) before it does what it did.
    ///
    /// A test watches with it what some code calls, or fails it from some moment on: a stopped engine, say,
    /// must make no further call.
    ///
    /// ```swift
    /// let stopped = Locked(false)
    /// let clients = device.clients.reportingCalls { call in
    ///     if stopped.current { Issue.record("a stopped engine called \(call)") }
    /// }
    /// ```
    ///
    /// What the system delivers to a subscription's handler, and the cancelling of its handle, are not calls
    /// of the code under test and are not reported. The device, the session lease and the hold board pass
    /// through.
    ///
    /// - Parameter onCall: Called with `client.member` before every call, on the caller's thread.
    /// - Returns: The same clients, reporting each call.
    public func reportingCalls(to onCall: @escaping @Sendable (_ call: String) -> Void) -> VolumeKitClients {
        let tap = CallTap(onCall: onCall)
        var clients = self
        clients.clock = ClockClient(now: tap("clock.now", clock.now), schedule: tap("clock.schedule", clock.schedule))
        clients.systemVolume = SystemVolumeClient(
            outputVolume: tap("systemVolume.outputVolume", systemVolume.outputVolume),
            observeOutputVolume: tap("systemVolume.observeOutputVolume", systemVolume.observeOutputVolume),
            observeSystemNotifications: tap(
                "systemVolume.observeSystemNotifications", systemVolume.observeSystemNotifications),
            setVolume: tap("systemVolume.setVolume", systemVolume.setVolume),
            installVolumeView: tap("systemVolume.installVolumeView", systemVolume.installVolumeView),
            hasVolumeControl: tap("systemVolume.hasVolumeControl", systemVolume.hasVolumeControl))
        clients.audioSession = AudioSessionClient(
            configuration: tap("audioSession.configuration", audioSession.configuration),
            setConfiguration: tap("audioSession.setConfiguration", audioSession.setConfiguration),
            setActive: tap("audioSession.setActive", audioSession.setActive),
            isOtherAudioPlaying: tap("audioSession.isOtherAudioPlaying", audioSession.isOtherAudioPlaying),
            currentRoute: tap("audioSession.currentRoute", audioSession.currentRoute),
            primeOutput: tap("audioSession.primeOutput", audioSession.primeOutput),
            currentOutputs: tap("audioSession.currentOutputs", audioSession.currentOutputs))
        clients.audioSession.secondaryAudioShouldBeSilencedHint = tap(
            "audioSession.secondaryAudioShouldBeSilencedHint", audioSession.secondaryAudioShouldBeSilencedHint)
        clients.lifecycle = AppLifecycleClient(
            state: tap("lifecycle.state", lifecycle.state),
            observe: tap("lifecycle.observe", lifecycle.observe),
            lastRouteChange: tap("lifecycle.lastRouteChange", lifecycle.lastRouteChange),
            lastInterruption: tap("lifecycle.lastInterruption", lifecycle.lastInterruption),
            observeWithheldInterruptions: tap(
                "lifecycle.observeWithheldInterruptions", lifecycle.observeWithheldInterruptions))
        clients.systemSounds = SystemSoundClient(
            create: tap("systemSounds.create", systemSounds.create),
            play: tap("systemSounds.play", systemSounds.play),
            setIsUISound: tap("systemSounds.setIsUISound", systemSounds.setIsUISound),
            dispose: tap("systemSounds.dispose", systemSounds.dispose))
        clients.keyValueStore = KeyValueStoreClient(
            data: tap("keyValueStore.data", keyValueStore.data),
            setData: tap("keyValueStore.setData", keyValueStore.setData))
        clients.captureEvents = CaptureEventClient(
            isAvailable: tap("captureEvents.isAvailable", captureEvents.isAvailable),
            observe: tap("captureEvents.observe", captureEvents.observe))
        clients.diagnosticObserver = tap("diagnosticObserver", diagnosticObserver)
        return clients
    }
}

/// Wraps a closure so that it reports its name before it runs: one shape per arity the clients use.
private struct CallTap: Sendable {
    let onCall: @Sendable (String) -> Void

    func callAsFunction<Result>(_ name: String, _ body: @escaping @Sendable () -> Result) -> @Sendable () -> Result {
        { [onCall] in
            onCall(name)
            return body()
        }
    }

    func callAsFunction<A, Result>(_ name: String, _ body: @escaping @Sendable (A) -> Result)
        -> @Sendable (A) -> Result
    {
        { [onCall] a in
            onCall(name)
            return body(a)
        }
    }

    func callAsFunction<A, Result>(_ name: String, _ body: @escaping @Sendable (A) throws -> Result)
        -> @Sendable (A) throws -> Result
    {
        { [onCall] a in
            onCall(name)
            return try body(a)
        }
    }

    func callAsFunction<A, B, Result>(_ name: String, _ body: @escaping @Sendable (A, B) -> Result)
        -> @Sendable (A, B) -> Result
    {
        { [onCall] a, b in
            onCall(name)
            return body(a, b)
        }
    }

    func callAsFunction<A, B, Result>(_ name: String, _ body: @escaping @Sendable (A, B) throws -> Result)
        -> @Sendable (A, B) throws -> Result
    {
        { [onCall] a, b in
            onCall(name)
            return try body(a, b)
        }
    }

    func callAsFunction<A, B, C, Result>(_ name: String, _ body: @escaping @Sendable (A, B, C) -> Result)
        -> @Sendable (A, B, C) -> Result
    {
        { [onCall] a, b, c in
            onCall(name)
            return body(a, b, c)
        }
    }
}
