#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SystemSoundError: CustomStringConvertible {
    /// `kAudioServicesSystemSoundUnspecifiedError` (-1500).
    public static let unspecified: Int32 = -1500
    /// `kAudioServicesSystemSoundClientTimedOutError` (-1501).
    public static let clientTimedOut: Int32 = -1501
    /// `kAudioServicesSystemSoundExceededMaximumDurationError` (-1502).
    public static let exceededMaximumDuration: Int32 = -1502

    /// The constant's name for known statuses (AudioServices.h and AudioFile.h; `shared/facts/system-sounds.md` §3),
    /// `nil` otherwise.
    public var name: String? {
        switch status {
        case 0: "kAudioServicesNoError"
        case -1500: "kAudioServicesSystemSoundUnspecifiedError"
        case -1501: "kAudioServicesSystemSoundClientTimedOutError"
        case -1502: "kAudioServicesSystemSoundExceededMaximumDurationError (longer than 30 s)"
        case 1_886_681_407: "kAudioServicesUnsupportedPropertyError ('pty?')"
        case 561_211_770: "kAudioServicesBadPropertySizeError ('!siz')"
        case 561_213_539: "kAudioServicesBadSpecifierSizeError ('!spc')"
        case 2_003_334_207: "kAudioFileUnspecifiedError ('wht?')"
        case 1_954_115_647: "kAudioFileUnsupportedFileTypeError ('typ?')"
        case 1_718_449_215: "kAudioFileUnsupportedDataFormatError ('fmt?')"
        case 1_685_348_671: "kAudioFileInvalidFileError ('dta?')"
        case 1_886_547_263: "kAudioFilePermissionsError ('prm?')"
        case -43: "fnfErr (file not found)"
        default: nil
        }
    }

    /// "OSStatus -1502 (kAudioServicesSystemSoundExceededMaximumDurationError …)".
    public var description: String {
        name.map { "OSStatus \(status) (\($0))" } ?? "OSStatus \(status)"
    }
}
