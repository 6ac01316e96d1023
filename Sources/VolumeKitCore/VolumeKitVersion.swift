#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// VolumeKit's release version (semantic versioning; CHANGELOG.md names each release).
public enum VolumeKitVersion {
    /// The version of this source tree's release, e.g. "0.2.0" — what `volumekit --version` prints.
    public static let current = "0.2.0"
}
