import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The system as a trace remembers it, in virtual time: clients that deliver the trace's recorded inputs
/// (KVO, notifications, lifecycle, capture events, view readiness, sound completions) at their recorded
/// times, answer the app's reads with the recorded answers, and keep what the app asks of them now (its
/// sets) for comparison.
///
/// Inputs go to subscribers by order: the k-th subscription the app makes now on a channel receives what
/// the k-th recorded subscription on that channel received; the same holds for volume views and sound plays.
/// A read is answered with the recorded read of the same kind at the same instant, or else the latest one
/// recorded before it — the truth as last seen.
final class TraceReplayWorld: @unchecked Sendable {
    private typealias Delivery = (TraceEvent) -> Void

    private struct Subscription {
        var deliver: Delivery
        var active = true
    }

    private struct View {
        var onReady: @Sendable () -> Void
        var installed: Bool
    }

    private struct Reading {
        let time: Instant
        let value: TraceReading
    }

    private let lock = PosixLock(recursive: true)
    private var timeline = Timeline()
    /// The recorded inputs in file order, delivered by ``run(until:)`` as their times come (kept apart from
    /// the timeline, whose sorted insert would make a long trace quadratic).
    private var inputs: [(time: Instant, order: Int, event: TraceEvent, afterOwnWork: Bool)] = []
    private var nextInput = 0
    /// The app's calls the trace recorded (start, stop), with their place in the file, in time order.
    private var calls: [(time: Instant, order: Int, action: () -> Void)] = []
    private var nextCall = 0
    private var currentTime: Instant
    let trace: Trace
    let origin: Instant

    /// The place of each recorded observer among its channel's recorded subscriptions (its first one), of
    /// each recorded view among the recorded views, of each recorded play among the recorded plays: a
    /// delivery finds its subscriber in constant time, however many runs the trace holds.
    private var recordedObservers: [TraceChannel: [Int: Int]] = [:]
    private var recordedSubscriptionCounts: [TraceChannel: Int] = [:]
    private var subscriptions: [TraceChannel: [Subscription]] = [:]
    private var recordedViews: [Int: Int] = [:]
    private var recordedViewCount = 0
    private var views: [View] = []
    private var recordedPlays: [Int: Int] = [:]
    private var recordedPlayCount = 0
    private var completions: [(@Sendable () -> Void)?] = []
    private var reads: [String: [Reading]] = [:]
    private var readCursor: [String: Int] = [:]
    private var lastRead: [String: TraceReading] = [:]
    private var recordedActivations: [String?] = []
    private var recordedCategories: [String?] = []
    private var recordedCreates: [(SystemSoundID?, Int32?)] = []
    private var activations = 0
    private var categoryChanges = 0
    private var creates = 0
    private var written: [String: Data?] = [:]
    private var lastVolume: Float?
    private var configuration: AudioSessionConfiguration

    /// The sets the app made now, with their clock times.
    private(set) var sets: [(time: Instant, value: Float)] = []
    /// Recorded inputs that found no subscriber, view or play now.
    private(set) var undelivered = 0
    /// The work scheduling the recorded calls took: one step per comparison of two calls' places
    /// in time. Linear in the number of calls for calls scheduled in file order (the tests check it).
    private(set) var schedulingSteps = 0
    /// The time of the last record.
    let endTime: Instant
    /// The clock time at which ``run(until:)`` stopped for good because timers kept firing at one instant
    /// (see ``maximumTimersPerInstant``), or `nil`.
    private(set) var stalledAt: Instant?

    /// The most timers ``run(until:)`` runs one after another at one clock time, with no recorded input or
    /// call between them, before it stops the replay: an engine's deadline `now + delay` that rounds to `now`
    /// (at 2^53 s, `now + 0.1 == now`) is a timer of delay 0 that fires at its own instant forever, which held
    /// the replay with ever more memory. The decoder refuses such times
    /// (``/VolumeKitCore/Trace/latestTime``); this bound makes the loop end for any trace and any engine. A
    /// real instant runs a handful of timers.
    static let maximumTimersPerInstant = 100_000

    /// A world for the records of `feature` (and untagged ones) of `trace`.
    init(trace: Trace, feature: String?) {
        self.trace = trace
        origin = trace.header.clockOrigin
        currentTime = origin
        configuration = trace.header.session
        endTime = origin + (trace.records.last?.time ?? 0)
        // `order` is the record's place in the whole file: at equal times it orders inputs and the app's calls.
        // The app's own work (a read, a set, an event) recorded at an input's very time but before it, with no
        // input or call before it at that time, was a timer of the app's that ran first: see `run(until:)`.
        var ownWorkAt: Instant?
        var lastInputAt: Instant?
        for (order, record) in trace.records.enumerated()
        where feature == nil || record.feature == nil || record.feature == feature {
            let time = origin + record.time
            switch record.event {
            case .outputVolume, .systemNotification, .lifecycle, .captureEvent, .volumeViewReady, .soundCompleted:
                inputs.append((time, order, record.event, ownWorkAt == time))
                ownWorkAt = nil
                lastInputAt = time
            case .app, .gesture, .mark, .interruptionDetails:
                // Not the app's own work: an annotation, or what the system said (a withheld interruption).
                lastInputAt = time
            default:
                if lastInputAt != time { ownWorkAt = time }
            }
            switch record.event {
            case .subscribed(let channel, let observer):
                let place = recordedSubscriptionCounts[channel, default: 0]
                recordedSubscriptionCounts[channel] = place + 1
                if recordedObservers[channel]?[observer] == nil {
                    recordedObservers[channel, default: [:]][observer] = place
                }
            case .volumeViewInstalled(let view):
                if recordedViews[view] == nil { recordedViews[view] = recordedViewCount }
                recordedViewCount += 1
            case .soundStarted(_, _, let play):
                if recordedPlays[play] == nil { recordedPlays[play] = recordedPlayCount }
                recordedPlayCount += 1
            case .setActive(_, _, let error): recordedActivations.append(error)
            case .setCategory(_, let error): recordedCategories.append(error)
            case .soundCreated(_, let sound, let status): recordedCreates.append((sound, status))
            case .read(let reading): reads[Self.kind(reading), default: []].append(Reading(time: time, value: reading))
            default: break
            }
        }
    }

    private static func kind(_ reading: TraceReading) -> String {
        switch reading {
        case .outputVolume: "outputVolume"
        case .route: "route"
        case .appState: "appState"
        case .configuration: "configuration"
        case .otherAudioPlaying: "otherAudioPlaying"
        case .captureAvailable: "captureAvailable"
        case .secondaryAudioShouldBeSilencedHint: "secondaryAudioShouldBeSilencedHint"
        case .stored(let key, _): "stored:" + key
        }
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: - Time

    var now: Instant { locked { currentTime } }

    /// Schedules the app's call recorded as the `order`-th record of the trace at the clock time `time`: at
    /// equal times, inputs and calls run in the order the file has them (an input recorded after the call
    /// reached the subscription the call made).
    ///
    /// Calls scheduled in file order (as ``TraceReplay`` does) are appended after one comparison; any other is
    /// placed by a binary search of the calls still pending, so a trace of many `app` records replays in
    /// linear time.
    func at(_ time: Instant, order: Int, _ action: @escaping () -> Void) {
        locked {
            let key = (time, order)
            var low = nextCall
            var high = calls.count
            if let last = calls.last, low < high {
                schedulingSteps += 1
                if (last.time, last.order) <= key { low = high }
            }
            // The first pending call placed after `key`: equal places keep the order they were scheduled in.
            while low < high {
                let middle = (low + high) / 2
                schedulingSteps += 1
                if (calls[middle].time, calls[middle].order) > key { high = middle } else { low = middle + 1 }
            }
            calls.insert((time, order, action), at: low)
        }
    }

    /// Runs everything due up to `time`, in order; at equal times recorded inputs and the app's recorded calls
    /// run in file order, before the app's own timers — except an input the app's own work preceded at that
    /// very time in the file (a timer of the app's that came first there: an echo expiring on the very
    /// instant of a hold's repeat, say), which waits for the timers due then.
    ///
    /// It always ends: inputs and calls are finite, and after ``maximumTimersPerInstant`` timers in a row at
    /// one clock time it stops for good, setting ``stalledAt``.
    func run(until time: Instant) {
        guard locked({ stalledAt == nil }) else { return }
        var timersInARow = 0
        while true {
            let next: (time: Instant, isTimer: Bool, action: () -> Void)? = locked {
                let input = nextInput < inputs.count ? inputs[nextInput] : nil
                let call = nextCall < calls.count ? calls[nextCall] : nil
                let timer = timeline.nextTime ?? .infinity
                // The earliest of the next input and the next call, by (time, place in the file).
                if let input, input.time <= time, input.time < timer || (input.time == timer && !input.afterOwnWork),
                    call.map({ (input.time, input.order) < ($0.time, $0.order) }) ?? true
                {
                    nextInput += 1
                    return (input.time, false, { [unowned self] in self.deliver(input.event) })
                }
                if let call, call.time <= time, call.time <= timer {
                    nextCall += 1
                    return (call.time, false, call.action)
                }
                return timeline.popDue(notAfter: time).map { ($0.0, true, $0.1) }
            }
            guard let next else { break }
            let moved = locked { () -> Bool in
                defer { currentTime = max(currentTime, next.time) }
                return next.time > currentTime
            }
            timersInARow = next.isTimer && !moved ? timersInARow + 1 : 0
            if timersInARow > Self.maximumTimersPerInstant {
                locked { stalledAt = currentTime }
                return
            }
            next.action()
        }
        locked { currentTime = max(currentTime, time) }
    }

    /// When a timer set now for `delay` seconds is due: at the clock time the app computes, `now + delay`,
    /// but never at `now` itself for a positive delay. Where a `Double`'s step is larger than the delay (at
    /// 2^53 s, `now + 0.1 == now`) a repeating timer would otherwise fire at its own instant forever and hold
    /// the replay with ever more memory; the decoder refuses such times
    /// (``/VolumeKitCore/Trace/latestTime``), and this keeps the world moving for a trace made in code.
    private func due(after delay: TimeInterval) -> Instant {
        guard delay > 0 else { return currentTime }
        return max(currentTime + delay, currentTime.nextUp)
    }

    // MARK: - Inputs

    private func deliver(_ event: TraceEvent) {
        let target: (() -> Void)? = locked {
            switch event {
            case .outputVolume(let value, let observer):
                lastVolume = value
                return subscriber(.outputVolume, observer).map { deliver in { deliver(event) } }
            case .systemNotification(_, let observer):
                return subscriber(.systemNotifications, observer).map { deliver in { deliver(event) } }
            case .lifecycle(_, let observer):
                return subscriber(.lifecycle, observer).map { deliver in { deliver(event) } }
            case .captureEvent(_, let observer):
                return subscriber(.captureEvents, observer).map { deliver in { deliver(event) } }
            case .volumeViewReady(let view):
                guard let index = recordedViews[view], index < views.count, views[index].installed else {
                    return nil
                }
                let onReady = views[index].onReady
                return { onReady() }
            case .soundCompleted(let play):
                guard let index = recordedPlays[play], index < completions.count,
                    let completion = completions[index]
                else { return nil }
                completions[index] = nil
                return { completion() }
            default:
                return nil
            }
        }
        if let target { target() } else { locked { undelivered += 1 } }
    }

    private func subscriber(_ channel: TraceChannel, _ observer: Int) -> Delivery? {
        guard let index = recordedObservers[channel]?[observer],
            let subscription = subscriptions[channel]?[safe: index], subscription.active
        else { return nil }
        return subscription.deliver
    }

    private func subscribe(_ channel: TraceChannel, _ deliver: @escaping Delivery) -> CancellationHandle {
        let index = locked { () -> Int in
            subscriptions[channel, default: []].append(Subscription(deliver: deliver))
            return subscriptions[channel]!.count - 1
        }
        return CancellationHandle { [unowned self] in self.locked { self.subscriptions[channel]?[index].active = false }
        }
    }

    // MARK: - Reads

    /// The recorded answer of `kind` for a read now.
    private func answer(_ kind: String) -> TraceReading? {
        locked {
            let list = reads[kind] ?? []
            var index = readCursor[kind] ?? 0
            // "The same instant": a nanosecond, or a few steps of a `Double` at this clock time, whichever is
            // larger — a timer's `now + delay` and a recorded `clockOrigin + t` round apart by a step or two
            // (at a clock origin of 6.8e7 s a step is 15 ns, and reads recorded at a timer's instant were missed).
            let epsilon = max(1e-9, 4 * currentTime.ulp)
            while index < list.count, list[index].time < currentTime - epsilon {
                lastRead[kind] = list[index].value
                index += 1
            }
            if index < list.count, list[index].time <= currentTime + epsilon {
                lastRead[kind] = list[index].value
                readCursor[kind] = index + 1
                return list[index].value
            }
            readCursor[kind] = index
            return lastRead[kind] ?? list.first?.value
        }
    }

    // MARK: - The clients

    /// Clients backed by this world (with a session lease of their own): make them once per replay.
    func makeClients() -> VolumeKitClients {
        let header = trace.header
        return VolumeKitClients(
            device: {
                // The recorded model: a calibration the run read from its store is the one replayed.
                var device = DeviceInfo(osVersion: header.osVersion, kind: header.deviceKind)
                device.modelIdentifier = header.deviceModel
                return device
            }(),
            clock: ClockClient(
                now: { [unowned self] in self.now },
                schedule: { [unowned self] delay, action in
                    let id = self.locked { self.timeline.schedule(at: self.due(after: delay)) { action() } }
                    return CancellationHandle { [unowned self] in self.locked { self.timeline.cancel(id) } }
                }
            ),
            systemVolume: SystemVolumeClient(
                outputVolume: { [unowned self] in
                    if case .outputVolume(let value)? = self.answer("outputVolume") { return value }
                    return self.locked { self.lastVolume ?? 0.5 }
                },
                observeOutputVolume: { [unowned self] handler in
                    self.subscribe(.outputVolume) { if case .outputVolume(let value, _) = $0 { handler(value) } }
                },
                observeSystemNotifications: { [unowned self] handler in
                    self.subscribe(.systemNotifications) {
                        if case .systemNotification(let value, _) = $0 { handler(value) }
                    }
                },
                setVolume: { [unowned self] value in self.locked { self.sets.append((self.currentTime, value)) } },
                installVolumeView: { [unowned self] onReady in
                    let index = self.locked { () -> Int in
                        self.views.append(View(onReady: onReady, installed: true))
                        return self.views.count - 1
                    }
                    return CancellationHandle { [unowned self] in self.locked { self.views[index].installed = false } }
                }
            ),
            audioSession: AudioSessionClient(
                configuration: { [unowned self] in
                    if case .configuration(let value)? = self.answer("configuration") { return value }
                    return self.locked { self.configuration }
                },
                setConfiguration: { [unowned self] configuration in
                    let error = self.locked { () -> String? in
                        defer { self.categoryChanges += 1 }
                        return self.recordedCategories[safe: self.categoryChanges] ?? nil
                    }
                    if let error { throw TraceReplayError.recordedFailure(error) }
                    self.locked { self.configuration = configuration }
                },
                setActive: { [unowned self] _, _ in
                    let error = self.locked { () -> String? in
                        defer { self.activations += 1 }
                        return self.recordedActivations[safe: self.activations] ?? nil
                    }
                    if let error { throw TraceReplayError.recordedFailure(error) }
                },
                isOtherAudioPlaying: { [unowned self] in
                    if case .otherAudioPlaying(let value)? = self.answer("otherAudioPlaying") { return value }
                    return false
                },
                currentRoute: { [unowned self] in
                    if case .route(let value)? = self.answer("route") { return value }
                    return .speaker
                },
                primeOutput: {}
            ).answeringHint { [unowned self] in
                if case .secondaryAudioShouldBeSilencedHint(let value)? = self.answer(
                    "secondaryAudioShouldBeSilencedHint")
                {
                    return value
                }
                return false
            },
            lifecycle: AppLifecycleClient(
                state: { [unowned self] in
                    if case .appState(let value)? = self.answer("appState") { return value }
                    return .active
                },
                observe: { [unowned self] handler in
                    self.subscribe(.lifecycle) { if case .lifecycle(let value, _) = $0 { handler(value) } }
                }
            ),
            systemSounds: SystemSoundClient(
                create: { [unowned self] _ in
                    let recorded = self.locked { () -> (SystemSoundID?, Int32?)? in
                        defer { self.creates += 1 }
                        return self.recordedCreates[safe: self.creates]
                    }
                    if let status = recorded?.1 { throw SystemSoundError(status: status) }
                    return recorded?.0 ?? 4096
                },
                play: { [unowned self] _, _, completion in self.locked { self.completions.append(completion) } },
                setIsUISound: { _, _ in },
                dispose: { _ in }
            ),
            keyValueStore: KeyValueStoreClient(
                data: { [unowned self] key in
                    if let data = self.locked({ self.written[key] }) { return data }
                    if case .stored(_, let data)? = self.answer("stored:" + key) { return data }
                    return nil
                },
                setData: { [unowned self] data, key in self.locked { self.written[key] = .some(data) } }
            ),
            captureEvents: CaptureEventClient(
                isAvailable: { [unowned self] in
                    if case .captureAvailable(let value)? = self.answer("captureAvailable") { return value }
                    return false
                },
                observe: { [unowned self] handler in
                    self.subscribe(.captureEvents) { if case .captureEvent(let value, _) = $0 { handler(value) } }
                }
            ),
            sessionLease: AudioSessionLease()
        )
    }
}

extension AudioSessionClient {
    /// The same client, with `hint` as its `secondaryAudioShouldBeSilencedHint`.
    fileprivate func answeringHint(_ hint: @escaping @Sendable () -> Bool) -> AudioSessionClient {
        var client = self
        client.secondaryAudioShouldBeSilencedHint = hint
        return client
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
