#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Applies AudioServices' rules for custom system sounds to a file, before iOS rejects it with a bare `OSStatus`.
///
/// The rules (Apple's `AudioServicesPlaySystemSound` documentation and AudioServices.h;
/// `shared/facts/system-sounds.md` §3): packaged in a .caf, .aif or .wav file; linear PCM or IMA4 (IMA/ADPCM);
/// at most 30 seconds. Checks run in the order container → encoding → duration, so the first error named is the
/// most basic one. Runs anywhere (Linux CI included); only the headers are read.
public enum SystemSoundValidator {
    /// The longest sound AudioServices plays, in seconds ("The maximum supported duration for a system sound
    /// is 30 secs", AudioServices.h).
    public static let maximumDuration: Double = 30

    /// Checks facts already read; throws the first rule the file breaks.
    /// - Throws: `SoundFileError`: the first rule broken, or what makes the file unreadable.
    public static func validate(_ info: SoundFileInfo) throws {
        guard info.encoding.isPlayableBySystemSounds else { throw SoundFileError.unsupportedEncoding(info.encoding) }
        guard let duration = info.duration else { throw SoundFileError.unsupportedEncoding(info.encoding) }
        guard duration <= maximumDuration else {
            throw SoundFileError.tooLong(seconds: duration, limit: maximumDuration)
        }
    }

    /// Reads and checks a sound file held in memory; returns its facts when AudioServices can play it.
    /// - Throws: `SoundFileError`: the first rule broken, or what makes the file unreadable.
    @discardableResult
    public static func check(_ data: Data) throws -> SoundFileInfo {
        let info = try SoundFileReader.read(data)
        try validate(info)
        return info
    }

    /// Reads (headers only) and checks a sound file on disk; returns its facts when AudioServices can play it.
    /// - Throws: `SoundFileError`: the first rule broken, or what makes the file unreadable.
    @discardableResult
    public static func check(contentsOf url: URL) throws -> SoundFileInfo {
        let info = try SoundFileReader.read(contentsOf: url)
        try validate(info)
        return info
    }
}
