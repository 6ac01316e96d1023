#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The IMA ADPCM step-size and index-adjust tables (IMA Digital Audio Focus and Technical Working Groups,
/// "Recommended Practices for Enhancing Digital Audio Compatibility in Multimedia Systems", 1992).
enum IMAADPCM {
    static let stepSizes: [Int32] = [
        7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 19, 21, 23, 25, 28, 31, 34, 37, 41, 45, 50, 55, 60, 66, 73, 80, 88, 97,
        107, 118, 130, 143, 157, 173, 190, 209, 230, 253, 279, 307, 337, 371, 408, 449, 494, 544, 598, 658, 724, 796,
        876, 963, 1060, 1166, 1282, 1411, 1552, 1707, 1878, 2066, 2272, 2499, 2749, 3024, 3327, 3660, 4026, 4428,
        4871, 5358, 5894, 6484, 7132, 7845, 8630, 9493, 10442, 11487, 12635, 13899, 15289, 16818, 18500, 20350,
        22385, 24623, 27086, 29794, 32767,
    ]
    static let indexAdjust: [Int32] = [-1, -1, -1, -1, 2, 4, 6, 8]

    /// One channel's encoder state.
    struct Channel {
        var predictor: Int32 = 0
        var index: Int32 = 0

        /// Encodes one 16-bit sample into a 4-bit code and updates the state as a decoder would.
        mutating func encode(_ sample: Int32) -> UInt8 {
            let step = IMAADPCM.stepSizes[Int(index)]
            var difference = sample - predictor
            var code: Int32 = 0
            if difference < 0 { code = 8; difference = -difference }
            var delta = step >> 3
            if difference >= step { code |= 4; difference -= step; delta += step }
            if difference >= step >> 1 { code |= 2; difference -= step >> 1; delta += step >> 1 }
            if difference >= step >> 2 { code |= 1; delta += step >> 2 }
            predictor += code & 8 != 0 ? -delta : delta
            predictor = min(32767, max(-32768, predictor))
            index = min(88, max(0, index + IMAADPCM.indexAdjust[Int(code & 7)]))
            return UInt8(code)
        }
    }

    /// Apple IMA4 packets for interleaved 16-bit samples: per 64 frames, one 34-byte packet per channel —
    /// a 2-byte header (the predictor's top 9 bits, then the 7-bit step index) and 64 nibbles, low nibble first
    /// (`shared/facts/system-sounds.md` §4: 64 frames, 34 bytes per channel per packet). The last packet is
    /// padded with silence.
    static func appleIMA4Packets(_ samples: [Int16], channels: Int) -> [UInt8] {
        let frames = samples.count / channels
        let packets = (frames + 63) / 64
        var states = [Channel](repeating: Channel(), count: channels)
        var out = [UInt8]()
        out.reserveCapacity(packets * 34 * channels)
        for packet in 0..<packets {
            for channel in 0..<channels {
                // The decoder starts each packet from the header, so the encoder must too.
                var state = states[channel]
                state.predictor = Int32(Int16(truncatingIfNeeded: state.predictor)) & ~0x7F
                let header = UInt16(bitPattern: Int16(truncatingIfNeeded: state.predictor)) | UInt16(state.index)
                out.append(UInt8(header >> 8))
                out.append(UInt8(header & 0xFF))
                var low: UInt8 = 0
                for i in 0..<64 {
                    let frame = packet * 64 + i
                    let sample = frame < frames ? Int32(samples[frame * channels + channel]) : 0
                    let code = state.encode(sample)
                    if i & 1 == 0 { low = code } else { out.append(low | code << 4) }
                }
                states[channel] = state
            }
        }
        return out
    }
}
