import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SimulatedDevice {
    /// The clients an app running on this device gets, bound to the app's current process: after
    /// ``crash()`` and ``launch()``, read them again (an old process's clients do nothing, like a dead app).
    public var clients: VolumeKitClients {
        let launched = locked { currentGeneration }
        var device = DeviceInfo(
            osVersion: configuration.osVersion, kind: configuration.kind, bootTime: locked { bootWallTime })
        device.modelIdentifier = Self.modelIdentifier
        return VolumeKitClients(
            device: device,
            clock: clock,
            systemVolume: systemVolumeClient(launched),
            audioSession: audioSessionClient(launched),
            lifecycle: lifecycleClient(launched),
            systemSounds: systemSoundClient(launched),
            keyValueStore: keyValueStore,
            captureEvents: captureEventClient(launched),
            sessionLease: locked { app?.sessionLease ?? AudioSessionLease() },
            holdBoard: locked { app?.holdBoard ?? VolumeHoldBoard() }
        )
    }

    /// The model identifier the simulated device reports (its trace header's `deviceModel`): a calibration
    /// learned here is kept under it, apart from any iPhone's.
    public static let modelIdentifier = "simulator"

    /// Virtual time: `now` is the device's clock and scheduled actions run as ``advance(by:)`` passes them.
    public var clock: ClockClient {
        ClockClient(
            now: { [unowned self] in self.now },
            schedule: { [unowned self] delay, action in
                let id = self.locked { self.inApp(after: delay) { action() } }
                return CancellationHandle { [unowned self] in self.cancelScheduled(id) }
            }
        )
    }

    /// The persistent store (`UserDefaults` on a device): it survives ``crash()`` and ``launch()``.
    public var keyValueStore: KeyValueStoreClient {
        KeyValueStoreClient(
            data: { [unowned self] key in self.storedValue(key) },
            setData: { [unowned self] data, key in self.store(data, key) }
        )
    }

    /// Adds an `MPVolumeView` with explicit visibility, to check the HUD suppression rule itself.
    /// The client's `installVolumeView` adds a visible one (alpha 0.01, not hidden, in the active scene).
    @discardableResult
    public func addVolumeView(alpha: Float = 0.01, hidden: Bool = false, inActiveSceneWindow: Bool = true)
        -> CancellationHandle
    {
        let launched = locked { currentGeneration }
        guard
            let id = locked({
                appInstallVolumeView(
                    alpha: alpha, hidden: hidden, inActiveSceneWindow: inActiveSceneWindow, onReady: nil)
            })
        else { return .none }
        return CancellationHandle { [unowned self] in self.removeVolumeView(id, launched) }
    }

    private func systemVolumeClient(_ launched: Int) -> SystemVolumeClient {
        SystemVolumeClient(
            outputVolume: { [unowned self] in self.locked { self.appOutputVolume() } },
            observeOutputVolume: { [unowned self] handler in
                self.addObserver(launched, \.volumeObservers, handler)
            },
            observeSystemNotifications: { [unowned self] handler in
                self.addObserver(launched, \.notificationObservers, handler)
            },
            setVolume: { [unowned self] value in
                self.locked { if self.isCurrent(launched) { self.appSetVolume(value) } }
            },
            installVolumeView: { [unowned self] onReady in
                guard
                    let id = self.locked({ () -> Int? in
                        guard self.isCurrent(launched) else { return nil }
                        return self.appInstallVolumeView(
                            alpha: 0.01, hidden: false, inActiveSceneWindow: true, onReady: onReady)
                    })
                else { return .none }
                return CancellationHandle { [unowned self] in self.removeVolumeView(id, launched) }
            },
            hasVolumeControl: { [unowned self] in self.locked { self.routeHasVolumeControl } }
        )
    }

    private func audioSessionClient(_ launched: Int) -> AudioSessionClient {
        AudioSessionClient(
            configuration: { [unowned self] in self.locked { self.app?.configuration ?? .systemDefault } },
            setConfiguration: { [unowned self] configuration in
                try self.locked {
                    guard self.isCurrent(launched) else { throw SimulatedDeviceError.appNotRunning }
                    try self.appSetConfiguration(configuration)
                }
            },
            setActive: { [unowned self] active, notifyOthers in
                try self.locked {
                    guard self.isCurrent(launched) else { throw SimulatedDeviceError.appNotRunning }
                    try self.appSetActive(active, notifyOthers: notifyOthers)
                }
            },
            isOtherAudioPlaying: { [unowned self] in self.isOtherAudioPlaying },
            currentRoute: { [unowned self] in self.route },
            primeOutput: { [unowned self] in
                self.locked {
                    guard self.isCurrent(launched) else { return }
                    self.app?.hasPlayedAudio = true
                    // The primer's silent sound plays for a moment (AudioSessionClient.primerDuration).
                    self.app?.primingUntil = self.currentTime + AudioSessionClient.primerDuration
                }
            },
            currentOutputs: { [unowned self] in self.locked { self.outputs(of: self.currentRoute) } }
        )
    }

    private func lifecycleClient(_ launched: Int) -> AppLifecycleClient {
        AppLifecycleClient(
            state: { [unowned self] in self.appState ?? .background },
            observe: { [unowned self] handler in self.addObserver(launched, \.lifecycleObservers, handler) },
            lastRouteChange: { [unowned self] in self.locked { self.lastRouteChange } },
            lastInterruption: { [unowned self] in self.locked { self.lastInterruption } },
            observeWithheldInterruptions: { [unowned self] handler in
                self.addObserver(launched, \.withheldInterruptionObservers, handler)
            }
        )
    }

    private func captureEventClient(_ launched: Int) -> CaptureEventClient {
        CaptureEventClient(
            // The interaction exists from iOS 17.2; whether events arrive also depends on a running camera
            // (``DeviceBehaviour/captureEventsGate``), which the app cannot ask about.
            isAvailable: { [unowned self] in self.configuration.osVersion >= Self.captureEventsSince },
            observe: { [unowned self] handler in self.addObserver(launched, \.captureObservers, handler) }
        )
    }

    private func addObserver<Handler>(
        _ launched: Int,
        _ keyPath: WritableKeyPath<AppProcess, [Int: Handler]>,
        _ handler: Handler
    ) -> CancellationHandle {
        locked {
            guard isCurrent(launched) else { return .none }
            let id = newObserverID()
            app?[keyPath: keyPath][id] = handler
            // Key paths into the device's own state, used under its lock only.
            nonisolated(unsafe) let path = keyPath
            return CancellationHandle { [unowned self] in
                self.locked { if self.isCurrent(launched) { self.app?[keyPath: path][id] = nil } }
            }
        }
    }

    private func removeVolumeView(_ id: Int, _ launched: Int) {
        locked { if isCurrent(launched) { app?.volumeViews[id] = nil } }
    }

    private func cancelScheduled(_ id: Int) {
        locked { cancelTimeline(id) }
    }
}
