// libFuzzer target for SoundFileReader and SystemSoundValidator, built outside the package by
// scripts/fuzz-sounds.sh (swiftc -sanitize=fuzzer with the VolumeKitCore sources).
//
// Any input must give facts or a SoundFileError: a crash, a hang, another error type or facts that break
// the reader's promises (positive rate and channels, audio data inside the file) is a finding.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func soundReaderFuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    do {
        let info = try SoundFileReader.read(data)
        // Issue 12, defect 8: a rate of at least 1 Hz, so every duration is finite.
        guard info.sampleRate.isFinite, info.sampleRate >= 1, info.channels > 0, info.duration.map(\.isFinite) ?? true
        else {
            fatalError("impossible facts: \(info)")
        }
        guard info.audioDataOffset >= 0, info.audioDataByteCount >= 0,
            info.audioDataOffset + info.audioDataByteCount <= Int64(count)
        else {
            fatalError("audio data outside the file: \(info)")
        }
        if let frames = info.frameCount, frames < 0 { fatalError("negative frame count: \(info)") }
        try SystemSoundValidator.validate(info)
    } catch is SoundFileError {
        // the expected outcome for most inputs
    } catch {
        fatalError("unexpected error type: \(error)")
    }
    return 0
}
