#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What an interruption notification (`AVAudioSession.interruptionNotification`) said beyond its type: its
/// reason and options, and whether it stands for the time the app was suspended. A trace records them
/// beside each interruption (``AppLifecycleClient/lastInterruption``), and also for the ones the client
/// withholds (``AppLifecycleClient/observeWithheldInterruptions``), so that `trace fit` can tell when iOS
/// sends its late "began" (`docs/trace.md`, `interruptionDetails`).
public struct InterruptionDetails: Sendable, Equatable {
    /// The notification's type (`AVAudioSession.InterruptionType`).
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// `.began`.
        case began
        /// `.ended`.
        case ended
    }

    /// Began or ended.
    public var kind: Kind
    /// `AVAudioSessionInterruptionReasonKey`'s value as the SDK names the case — `default`, `appWasSuspended`,
    /// `builtInMicMuted`, `routeDisconnected`, or `unknown(N)` for a value the SDK does not name — or `nil`
    /// when the notification carries none (an "ended", or before iOS 14.5).
    public var reason: String?
    /// `AVAudioSessionInterruptionOptionKey`'s options by name (an "ended" only): ``shouldResume``, or
    /// `unknown(N)` for bits the SDK does not name. Empty when there are none.
    public var options: [String]
    /// Whether the "began" stands for the time the app was suspended rather than another session taking
    /// the audio: reason `appWasSuspended` (iOS 14.5 to 15) or `AVAudioSessionInterruptionWasSuspendedKey`
    /// (iOS 10.3 to 14.4). iOS sends it when the app runs again, and none from iOS 16
    /// (`shared/facts/envelope.md`, "The late began").
    public var wasSuspended: Bool
    /// Whether the client delivered the notification as an ``AppLifecycleEvent``: the live client withholds
    /// a "began" with reason `appWasSuspended` (nothing took the session, there is nothing to pause).
    public var delivered: Bool

    /// The name of the `.shouldResume` option.
    public static let shouldResume = "shouldResume"

    /// Creates the details of one notification.
    public init(
        kind: Kind, reason: String? = nil, options: [String] = [], wasSuspended: Bool = false, delivered: Bool = true
    ) {
        self.kind = kind
        self.reason = reason
        self.options = options
        self.wasSuspended = wasSuspended
        self.delivered = delivered
    }

    /// The details `event` carries by itself (its kind, and `.shouldResume` for an end that has it), with no
    /// reason; `nil` for an event that is not an interruption.
    public init?(_ event: AppLifecycleEvent) {
        switch event {
        case .interruptionBegan: self.init(kind: .began)
        case .interruptionEnded(let shouldResume):
            self.init(kind: .ended, options: shouldResume ? [Self.shouldResume] : [])
        default: return nil
        }
    }

    /// Whether these are the details of `event`: a "began" of ``AppLifecycleEvent/interruptionBegan``, an
    /// "ended" of ``AppLifecycleEvent/interruptionEnded(shouldResume:)`` with the same `.shouldResume`.
    public func describes(_ event: AppLifecycleEvent) -> Bool {
        switch (kind, event) {
        case (.began, .interruptionBegan): true
        case (.ended, .interruptionEnded(let shouldResume)): options.contains(Self.shouldResume) == shouldResume
        default: false
        }
    }
}
