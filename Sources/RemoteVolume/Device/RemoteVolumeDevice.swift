#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A volume change a device reported by itself (an event), not as the answer to one of our requests.
public struct RemoteVolumeChange: Sendable, Equatable, Hashable {
    /// The new volume in device units, when the event carried one.
    public var volume: Int?
    /// The new mute state, when the event carried one.
    public var muted: Bool?
    /// Whether this is the device stating its current state when a subscription starts (a UPnP initial
    /// event, `SEQ: 0`) rather than reporting that someone changed it. After an outage
    /// ``RemoteVolumeSync`` keeps the level the user asked for over such a state, but gives way to a change.
    public var isInitialState: Bool

    /// Creates a change; `nil` fields were not part of the event.
    public init(volume: Int? = nil, muted: Bool? = nil, isInitialState: Bool = false) {
        self.volume = volume
        self.muted = muted
        self.isInitialState = isInitialState
    }
}

/// A speaker, receiver or TV whose volume is set over the network.
///
/// Seed 000's author needed the phone's volume keys to move the volume of remote hardware; this protocol is
/// the seam through which any such device plugs into ``RemoteVolumeController``. `UPnPRenderer` is the
/// built-in conformer (UPnP AV RenderingControl:1, the standard DLNA renderers speak).
///
/// Levels are integers in the device's own units (RenderingControl: 0…100 unless the SCPD says otherwise).
/// Every method throws ``RemoteVolumeError``.
public protocol RemoteVolumeDevice: Sendable {
    /// A name to show the user.
    var displayName: String { get }
    /// The levels the device accepts, in device units.
    var volumeRange: ClosedRange<Int> { get }
    /// Reads the current volume.
    func volume() async throws -> Int
    /// Sets the volume; `level` is already within ``volumeRange``.
    func setVolume(_ level: Int) async throws
    /// Reads whether the output is muted.
    func isMuted() async throws -> Bool
    /// Mutes or unmutes the output.
    func setMuted(_ muted: Bool) async throws
    /// Changes the device reports by itself (e.g. someone used its remote), or `nil` if it cannot report any.
    ///
    /// The stream ends when the device stops reporting (for UPnP: when the event subscription cannot be
    /// renewed). Each call may start a new subscription; call it once per controller.
    func changes() async throws -> AsyncStream<RemoteVolumeChange>?
}

extension RemoteVolumeDevice {
    /// By default a device reports nothing by itself.
    public func changes() async throws -> AsyncStream<RemoteVolumeChange>? { nil }
}
