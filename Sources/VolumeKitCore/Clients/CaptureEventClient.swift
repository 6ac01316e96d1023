#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The two hardware buttons a capture interaction reports.
///
/// `AVCaptureEventInteraction`'s *primary* handler receives volume **down** (and the Action button / Camera
/// Control), the *secondary* handler volume **up** (Signal-iOS `VolumeButtons.swift`, Telegram
/// `PGCameraVolumeButtonHandler.m`, WWDC25 session 253; `shared/facts/volume-buttons.md` §3).
public enum CaptureEventSource: String, Sendable, Equatable {
    /// The primary handler: volume down.
    case primary
    /// The secondary handler: volume up.
    case secondary
}

/// A capture event's phase (`AVCaptureEvent.phase`).
public enum CaptureEventPhase: String, Sendable, Equatable {
    /// The button went down.
    case began
    /// The button came up.
    case ended
    /// The system cancelled the press.
    case cancelled
}

/// One `AVCaptureEvent`.
public struct CaptureEvent: Sendable, Equatable {
    /// Which handler received it.
    public var source: CaptureEventSource
    /// Its phase.
    public var phase: CaptureEventPhase
    /// Creates an event.
    public init(source: CaptureEventSource, phase: CaptureEventPhase) {
        self.source = source
        self.phase = phase
    }
}

/// `AVCaptureEventInteraction` (iOS 17.2+, camera apps only): real press and release of the volume buttons.
public struct CaptureEventClient: Sendable {
    /// Whether this device and OS deliver capture events (iOS 17.2+ with a running camera session).
    public var isAvailable: @Sendable () -> Bool
    /// Attaches an interaction and delivers its events until the handle is cancelled, which restores the
    /// system's button behaviour.
    public var observe: @Sendable (_ handler: @escaping @Sendable (CaptureEvent) -> Void) -> CancellationHandle

    /// Creates a client from its operations.
    public init(
        isAvailable: @escaping @Sendable () -> Bool,
        observe: @escaping @Sendable (_ handler: @escaping @Sendable (CaptureEvent) -> Void) -> CancellationHandle
    ) {
        self.isAvailable = isAvailable
        self.observe = observe
    }
}
