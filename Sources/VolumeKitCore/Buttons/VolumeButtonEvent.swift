#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A hardware volume button.
public enum VolumeButton: String, Sendable, Equatable, Hashable, CaseIterable, Codable {
    /// Volume up.
    case up
    /// Volume down.
    case down

    /// The other button.
    public var opposite: VolumeButton { self == .up ? .down : .up }
    /// +1 for up, −1 for down.
    public var sign: Float { self == .up ? 1 : -1 }
}

/// Where a button is in one press.
public enum ButtonPhase: String, Sendable, Equatable, Hashable, CaseIterable, Codable {
    /// The button went down: one per physical press.
    case pressed
    /// iOS auto-repeated while the button is held (first ≈ 0.65 s after the press, then every ≈ 0.2 s).
    case repeated
    /// The button came up: reported by the strategy when it knows, inferred by timeout otherwise.
    case released
}

/// One button event delivered to the app.
public struct VolumeButtonEvent: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Which button.
    public var button: VolumeButton
    /// Pressed, repeated or released.
    public var phase: ButtonPhase
    /// When it happened, on the monotonic clock of ``ClockClient``.
    public var time: Instant

    /// Creates an event.
    public init(button: VolumeButton, phase: ButtonPhase, time: Instant) {
        self.button = button
        self.phase = phase
        self.time = time
    }

    /// "up pressed".
    public var description: String { "\(button.rawValue) \(phase.rawValue)" }
}
