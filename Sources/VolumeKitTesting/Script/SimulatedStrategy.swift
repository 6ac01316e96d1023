import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which app runs on the simulated device during a scenario.
public enum SimulatedStrategy: String, Sendable, Equatable, CaseIterable {
    /// VolumeKit, ``/VolumeKitCore/ButtonStrategy/outputVolume`` (the default).
    case outputVolume
    /// VolumeKit, ``/VolumeKitCore/ButtonStrategy/systemNotification`` (private API opted in).
    case systemNotification
    /// VolumeKit, ``/VolumeKitCore/ButtonStrategy/captureEvents``.
    case captureEvents
    /// VolumeKit, ``/VolumeKitCore/ButtonStrategy/outputVolume`` in ``/VolumeKitCore/ButtonCaptureMode/passive`` mode.
    case passive
    /// The approach most anchor libraries ship, for comparison (see `BaselineApp`).
    case baseline

    /// The VolumeKit configuration, `nil` for the baseline.
    public var configuration: VolumeButtonsConfiguration? {
        switch self {
        case .outputVolume: VolumeButtonsConfiguration()
        case .systemNotification: VolumeButtonsConfiguration(strategy: .systemNotification, allowsPrivateAPI: true)
        case .captureEvents: VolumeButtonsConfiguration(strategy: .captureEvents)
        case .passive: VolumeButtonsConfiguration(mode: .passive)
        case .baseline: nil
        }
    }
}
