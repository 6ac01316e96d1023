import Foundation
import Testing

@testable import VolumeKitCore

/// Interleaved samples of a sine tone, for writing real files.
func sineSamples(frames: Int, channels: Int, sampleRate: Double, frequency: Double = 440, amplitude: Float = 0.5)
    -> [Float]
{
    var samples = [Float]()
    samples.reserveCapacity(frames * channels)
    for frame in 0..<frames {
        let value = amplitude * Float(sin(2 * Double.pi * frequency * Double(frame) / sampleRate))
        for _ in 0..<channels { samples.append(value) }
    }
    return samples
}

/// Bytes of `data` with `patch` written at `offset`.
func patched(_ data: Data, at offset: Int, with patch: [UInt8]) -> Data {
    var bytes = [UInt8](data)
    bytes.replaceSubrange(offset..<(offset + patch.count), with: patch)
    return Data(bytes)
}

/// The offset of the first occurrence of a four-character code.
func offset(of fourCC: String, in data: Data) -> Int? {
    let needle = Array(fourCC.utf8)
    let bytes = [UInt8](data)
    guard bytes.count >= needle.count else { return nil }
    return (0...(bytes.count - needle.count)).first { Array(bytes[$0..<($0 + needle.count)]) == needle }
}

func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
func be32(_ value: UInt32) -> [UInt8] { le32(value).reversed() }
func be64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * (7 - $0))) } }

/// What reading `data` gives: the facts, or the error.
func readResult(_ data: Data) -> Result<SoundFileInfo, SoundFileError> {
    soundResult { try SoundFileReader.read(data) }
}

/// What checking `data` against AudioServices' rules gives.
func checkResult(_ data: Data) -> Result<SoundFileInfo, SoundFileError> {
    soundResult { try SystemSoundValidator.check(data) }
}

/// The facts, or the `SoundFileError` thrown; any other error fails the test (the API promises only these).
func soundResult(_ body: () throws -> SoundFileInfo) -> Result<SoundFileInfo, SoundFileError> {
    do {
        return .success(try body())
    } catch let error as SoundFileError {
        return .failure(error)
    } catch {
        Issue.record("threw \(error), not a SoundFileError")
        return .failure(.unreadable(reason: "unexpected error"))
    }
}

/// A minimal decoder for Apple IMA4 packets (test-side, independent of the encoder's state handling).
func decodeAppleIMA4(_ bytes: [UInt8], channels: Int, frames: Int) -> [Int16] {
    let steps = IMAADPCM.stepSizes
    let adjust: [Int] = [-1, -1, -1, -1, 2, 4, 6, 8]
    var out = [Int16](repeating: 0, count: frames * channels)
    let packets = bytes.count / (34 * channels)
    for packet in 0..<packets {
        for channel in 0..<channels {
            let base = (packet * channels + channel) * 34
            let header = Int(bytes[base]) << 8 | Int(bytes[base + 1])
            var predictor = Int(Int16(truncatingIfNeeded: header & 0xFF80))
            var index = min(88, header & 0x7F)
            for i in 0..<64 {
                let byte = bytes[base + 2 + i / 2]
                let code = Int(i % 2 == 0 ? byte & 0x0F : byte >> 4)
                let step = Int(steps[index])
                var delta = step >> 3
                if code & 4 != 0 { delta += step }
                if code & 2 != 0 { delta += step >> 1 }
                if code & 1 != 0 { delta += step >> 2 }
                predictor = min(32767, max(-32768, predictor + (code & 8 != 0 ? -delta : delta)))
                index = min(88, max(0, index + adjust[code & 7]))
                let frame = packet * 64 + i
                if frame < frames { out[frame * channels + channel] = Int16(predictor) }
            }
        }
    }
    return out
}
