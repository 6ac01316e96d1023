#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The wait before a watcher's next connection: 0.1 s, doubling to at most
/// ``longest``, and back to ``first`` only after a connection that stayed up ``healthyAfter`` seconds.
///
/// Resetting after every greeting let a server that greets and then sends garbage (or closes) be reconnected
/// ten times a second forever; now such a server sees at most 5 connections in the first 1.5 s, then one a
/// second.
struct ReconnectBackoff: Sendable, Equatable {
    /// The first wait, in seconds: a restarting server is found again quickly.
    static let first: TimeInterval = 0.1
    /// The longest wait, in seconds: the floor of the reconnect rate is one a second.
    static let longest: TimeInterval = 1
    /// How long a connection must have lasted, in seconds, to count as healthy.
    static let healthyAfter: TimeInterval = 10

    private var next = first

    /// The seconds to wait after a connection that lasted `lasted` seconds (0 when none was made).
    mutating func delay(afterConnectionLasting lasted: TimeInterval) -> TimeInterval {
        if lasted >= Self.healthyAfter { next = Self.first }
        let delay = next
        next = min(next * 2, Self.longest)
        return delay
    }
}

/// Passes on at most one value per ``interval`` seconds, always the newest: a flood of
/// notifications reaches the stream at most 10 times a second, and the last value is never lost — one held
/// back is delivered by ``due(at:)`` once its time has come.
struct Coalescer<Value: Sendable>: Sendable {
    /// The shortest time between two values passed on, in seconds.
    static var interval: TimeInterval { 0.1 }

    private var lastSent: TimeInterval?
    private var held: Value?

    /// `value` offered at `now`: returned when it may go at once, else held (replacing what was held).
    mutating func offer(_ value: Value, at now: TimeInterval) -> Value? {
        if let lastSent, now - lastSent < Self.interval {
            held = value
            return nil
        }
        lastSent = now
        held = nil
        return value
    }

    /// The held value, when its time has come at `now`.
    mutating func due(at now: TimeInterval) -> Value? {
        guard let value = held, let next = nextDue, now >= next else { return nil }
        held = nil
        lastSent = now
        return value
    }

    /// When the held value may go, or `nil` when nothing is held.
    var nextDue: TimeInterval? {
        guard held != nil else { return nil }
        return (lastSent ?? -.infinity) + Self.interval
    }
}
