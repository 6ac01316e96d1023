import Foundation
import VolumeKit

/// When the field check's trace may close: once the check has finished, every stop of capture has
/// finished (`VolumeButtons.stop(onStopped:)`) and ``closeDelay`` has passed since the last one, so that
/// the restore's sets and KVO, the category restore and the deactivation with its retries are in the file.
public struct FieldCheckClosing: Sendable, Equatable {
    /// How long after capture has stopped the trace stays open (0.5 s): the session lease tries a refused
    /// deactivation again ``AudioSessionLease/deactivationRetries`` times,
    /// ``AudioSessionLease/deactivationRetryDelay`` apart, and one delay more lets the last try be recorded.
    public static let closeDelay =
        AudioSessionLease.deactivationRetryDelay * Double(AudioSessionLease.deactivationRetries + 2)

    private var pendingStops = 0
    private var isFinished = false
    /// Whether the trace has been closed.
    public private(set) var isClosed = false

    /// Nothing stopping, the check not finished.
    public init() {}

    /// Capture began stopping.
    public mutating func stopBegan() { pendingStops += 1 }

    /// A stop of capture finished, ``closeDelay`` ago. Returns whether to close the trace now.
    public mutating func stopSettled() -> Bool {
        pendingStops = max(0, pendingStops - 1)
        return closeIfReady()
    }

    /// The check finished (or was stopped). Returns whether to close the trace now.
    public mutating func finish() -> Bool {
        isFinished = true
        return closeIfReady()
    }

    private mutating func closeIfReady() -> Bool {
        guard isFinished, pendingStops == 0, !isClosed else { return false }
        isClosed = true
        return true
    }
}
