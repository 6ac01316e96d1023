import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a renderer's subscription loop should act now.
enum SubscriptionWake: Sendable, Hashable {
    /// Half the granted time has passed: renew.
    case renew
    /// The device announced itself and we cannot tell whether it restarted: renew now (a restarted device
    /// refuses the renewal, and then we subscribe afresh and re-read).
    case check
    /// The device restarted (SSDP) or we missed events (a `SEQ` gap): subscribe afresh and re-read.
    case resync
    /// The stream ended.
    case stop
}

/// A set of pending wake-up reasons and one waiter: signals coalesce, so a flood of them costs a set of
/// four cases, never a queue.
final class WakeSignal: Sendable {
    private let state = Locked<
        (pending: Set<SubscriptionWake>, waiter: CheckedContinuation<Set<SubscriptionWake>, Never>?)
    >(([], nil))

    func signal(_ reason: SubscriptionWake) {
        let resume = state.withLock {
            state -> (CheckedContinuation<Set<SubscriptionWake>, Never>, Set<SubscriptionWake>)? in
            state.pending.insert(reason)
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            defer { state.pending = [] }
            return (waiter, state.pending)
        }
        if let (waiter, reasons) = resume { waiter.resume(returning: reasons) }
    }

    /// The reasons signalled since the last call, waiting for one if there are none.
    func next() async -> Set<SubscriptionWake> {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Set<SubscriptionWake>? in
                guard state.pending.isEmpty else {
                    defer { state.pending = [] }
                    return state.pending
                }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The reasons signalled since the last call, without waiting.
    func drain() -> Set<SubscriptionWake> {
        state.withLock { state in
            defer { state.pending = [] }
            return state.pending
        }
    }
}

/// Checks the `SEQ` numbers of one subscription's events (UDA 1.1 §4.2.1: 0 for the initial event, then one
/// more per event, wrapping from 4,294,967,295 to 1). Pure, for tests.
struct EventSequence: Sendable, Equatable {
    /// What an event's number says.
    enum Verdict: Sendable, Equatable {
        /// The next one, the initial one, or one we do not check (another SID, no `SEQ`).
        case inOrder
        /// Events were missed: what we know may be stale, re-read.
        case gap
        /// An older or repeated number (a late event, or a device that numbers sloppily): no re-read.
        case stale
    }

    private(set) var sid: String?
    private(set) var last: UInt32?

    /// A subscription was granted: its events are checked from now on.
    mutating func subscribed(_ sid: String) {
        guard sid != self.sid else { return }
        self.sid = sid
        last = nil
    }

    mutating func note(sid: String?, seq: UInt32?) -> Verdict {
        guard let seq, let sid, sid == self.sid else { return .inOrder }
        guard seq != 0, let last else {
            last = seq
            return .inOrder
        }
        let expected: UInt32 = last == .max ? 1 : last + 1
        if seq == expected {
            self.last = seq
            return .inOrder
        }
        // Ahead of the expected number (by less than half the number space): missed events.
        if seq &- expected < 1 << 31 {
            self.last = seq
            return .gap
        }
        return .stale
    }
}

extension UPnPRenderer {
    /// The shortest time between two re-subscriptions caused by SSDP announcements or `SEQ` gaps: a device
    /// (or a forger) flooding announcements with new boot ids costs at most three requests per interval.
    static let minimumResyncInterval: TimeInterval = 1

    /// ``changes()`` watching announcements on `announcements` (`nil`: none; tests: a loopback port).
    func changes(
        announcements: (host: String, port: UInt16)?,
        minimumResyncInterval: TimeInterval = UPnPRenderer.minimumResyncInterval
    ) async throws -> AsyncStream<RemoteVolumeChange>? {
        guard let eventURL = description.eventURL else { return nil }
        let (stream, continuation) = AsyncStream<RemoteVolumeChange>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let range = volumeRange
        // Listen only on the address that reaches the device, not on every interface.
        let localHost: String
        do {
            localHost = try Socket.localAddress(toward: UPnPURL.host(of: eventURL), port: UInt16(eventURL.port ?? 80))
        } catch {
            continuation.finish()
            throw error.asRemoteVolumeError
        }
        let wake = WakeSignal()
        let sequence = Locked(EventSequence())
        let listener = try GENAListener(host: localHost) { change in
            // A gap means events were missed: re-read. A repeated or older number is still believed: devices
            // that number sloppily (always 1, or 0) must not lose their events.
            if sequence.withLock({ $0.note(sid: change.sid, seq: change.seq) }) == .gap { wake.signal(.resync) }
            // A volume outside the declared range is not believed; the mute state still is.
            let volume = change.volume.flatMap { range.contains($0) ? $0 : nil }
            guard volume != nil || change.muted != nil else { return }
            continuation.yield(
                RemoteVolumeChange(volume: volume, muted: change.muted, isInitialState: change.isInitial))
        }
        listener.start()
        let shownHost = localHost.contains(":") ? "[\(localHost)]" : localHost
        let callback = "http://\(shownHost):\(listener.port)\(listener.path)"
        listener.subscribing()
        let first: GENA.Subscription
        do {
            first = try await GENA.subscribe(
                eventURL, callback: callback, timeout: subscriptionTimeout, requestTimeout: requestTimeout)
            listener.subscribed(sid: first.sid)
            sequence.withLock { $0.subscribed(first.sid) }
        } catch {
            listener.subscribed(sid: nil)
            listener.stop()
            continuation.finish()
            throw error.asRemoteVolumeError
        }
        // The device's own announcements: a restart is noticed when it comes back, not at the next renewal.
        // Without them (no multicast: another app holds the port, no entitlement) renewals still recover.
        var watcher: SSDPAnnouncementListener?
        if let announcements, !description.udn.isEmpty {
            let presence = Locked(DevicePresence(udn: description.udn))
            watcher = try? SSDPAnnouncementListener(
                group: announcements, interfaceAddress: localHost.contains(":") ? nil : localHost
            ) { announcement in
                switch presence.withLock({ $0.note(announcement) }) {
                case .none: break
                case .check: wake.signal(.check)
                case .restarted: wake.signal(.resync)
                }
            }
            watcher?.start()
        }
        let current = Locked(first)
        let loop = Task {
            await self.followSubscription(
                eventURL: eventURL, callback: callback, current: current, wake: wake,
                listener: listener, sequence: sequence, minimumResyncInterval: minimumResyncInterval,
                continuation: continuation)
        }
        let requestTimeout = self.requestTimeout
        let presenceWatcher = watcher
        continuation.onTermination = { _ in
            loop.cancel()
            wake.signal(.stop)
            listener.stop()
            presenceWatcher?.stop()
            let sid = current.current.sid
            Task { try? await GENA.unsubscribe(eventURL, sid: sid, requestTimeout: requestTimeout) }
        }
        return stream
    }

    /// Keeps the subscription alive until the stream ends: renews at half the granted time; subscribes
    /// afresh and re-reads volume and mute when a renewal fails, the device restarted or events were missed.
    private func followSubscription(
        eventURL: URL, callback: String, current: Locked<GENA.Subscription>, wake: WakeSignal, listener: GENAListener,
        sequence: Locked<EventSequence>, minimumResyncInterval: TimeInterval,
        continuation: AsyncStream<RemoteVolumeChange>.Continuation
    ) async {
        func renewal(after seconds: Int) -> Task<Void, Never> {
            Task {
                try? await Task.sleep(nanoseconds: UInt64(seconds) * 1_000_000_000)
                if !Task.isCancelled { wake.signal(.renew) }
            }
        }
        // Timeouts are clamped to GENA.minTimeout…maxTimeout when read, so this cannot overflow.
        var timer = renewal(after: max(2, current.current.timeout / 2))
        defer { timer.cancel() }
        var nextTriggerAllowed = Deadline(in: 0)
        while !Task.isCancelled {
            var reasons = await wake.next()
            if reasons.contains(.stop) || Task.isCancelled { return }
            if !reasons.contains(.renew) {
                // Caused by the device's announcements or event numbers: at most one action per interval.
                let wait = nextTriggerAllowed.remainingSeconds
                if wait > 0 {
                    try? await Task.sleep(nanoseconds: UInt64(wait * 1e9))
                    reasons.formUnion(wake.drain())
                    if reasons.contains(.stop) || Task.isCancelled { return }
                }
                nextTriggerAllowed = Deadline(in: minimumResyncInterval)
            }
            var fresh = reasons.contains(.resync)
            if !fresh {
                if let renewed = try? await GENA.renew(
                    eventURL, sid: current.current.sid, timeout: subscriptionTimeout, requestTimeout: requestTimeout)
                {
                    listener.subscribed(sid: renewed.sid)
                    sequence.withLock { $0.subscribed(renewed.sid) }
                    current.withLock { $0 = renewed }
                } else {
                    fresh = true  // Refused (the device forgot us: it restarted) or away.
                }
            }
            if fresh {
                listener.subscribing()
                if let subscription = try? await GENA.subscribe(
                    eventURL, callback: callback, timeout: subscriptionTimeout, requestTimeout: requestTimeout)
                {
                    listener.subscribed(sid: subscription.sid)
                    sequence.withLock { $0.subscribed(subscription.sid) }
                    current.withLock { $0 = subscription }
                    // Re-read at once: the device may be at another level, and the mute label may be stale.
                    let volume = try? await self.volume()
                    let muted = try? await self.isMuted()
                    if !Task.isCancelled, volume != nil || muted != nil {
                        continuation.yield(RemoteVolumeChange(volume: volume, muted: muted, isInitialState: true))
                    }
                } else {
                    listener.subscribed(sid: nil)
                    current.withLock { $0.timeout = GENA.minTimeout }  // The device is away: try again soon.
                }
            }
            timer.cancel()
            timer = renewal(after: max(2, current.current.timeout / 2))
        }
    }
}
