#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The probe's sound: ``MuteProbeTiming/standard``'s 200 ms of true silence — every sample zero, so it can
/// never be heard (the anchors' low-noise files hissed: akramhussein/Mute #1, PR #8; gnestor #6) — as 16-bit
/// mono linear PCM at 8 kHz in CAF, a format AudioServices plays (`shared/facts/system-sounds.md` §3;
/// Mute shipped 8 kHz files).
///
/// The `VolumeKit` module bundles the bytes ``data()`` returns as `mute-probe.caf`; a test checks the committed
/// file still equals them, and `scripts/make-silent-sound.sh` rewrites it.
public enum MuteProbeSound {
    /// The resource's name in the `VolumeKit` bundle.
    public static let resourceName = "mute-probe"
    /// The resource's extension.
    public static let fileExtension = "caf"
    /// Frames per second.
    public static let sampleRate: Double = 8_000
    /// The sound's length: the standard probe timing's.
    public static let duration: TimeInterval = MuteProbeTiming.standard.soundDuration

    /// The file's bytes, from ``SoundFileWriter`` (throws its format error, which the fixed format never hits).
    public static func data() throws -> Data {
        try SoundFileWriter.silence(duration: duration, sampleRate: sampleRate, channels: 1, container: .caf)
    }
}
