import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The pure logic that keeps a network device's volume in step with button presses.
///
/// Seed 000: the phone's volume keys drive the volume of *remote* hardware. A press must move the speaker
/// fast and exactly, yet a burst of presses must not become a queue of one request per press on a slow
/// network. So the machine keeps **at most one request in flight plus the latest wanted level**: presses
/// only move the wanted level, and when the device is free (and at least ``Configuration/minimumInterval``
/// after the previous send) the *latest* wanted level is sent.
///
/// It also keeps an **optimistic level** for the HUD (what the device will be at once the pending requests
/// land), **reconciles** with levels the device reports (a report that is an echo of an older request of
/// ours never undoes newer presses; anything else is verified with a read once the burst has settled),
/// **retries** transient failures with exponential backoff, and gives up with a typed error after
/// ``Configuration/maxAttempts``.
///
/// Like every VolumeKit machine it never reads a clock or does I/O: each input carries its instant and each
/// input returns the ``Action``s a driver (``RemoteVolumeController``) must carry out.
public struct RemoteVolumeSync: Sendable, Equatable {
    /// How the machine behaves.
    public struct Configuration: Sendable, Equatable {
        /// Levels the device accepts; every wanted level is clamped to it.
        public var range: ClosedRange<Int>
        /// Device units one press moves.
        public var step: Int
        /// The shortest time between two SetVolume requests, in seconds. The first press of a quiet spell is
        /// sent at once; later presses of a burst are coalesced into one request per interval. 0.1 s keeps a
        /// 16-press / 400 ms burst to at most 5 requests while no press waits more than ≈ 0.1 s for its
        /// request (0.2 s would keep it to 3, but a press would then wait up to 0.2 s, and that is felt).
        public var minimumInterval: TimeInterval
        /// Attempts per wanted level before giving up (the first send counts).
        public var maxAttempts: Int
        /// Delay before the first retry; each further retry doubles it, up to ``maxBackoff``.
        public var initialBackoff: TimeInterval
        /// The longest delay between two attempts.
        public var maxBackoff: TimeInterval
        /// How long after our last confirmed request reports are still suspected of being late echoes.
        /// A report that is neither our level nor one we sent is verified with a read at the end of it.
        public var settleTime: TimeInterval

        /// Creates a configuration. `step` is raised to at least 1 and `maxAttempts` to at least 1.
        public init(
            range: ClosedRange<Int> = 0...100,
            step: Int = 2,
            minimumInterval: TimeInterval = 0.1,
            maxAttempts: Int = 6,
            initialBackoff: TimeInterval = 0.1,
            maxBackoff: TimeInterval = 2,
            settleTime: TimeInterval = 0.5
        ) {
            self.range = range
            self.step = max(1, step)
            self.minimumInterval = max(0, minimumInterval)
            self.maxAttempts = max(1, maxAttempts)
            self.initialBackoff = max(0, initialBackoff)
            self.maxBackoff = max(initialBackoff, maxBackoff)
            self.settleTime = max(0, settleTime)
        }
    }

    /// A SetVolume request the machine sent.
    public struct Request: Sendable, Equatable, Hashable {
        /// Its id, echoed back in `requestSucceeded` / `requestFailed`.
        public var id: Int
        /// The level it sets.
        public var level: Int
    }

    /// What the driver must do.
    public enum Action: Sendable, Equatable, Hashable {
        /// Send SetVolume(`level`); report the outcome with `requestSucceeded(_:at:)` / `requestFailed(_:error:at:)`
        /// passing `request`.
        case setVolume(level: Int, request: Int)
        /// Read the volume and report it with ``RemoteVolumeSync/deviceReported(_:at:isInitialState:)`` (or `readFailed`).
        case readVolume
        /// The level the HUD should show changed.
        case showLevel(Int)
        /// A request failed for good; the wanted level was dropped and the HUD falls back to the device's
        /// last known level.
        case failed(RemoteVolumeError)
    }

    /// The behaviour.
    public private(set) var configuration: Configuration
    /// The level the device last confirmed (a successful set, a read or an accepted report).
    public private(set) var confirmedLevel: Int?
    /// The level still to be sent, if it differs from what the device has or is being sent.
    public private(set) var wantedLevel: Int?
    /// The request on the wire.
    public private(set) var inFlight: Request?
    /// Failed attempts for the current wanted level.
    public private(set) var failedAttempts = 0
    /// The last error that made the machine give up.
    public private(set) var lastError: RemoteVolumeError?
    /// The level the user asked for that could not be delivered before the machine gave up, moved by presses
    /// made since. It is sent once the device answers again — the next press
    /// or absolute level first re-reads the device — unless the device reports a change of its own first
    /// (someone used its controls: then the device wins). A restarted device's own level, or a subscription's
    /// initial state, does not count as a change.
    public private(set) var intendedLevel: Int?

    private var nextRequest = 1
    private var lastSentAt: Instant?
    private var retryAt: Instant?
    private var settleUntil: Instant?
    private var needsVerify = false
    private var readInFlight = false
    private var pendingSteps = 0
    private var echoes: Set<Int> = []
    private var shownLevel: Int?
    /// A press or level after a give-up started a re-read: the HUD shows ``intendedLevel``.
    private var reconnecting = false
    /// ``flush(at:)`` was called: wanted levels go out without waiting for the interval or a backoff.
    private var flushing = false

    /// Creates a machine; `knownLevel` is the device's level if already read.
    public init(configuration: Configuration = Configuration(), knownLevel: Int? = nil) {
        self.configuration = configuration
        self.confirmedLevel = knownLevel.map { configuration.range.clamped($0) }
        self.shownLevel = confirmedLevel
    }

    /// The level the HUD shows: where the device will be once pending requests land; `nil` before the first read.
    public var optimisticLevel: Int? {
        wantedLevel ?? inFlight?.level ?? (reconnecting ? intendedLevel : nil)
            ?? confirmedLevel.map { configuration.range.clamped($0 + pendingSteps * configuration.step) }
    }

    /// Whether a request is on the wire or a level still waits to be sent.
    public var isBusy: Bool { inFlight != nil || wantedLevel != nil }

    // MARK: Inputs

    /// A button event: `pressed` and `repeated` move the level by one step; `released` does nothing.
    public mutating func handle(_ event: VolumeButtonEvent) -> [Action] {
        event.phase == .released ? [] : press(event.button, at: event.time)
    }

    /// One press of a volume button (from any up/down source) at `now`.
    public mutating func press(_ button: VolumeButton, at now: Instant) -> [Action] {
        let delta = button == .up ? configuration.step : -configuration.step
        if let intended = intendedLevel {
            return reconnect(toward: intended + delta, at: now)
        }
        guard let base = wantedLevel ?? inFlight?.level ?? confirmedLevel else {
            // Level unknown: count the press and read the level first.
            pendingSteps += button == .up ? 1 : -1
            var actions: [Action] = []
            if !readInFlight {
                readInFlight = true
                actions.append(.readVolume)
            }
            return actions
        }
        return want(base + delta, at: now)
    }

    /// Asks for an absolute level (a slider, the CLI's `set`), clamped to the range.
    public mutating func setLevel(_ level: Int, at now: Instant) -> [Action] {
        pendingSteps = 0
        if intendedLevel != nil { return reconnect(toward: level, at: now) }
        return want(level, at: now)
    }

    /// The device's volume range became known or changed; known levels are clamped to it.
    public mutating func updateRange(_ range: ClosedRange<Int>, at now: Instant) -> [Action] {
        configuration.range = range
        confirmedLevel = confirmedLevel.map { range.clamped($0) }
        wantedLevel = wantedLevel.map { range.clamped($0) }
        return finish(at: now, [])
    }

    /// The request `request` succeeded: the device is at its level.
    public mutating func requestSucceeded(_ request: Int, at now: Instant) -> [Action] {
        guard let sent = inFlight, sent.id == request else { return [] }
        inFlight = nil
        confirmedLevel = sent.level
        failedAttempts = 0
        retryAt = nil
        lastError = nil
        settleUntil = now + configuration.settleTime
        if wantedLevel == sent.level { wantedLevel = nil }
        return finish(at: now, [])
    }

    /// The request `request` failed with `error`.
    public mutating func requestFailed(_ request: Int, error: RemoteVolumeError, at now: Instant) -> [Action] {
        guard let sent = inFlight, sent.id == request else { return [] }
        inFlight = nil
        failedAttempts += 1
        if error.isTransient && failedAttempts < configuration.maxAttempts {
            if wantedLevel == nil { wantedLevel = sent.level }
            let delay = configuration.initialBackoff * pow(2, Double(failedAttempts - 1))
            retryAt = flushing ? now : now + min(configuration.maxBackoff, delay)
            return finish(at: now, [])
        }
        return giveUp(error, sentLevel: sent.level, at: now)
    }

    /// The answer to a ``Action/readVolume``: the device is at `level`.
    ///
    /// After a give-up this is the reconnection: the device's level is adopted as confirmed and the
    /// ``intendedLevel`` is sent (the user's level wins over whatever a restarted device came up at).
    public mutating func volumeRead(_ level: Int, at now: Instant) -> [Action] {
        if intendedLevel != nil {
            readInFlight = false
            return resumeIntent(deviceLevel: level, at: now)
        }
        return deviceReported(level, at: now)
    }

    /// The device reported `level` by itself (an event); also accepted as the answer to a ``Action/readVolume``.
    ///
    /// While our requests are pending, a report that matches a level we sent is their echo and is ignored;
    /// any other report then, and any report other than the confirmed level within
    /// ``Configuration/settleTime`` of the last request (a late echo, or someone choosing a level the burst
    /// passed through), is verified with one read once things settle. Otherwise the report is the truth (someone used the device's own controls).
    /// After a give-up, a report of a change drops ``intendedLevel`` (the device wins); an `isInitialState`
    /// report (a new subscription's state) or an echo of a level we sent reconnects like
    /// ``volumeRead(_:at:)`` and the intended level wins.
    public mutating func deviceReported(_ level: Int, at now: Instant, isInitialState: Bool = false) -> [Action] {
        if intendedLevel != nil {
            // A level we sent ourselves is a late echo of a request that did land (its reply was lost), not
            // someone using the device: it shows the device is back, and the intent still wins.
            if isInitialState || echoes.contains(level) { return resumeIntent(deviceLevel: level, at: now) }
            intendedLevel = nil
            reconnecting = false
        }
        let level = configuration.range.clamped(level)
        var wasRead = false
        if readInFlight {
            readInFlight = false
            wasRead = true
        }
        if pendingSteps != 0 && !isBusy {
            // The first read after presses made while the level was unknown.
            confirmedLevel = level
            let steps = pendingSteps
            pendingSteps = 0
            return want(level + steps * configuration.step, at: now)
        }
        let settling = settleUntil.map { now < $0 } ?? false
        if isBusy || settling {
            if wasRead && !isBusy {
                // A read we asked for ourselves, answered after our requests landed: trust it.
                confirmedLevel = level
                needsVerify = false
            } else if level != confirmedLevel && (!echoes.contains(level) || !isBusy) {
                // While requests are on the wire a report of a level we sent is their echo. Once they have
                // landed it may still be one, late — or someone set the device to a level the burst passed
                // through: one read when things settle tells which (taking it for an echo unread lost the
                // change, and the next press overwrote it).
                needsVerify = true
            }
            return finish(at: now, [])
        }
        confirmedLevel = level
        needsVerify = false
        return finish(at: now, [])
    }

    /// A ``Action/readVolume`` failed.
    public mutating func readFailed(_ error: RemoteVolumeError, at now: Instant) -> [Action] {
        readInFlight = false
        if intendedLevel != nil, reconnecting {
            // Still away: the intent is kept for the next attempt; the HUD falls back to the known level.
            reconnecting = false
            lastError = error
            return finish(at: now, [.failed(error)])
        }
        let hadPresses = pendingSteps != 0
        pendingSteps = 0
        needsVerify = false
        guard hadPresses else { return finish(at: now, []) }
        lastError = error
        return finish(at: now, [.failed(error)])
    }

    /// The driver is stopping, and the last coalesced press must not be dropped: the wanted level is sent
    /// now, without waiting for ``Configuration/minimumInterval`` or a retry's backoff, and so is any level
    /// wanted after the request on the wire lands. The driver waits (bounded) until ``isBusy`` is false.
    public mutating func flush(at now: Instant) -> [Action] {
        flushing = true
        retryAt = nil
        return finish(at: now, [])
    }

    /// The wake-up the machine asked for is due (a retry, a coalesced send, or a verification read).
    public mutating func tick(at now: Instant) -> [Action] {
        finish(at: now, [])
    }

    // MARK: Internals

    private mutating func want(_ level: Int, at now: Instant) -> [Action] {
        let level = configuration.range.clamped(level)
        if inFlight == nil && wantedLevel == nil && level == confirmedLevel {
            return finish(at: now, [])
        }
        if inFlight?.level == level {
            wantedLevel = nil
        } else {
            wantedLevel = level
        }
        return finish(at: now, [])
    }

    /// After a give-up: remember `level` as the intent and re-read the device before sending anything.
    private mutating func reconnect(toward level: Int, at now: Instant) -> [Action] {
        intendedLevel = configuration.range.clamped(level)
        reconnecting = true
        var actions: [Action] = []
        if !readInFlight && inFlight == nil {
            readInFlight = true
            actions.append(.readVolume)
        }
        return finish(at: now, actions)
    }

    /// The device answered again at `deviceLevel`: adopt it and send the intended level.
    private mutating func resumeIntent(deviceLevel: Int, at now: Instant) -> [Action] {
        let intended = intendedLevel
        intendedLevel = nil
        reconnecting = false
        confirmedLevel = configuration.range.clamped(deviceLevel)
        settleUntil = nil
        echoes.removeAll()
        needsVerify = false
        guard let intended else { return finish(at: now, []) }
        return want(intended, at: now)
    }

    /// Drops the wanted level after `error`. When the device was away (a transient error) the level is kept
    /// as ``intendedLevel``; a refusal (e.g. UPnP 402) is final.
    private mutating func giveUp(_ error: RemoteVolumeError, sentLevel: Int, at now: Instant) -> [Action] {
        intendedLevel = error.isTransient ? (wantedLevel ?? sentLevel) : nil
        reconnecting = false
        wantedLevel = nil
        retryAt = nil
        failedAttempts = 0
        lastError = error
        return finish(at: now, [.failed(error)])
    }

    /// Sends what is due, then works out the HUD level (the next wake-up is ``nextDeadline``).
    private mutating func finish(at now: Instant, _ actions: [Action]) -> [Action] {
        var actions = actions
        if let retry = retryAt, now >= retry { retryAt = nil }
        if inFlight == nil, retryAt == nil, let level = wantedLevel, now >= earliestSend {
            let request = nextRequest
            nextRequest += 1
            inFlight = Request(id: request, level: level)
            wantedLevel = nil
            lastSentAt = now
            echoes.insert(level)
            actions.append(.setVolume(level: level, request: request))
        }
        if !isBusy, retryAt == nil, let until = settleUntil, now >= until {
            settleUntil = nil
            echoes.removeAll()
            if needsVerify && !readInFlight {
                needsVerify = false
                readInFlight = true
                actions.append(.readVolume)
            }
        }
        if let level = optimisticLevel, level != shownLevel {
            shownLevel = level
            actions.append(.showLevel(level))
        }
        return actions
    }

    private var earliestSend: Instant {
        if flushing { return -.infinity }
        return lastSentAt.map { $0 + configuration.minimumInterval } ?? -.infinity
    }

    /// When ``tick(at:)`` is next due — a retry, a coalesced send or a verification read — or `nil` when
    /// nothing is. The driver keeps one timer aimed here, read after every input (the wake-up convention of
    /// every VolumeKit machine: ``/VolumeKitCore/VolumeStepMachine/nextDeadline`` is the same).
    public var nextDeadline: Instant? {
        if inFlight != nil { return nil }
        if let retry = retryAt { return retry }
        if wantedLevel != nil { return earliestSend }
        if let until = settleUntil { return until }
        return nil
    }
}
