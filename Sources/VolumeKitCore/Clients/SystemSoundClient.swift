#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An AudioServices sound ID (`SystemSoundID`).
public typealias SystemSoundID = UInt32

/// An error AudioServices returned, with its `OSStatus`.
public struct SystemSoundError: Error, Sendable, Equatable {
    /// The `OSStatus` AudioServices returned.
    public var status: Int32
    /// Creates an error from an `OSStatus`.
    public init(status: Int32) { self.status = status }
}

/// AudioServices system sounds: create from a file, play with a completion, dispose.
public struct SystemSoundClient: Sendable {
    /// `AudioServicesCreateSystemSoundID` for a sound file.
    public var create: @Sendable (URL) throws -> SystemSoundID
    /// `AudioServicesPlaySystemSoundWithCompletion` (`alert: false`) or
    /// `AudioServicesPlayAlertSoundWithCompletion` (`alert: true`). The completion runs once the sound has
    /// finished, or almost at once when iOS does not play it (Ring/Silent switch on silent).
    public var play:
        @Sendable (_ id: SystemSoundID, _ alert: Bool, _ completion: @escaping @Sendable () -> Void) -> Void
    /// `AudioServicesSetProperty(kAudioServicesPropertyIsUISound, …)`.
    public var setIsUISound: @Sendable (_ id: SystemSoundID, _ isUISound: Bool) -> Void
    /// `AudioServicesDisposeSystemSoundID`.
    public var dispose: @Sendable (SystemSoundID) -> Void

    /// Creates a client from its operations.
    public init(
        create: @escaping @Sendable (URL) throws -> SystemSoundID,
        play:
            @escaping @Sendable (_ id: SystemSoundID, _ alert: Bool, _ completion: @escaping @Sendable () -> Void) ->
            Void,
        setIsUISound: @escaping @Sendable (_ id: SystemSoundID, _ isUISound: Bool) -> Void,
        dispose: @escaping @Sendable (SystemSoundID) -> Void
    ) {
        self.create = create
        self.play = play
        self.setIsUISound = setIsUISound
        self.dispose = dispose
    }
}
