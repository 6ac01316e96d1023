#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The seed's other two answers, from the output volume and the mute state: the *real* volume (0 while the
/// switch is on silent) and volume changes with old and new values (seeds 001/004).
///
/// Volume changes carry the output volume as the system reports it, also while silent (seed 001: "该情况下仍正常
/// 返回实际的音量值，而不是0"); the switch and the volume are independent (react-native-system-setting #73,
/// `shared/facts/mute-switch.md` §2).
public struct RealVolumeTracker: Sendable, Equatable {
    /// What to tell the app.
    public enum Action: Sendable, Equatable {
        /// The output volume moved from `old` to `new`.
        case volumeChanged(old: Float, new: Float)
        /// The real volume is now this.
        case realVolumeChanged(Float)
    }

    /// The output volume last seen, `nil` before the first reading.
    public private(set) var volume: Float?
    /// The mute state last seen.
    public private(set) var state: MuteState?
    /// The real volume last reported.
    public private(set) var realVolume: Float?

    /// Creates a tracker that knows nothing yet.
    public init() {}

    /// The real volume for an output volume and a mute state: 0 when silent, the output volume when ringing
    /// or without a switch, `nil` when the switch's position is unknown (VolumeKit does not guess).
    public static func realVolume(outputVolume: Float, state: MuteState) -> Float? {
        switch state {
        case .silent: 0
        case .ringing, .unavailable: outputVolume
        case .unknown: nil
        }
    }

    /// The output volume read or observed now. The first reading is not a change.
    public mutating func observe(volume new: Float) -> [Action] {
        let old = volume
        volume = new
        var actions = [Action]()
        if let old, old != new { actions.append(.volumeChanged(old: old, new: new)) }
        return actions + updateRealVolume()
    }

    /// The mute state changed.
    public mutating func observe(state new: MuteState) -> [Action] {
        state = new
        return updateRealVolume()
    }

    private mutating func updateRealVolume() -> [Action] {
        guard let volume, let state else { return [] }
        guard let real = Self.realVolume(outputVolume: volume, state: state) else {
            realVolume = nil  // Unknown: nothing reported; the next known value is reported afresh.
            return []
        }
        guard real != realVolume else { return [] }
        realVolume = real
        return [.realVolumeChanged(real)]
    }
}
