#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Whether VolumeKit holds the volume still or lets presses change it.
public enum ButtonCaptureMode: String, Sendable, Equatable, CaseIterable {
    /// Presses are reported and the volume is held still: the buttons become plain input.
    case capture
    /// Presses are reported and change the volume as usual (JPSVolumeButtonHandler PR #31, Signal's
    /// passive observation; `shared/facts/volume-buttons.md` §6).
    case passive
}
