import Foundation
import Testing

@testable import VolumeKitCore

@Suite("Sound files the writer produces read back with their facts")
struct SoundFileRoundTripTests {
    struct Case: CustomStringConvertible, Sendable {
        var format: SoundFileWriter.Format
        var expected: SoundEncoding
        var bits: Int
        var container: SoundContainer
        var description: String {
            "\(format.container) \(format.encoding) \(format.channels)ch \(Int(format.sampleRate))Hz LE=\(format.isLittleEndian)"
        }
    }

    static let cases: [Case] = {
        var cases = [Case]()
        let pcm: [(Int, Bool)] = [(8, false), (16, false), (24, false), (32, false), (32, true), (64, true)]
        for (rate, channels) in [(8_000.0, 1), (44_100.0, 2), (48_000.0, 6)] {
            for (bits, isFloat) in pcm {
                let encoding = SoundFileWriter.Encoding.linearPCM(bits: bits, isFloat: isFloat)
                for littleEndian in [false, true] {
                    cases.append(
                        Case(
                            format: .init(
                                container: .caf, encoding: encoding, sampleRate: rate, channels: channels,
                                isLittleEndian: littleEndian),
                            expected: .linearPCM(isFloat: isFloat, isBigEndian: !littleEndian), bits: bits,
                            container: .caf))
                }
                if !isFloat {
                    cases.append(
                        Case(
                            format: .init(container: .aiff, encoding: encoding, sampleRate: rate, channels: channels),
                            expected: .linearPCM(isFloat: false, isBigEndian: true), bits: bits, container: .aiff))
                    cases.append(
                        Case(
                            format: .init(
                                container: .aiffc, encoding: encoding, sampleRate: rate, channels: channels,
                                isLittleEndian: true),
                            expected: .linearPCM(isFloat: false, isBigEndian: false), bits: bits, container: .aiffc))
                }
                cases.append(
                    Case(
                        format: .init(container: .aiffc, encoding: encoding, sampleRate: rate, channels: channels),
                        expected: .linearPCM(isFloat: isFloat, isBigEndian: true), bits: bits, container: .aiffc))
                for container in [SoundFileWriter.Container.wav, .wavExtensible] {
                    cases.append(
                        Case(
                            format: .init(
                                container: container, encoding: encoding, sampleRate: rate, channels: channels),
                            expected: .linearPCM(isFloat: isFloat, isBigEndian: false), bits: bits, container: .wav))
                }
            }
        }
        return cases
    }()

    @Test("linear PCM in every container", arguments: cases)
    func linearPCM(_ c: Case) throws {
        let frames = 1_234
        let data = try SoundFileWriter.write(
            samples: sineSamples(frames: frames, channels: c.format.channels, sampleRate: c.format.sampleRate),
            format: c.format)
        let info = try SystemSoundValidator.check(data)
        #expect(info.container == c.container)
        #expect(info.encoding == c.expected)
        #expect(info.sampleRate == c.format.sampleRate)
        #expect(info.channels == c.format.channels)
        #expect(info.bitsPerSample == c.bits)
        #expect(info.frameCount == Int64(frames))
        #expect(info.duration == Double(frames) / c.format.sampleRate)
        #expect(info.audioDataByteCount == Int64(frames * c.format.channels * c.bits / 8))
        #expect(info.audioDataOffset + info.audioDataByteCount <= Int64(data.count))
    }

    @Test("IMA4 in CAF carries the exact frame count in 'pakt'", arguments: [1, 2])
    func ima4CAF(channels: Int) throws {
        let samples = sineSamples(frames: 1_000, channels: channels, sampleRate: 22_050)
        let data = try SoundFileWriter.write(
            samples: samples,
            format: .init(container: .caf, encoding: .appleIMA4, sampleRate: 22_050, channels: channels))
        let info = try SystemSoundValidator.check(data)
        #expect(info.encoding == .appleIMA4)
        #expect(info.frameCount == 1_000)  // not the 1,024 the 16 padded packets hold
        #expect(info.audioDataByteCount == Int64(16 * 34 * channels))
        #expect(info.bitsPerSample == 4)
    }

    @Test("IMA4 in AIFF-C counts packets of 64 frames")
    func ima4AIFC() throws {
        let data = try SoundFileWriter.write(
            samples: sineSamples(frames: 1_000, channels: 1, sampleRate: 8_000),
            format: .init(container: .aiffc, encoding: .appleIMA4, sampleRate: 8_000))
        let info = try SystemSoundValidator.check(data)
        #expect(info.container == .aiffc)
        #expect(info.encoding == .appleIMA4)
        #expect(info.frameCount == 1_024)
        #expect(info.duration == 1_024.0 / 8_000)
    }

    @Test("IMA4 packets decode back to the tone that was written")
    func ima4DecodesToTheTone() throws {
        let frames = 4_410
        let samples = sineSamples(frames: frames, channels: 2, sampleRate: 44_100, amplitude: 0.8)
        let data = try SoundFileWriter.write(
            samples: samples, format: .init(container: .caf, encoding: .appleIMA4, sampleRate: 44_100, channels: 2))
        let info = try SoundFileReader.read(data)
        let start = Int(info.audioDataOffset)
        let packets = [UInt8](data[start..<(start + Int(info.audioDataByteCount))])
        let decoded = decodeAppleIMA4(packets, channels: 2, frames: frames)
        let errors = zip(samples, decoded).map { abs(Double($0) * 32767 - Double($1)) }
        // Once the step size has adapted (IMA starts at its smallest step).
        let worst = errors.dropFirst(2 * 16).max() ?? .infinity
        #expect(worst < 1_500, "IMA4 is lossy, but a 440 Hz tone must stay within ~5% of full scale")
    }

    @Test("AIFF sample rates are written and read as the 80-bit floats the facts list")
    func extendedSampleRates() {
        // shared/facts/system-sounds.md §4: 44100 = 40 0E AC 44 00…, 22050 = 40 0D AC 44 …, 48000 = 40 0E BB 80 …, 8000 = 40 0B FA 00 …
        let known: [(Double, [UInt8])] = [
            (44_100, [0x40, 0x0E, 0xAC, 0x44]), (22_050, [0x40, 0x0D, 0xAC, 0x44]),
            (48_000, [0x40, 0x0E, 0xBB, 0x80]), (8_000, [0x40, 0x0B, 0xFA, 0x00]),
        ]
        for (rate, prefix) in known {
            let bytes = SoundFileWriter.extended80(rate)
            #expect(bytes == prefix + [0, 0, 0, 0, 0, 0])
            let fields = ByteFields(bytes)
            #expect(AIFFReader<DataByteSource>.extended(exponent: fields.u16be(0), mantissa: fields.u64be(2)) == rate)
        }
        #expect(
            AIFFReader<DataByteSource>.extended(exponent: 0x400D, mantissa: 0xAC44_0000_0000_0000 | 1 << 40) > 22_050)
    }

    @Test("silence is all-zero samples of the requested length", arguments: SoundFileWriter.Container.allCases)
    func silence(container: SoundFileWriter.Container) throws {
        let data = try SoundFileWriter.silence(duration: 0.2, sampleRate: 8_000, channels: 2, container: container)
        let info = try SystemSoundValidator.check(data)
        #expect(info.frameCount == 1_600)
        #expect(info.duration == 0.2)
        let start = Int(info.audioDataOffset)
        #expect(data[start..<(start + Int(info.audioDataByteCount))].allSatisfy { $0 == 0 })
    }

    @Test("8-bit WAV silence is 0x80, the unsigned midpoint")
    func silentUnsignedWAV() throws {
        let data = try SoundFileWriter.write(
            samples: [0, 0, 0],
            format: .init(container: .wav, encoding: .linearPCM(bits: 8, isFloat: false), sampleRate: 8_000))
        let info = try SoundFileReader.read(data)
        #expect(data[Int(info.audioDataOffset)..<Int(info.audioDataOffset + 3)].elementsEqual([0x80, 0x80, 0x80]))
    }

    @Test("the writer refuses formats it cannot produce")
    func writerRefusals() {
        #expect(throws: SoundFileWriter.FormatError.self) {
            try SoundFileWriter.write(samples: [0], format: .init(container: .wav, encoding: .appleIMA4))
        }
        #expect(throws: SoundFileWriter.FormatError.self) {
            try SoundFileWriter.write(
                samples: [0], format: .init(container: .aiff, encoding: .linearPCM(bits: 32, isFloat: true)))
        }
        #expect(throws: SoundFileWriter.FormatError.self) { try SoundFileWriter.silence(duration: 1, channels: 0) }
        #expect(throws: SoundFileWriter.FormatError.self) { try SoundFileWriter.silence(duration: -1) }
        #expect(throws: SoundFileWriter.FormatError.self) {
            try SoundFileWriter.write(samples: [0, 0, 0], format: .init(container: .caf, channels: 2))
        }
    }

    @Test("reading a file on disk reads its headers only")
    func readsHeadersOnly() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("volumekit-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: url) }
        let data = try SoundFileWriter.write(
            samples: sineSamples(frames: 48_000 * 10, channels: 2, sampleRate: 48_000),
            format: .init(container: .wav, sampleRate: 48_000, channels: 2))
        try data.write(to: url)
        let file = try RegularFile.open(url.path, kind: "sound")
        defer { RegularFile.closeDescriptor(file.descriptor) }
        let source = DescriptorByteSource(fd: file.descriptor, byteCount: file.size)
        let info = try SoundFileReader.read(from: source)
        #expect(info.frameCount == 480_000)
        // One window of 4 KiB at the start holds the headers of a 1.9 MB file.
        #expect(source.readCalls == 1, "\(source.readCalls) reads of a \(data.count)-byte file")
        #expect(try SystemSoundValidator.check(contentsOf: url) == info)
    }

    @Test("a missing file is unreadable, not a crash")
    func missingFile() {
        let url = URL(fileURLWithPath: "/nonexistent/volumekit/missing.caf")
        guard case .failure(.unreadable) = soundResult({ try SoundFileReader.read(contentsOf: url) }) else {
            Issue.record("expected .unreadable")
            return
        }
    }
}
