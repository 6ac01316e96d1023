import Foundation
import Testing
import VolumeKitTesting

@testable import VolumeKitCore

@Suite("Malformed and unplayable sound files fail with the specific error")
struct SoundFileErrorTests {
    static let wav = try! SoundFileWriter.write(
        samples: sineSamples(frames: 800, channels: 1, sampleRate: 8_000),
        format: .init(container: .wav, sampleRate: 8_000))
    static let caf = try! SoundFileWriter.write(
        samples: sineSamples(frames: 800, channels: 1, sampleRate: 8_000),
        format: .init(container: .caf, sampleRate: 8_000))
    static let aiff = try! SoundFileWriter.write(
        samples: sineSamples(frames: 800, channels: 1, sampleRate: 8_000),
        format: .init(container: .aiff, sampleRate: 8_000))

    @Test("an empty file")
    func empty() {
        #expect(readResult(Data()) == .failure(.empty))
    }

    @Test("wrong magic is an unrecognized format")
    func wrongMagic() {
        #expect(readResult(Data("hello, world".utf8)) == .failure(.unrecognizedFormat(magic: "'hell'")))
        #expect(
            readResult(patched(Self.caf, at: 0, with: Array("cafe".utf8)))
                == .failure(.unrecognizedFormat(magic: "'cafe'")))
        // Bytes a terminal would act on are shown, not sent: ESC, BEL, a C1 CSI byte.
        #expect(
            readResult(Data([0x1B, 0x5B, 0x07, 0x9B] + Array(repeating: 0, count: 12)))
                == .failure(.unrecognizedFormat(magic: #"'\x1B[\x07\x9B'"#)))
    }

    @Test("known containers AudioServices refuses are named")
    func unsupportedContainers() {
        let cases: [([UInt8], String)] = [
            (Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 0], "MP3 (ID3 tag)"),
            ([0, 0, 0, 0x20] + Array("ftypM4A ".utf8), "MPEG-4 (M4A/MP4)"),
            (Array("fLaC".utf8) + [0, 0, 0, 34], "FLAC"),
            (Array("OggS".utf8) + [0, 2], "Ogg"),
            (Array("RIFF".utf8) + le32(4) + Array("AVI ".utf8), "RIFF 'AVI '"),
            (Array("FORM".utf8) + be32(4) + Array("8SVX".utf8), "IFF '8SVX'"),
            (Array("RF64".utf8) + le32(0xFFFF_FFFF) + Array("WAVE".utf8), "RF64 (64-bit WAV)"),
        ]
        for (bytes, name) in cases {
            #expect(readResult(Data(bytes)) == .failure(.unsupportedContainer(name)))
        }
    }

    @Test("a file cut short inside the header")
    func truncatedHeader() {
        #expect(
            readResult(Self.wav.prefix(6))
                == .failure(.truncated(.init(chunk: "file header", offset: 0), needed: 12, available: 6)))
        #expect(
            readResult(Self.caf.prefix(5))
                == .failure(.truncated(.init(chunk: "file header", offset: 0), needed: 8, available: 5)))
    }

    @Test("a file cut short inside a chunk names that chunk")
    func truncatedChunk() throws {
        let dataOffset = Int64(try #require(offset(of: "data", in: Self.wav)))
        // Cut in the audio data: the 'data' chunk declares 1,600 bytes.
        let cut = Self.wav.prefix(Int(dataOffset) + 8 + 100)
        #expect(
            readResult(cut)
                == .failure(.truncated(.init(chunk: "data", offset: dataOffset), needed: 1_600, available: 100)))
        // Cut inside 'fmt ' (at byte 12, 16 bytes).
        #expect(
            readResult(Self.wav.prefix(30))
                == .failure(.truncated(.init(chunk: "fmt ", offset: 12), needed: 16, available: 10)))
        // CAF cut in 'data'.
        let cafData = Int64(try #require(offset(of: "data", in: Self.caf)))
        #expect(
            readResult(Self.caf.prefix(Int(cafData) + 12 + 4 + 10))
                == .failure(.truncated(.init(chunk: "data", offset: cafData), needed: 1_604, available: 14)))
        // AIFF: COMM claims more frames than SSND holds.
        let comm = try #require(offset(of: "COMM", in: Self.aiff))
        let ssnd = Int64(try #require(offset(of: "SSND", in: Self.aiff)))
        #expect(
            readResult(patched(Self.aiff, at: comm + 10, with: be32(900)))
                == .failure(.truncated(.init(chunk: "SSND", offset: ssnd), needed: 1_800, available: 1_600)))
    }

    @Test("a chunk size past the end of its container")
    func oversizedChunk() throws {
        #expect(
            readResult(patched(Self.wav, at: 16, with: le32(0xFFFF_FF00)))
                == .failure(
                    .chunkTooLarge(
                        .init(chunk: "fmt ", offset: 12), size: 0xFFFF_FF00, limit: Int64(Self.wav.count) - 20)))
        let comm = Int64(try #require(offset(of: "COMM", in: Self.aiff)))
        #expect(
            readResult(patched(Self.aiff, at: Int(comm) + 4, with: be32(0x7FFF_0000)))
                == .failure(
                    .chunkTooLarge(
                        .init(chunk: "COMM", offset: comm), size: 0x7FFF_0000, limit: Int64(Self.aiff.count) - comm - 8)
                ))
        // CAF: a negative size, and one that overflows a 64-bit offset.
        #expect(
            readResult(patched(Self.caf, at: 12, with: be64(UInt64(bitPattern: -5))))
                == .failure(
                    .chunkTooLarge(.init(chunk: "desc", offset: 8), size: -5, limit: Int64(Self.caf.count) - 20)))
        #expect(
            readResult(patched(Self.caf, at: 12, with: be64(UInt64(Int64.max))))
                == .failure(
                    .chunkTooLarge(.init(chunk: "desc", offset: 8), size: .max, limit: Int64(Self.caf.count) - 20)))
    }

    @Test("a container or chunk too small for its fields is an invalid chunk size, with the least it must be")
    func undersizedChunks() throws {
        let fact = Data(
            Array(Self.wav.prefix(36)) + Array("fact".utf8) + le32(2) + [0, 0] + Array(Self.wav.dropFirst(36)))
        let comm = try #require(offset(of: "COMM", in: Self.aiff))
        let ssnd = try #require(offset(of: "SSND", in: Self.aiff))
        let cases: [(file: Data, value: String, at: SoundFileLocation)] = [
            (patched(Self.wav, at: 4, with: le32(2)), "2", .init(chunk: "RIFF", offset: 0)),
            (patched(Self.aiff, at: 4, with: be32(3)), "3", .init(chunk: "FORM", offset: 0)),
            (patched(Self.wav, at: 16, with: le32(14)), "14 (at least 16)", .init(chunk: "fmt ", offset: 12)),
            (
                patched(fact, at: 4, with: le32(UInt32(fact.count - 8))), "2 (at least 4)",
                .init(chunk: "fact", offset: 36)
            ),
            (
                patched(Self.aiff, at: comm + 4, with: be32(10)), "10 (at least 18)",
                .init(chunk: "COMM", offset: Int64(comm))
            ),
            (
                patched(Self.aiff, at: ssnd + 4, with: be32(6)), "6 (at least 8)",
                .init(chunk: "SSND", offset: Int64(ssnd))
            ),
        ]
        for (file, value, location) in cases {
            #expect(readResult(file) == .failure(.invalidField(.chunkSize, value: value, at: location)), "\(location)")
        }
    }

    @Test("a zero sample rate in each container")
    func zeroSampleRate() throws {
        #expect(
            readResult(patched(Self.wav, at: 24, with: le32(0)))
                == .failure(.invalidField(.sampleRate, value: "0", at: .init(chunk: "fmt ", offset: 12))))
        #expect(
            readResult(patched(Self.caf, at: 20, with: be64(0)))
                == .failure(.invalidField(.sampleRate, value: "0.0", at: .init(chunk: "desc", offset: 8))))
        let comm = try #require(offset(of: "COMM", in: Self.aiff))
        #expect(
            readResult(patched(Self.aiff, at: comm + 16, with: [UInt8](repeating: 0, count: 10)))
                == .failure(.invalidField(.sampleRate, value: "0.0", at: .init(chunk: "COMM", offset: Int64(comm)))))
    }

    @Test("other impossible fields")
    func invalidFields() throws {
        #expect(
            readResult(patched(Self.wav, at: 22, with: [0, 0]))
                == .failure(.invalidField(.channelCount, value: "0", at: .init(chunk: "fmt ", offset: 12))))
        #expect(
            readResult(patched(Self.wav, at: 32, with: [3, 0]))
                == .failure(.invalidField(.blockAlign, value: "3 (must be 2)", at: .init(chunk: "fmt ", offset: 12))))
        #expect(
            readResult(patched(Self.caf, at: 4, with: [0, 2]))
                == .failure(.invalidField(.fileVersion, value: "2", at: .init(chunk: "file header", offset: 4))))
        #expect(
            readResult(patched(Self.caf, at: 8, with: Array("free".utf8)))
                == .failure(
                    .invalidField(.chunkOrder, value: "'free' before 'desc'", at: .init(chunk: "free", offset: 8))))
    }

    @Test("CAF and WAV refuse the same linear PCM sample sizes: outside 1…64 bits, or a float not 32 or 64 bits")
    func linearPCMBits() {
        let desc = SoundFileLocation(chunk: "desc", offset: 8)
        let fmt = SoundFileLocation(chunk: "fmt ", offset: 12)
        // CAF's `desc`: flags (bit 0: float) at byte 32, bits at 48; WAV's `fmt `: tag at 20, bits at 34.
        let cases: [(file: Data, bits: String, at: SoundFileLocation)] = [
            (patched(Self.caf, at: 48, with: be32(0)), "0", desc),
            (patched(Self.caf, at: 48, with: be32(65)), "65", desc),
            (patched(Self.caf, at: 32, with: be32(1)), "16", desc),
            (patched(Self.wav, at: 34, with: [0, 0]), "0", fmt),
            (patched(Self.wav, at: 34, with: [65, 0]), "65", fmt),
            (patched(Self.wav, at: 20, with: [3, 0]), "16", fmt),
        ]
        for (file, bits, location) in cases {
            #expect(
                readResult(file) == .failure(.invalidField(.bitsPerSample, value: bits, at: location)), "\(location)")
        }
    }

    @Test("an unknown codec is an unsupported encoding, named")
    func unknownCodec() throws {
        let caf = patched(Self.caf, at: 28, with: Array("zzzz".utf8))
        #expect(try SoundFileReader.read(caf).encoding == .other("'zzzz'"))
        #expect(checkResult(caf) == .failure(.unsupportedEncoding(.other("'zzzz'"))))
        #expect(
            checkResult(patched(Self.wav, at: 20, with: [0x34, 0x12]))
                == .failure(.unsupportedEncoding(.other("WAVE format 0x1234"))))
        #expect(
            checkResult(patched(Self.caf, at: 28, with: Array("aac ".utf8))) == .failure(.unsupportedEncoding(.aac)))
    }

    @Test("longer than 30 seconds is too long, with the length; exactly 30 passes")
    func tooLong() throws {
        let format = SoundFileWriter.Format(
            container: .wav, encoding: .linearPCM(bits: 8, isFloat: false), sampleRate: 8_000)
        let long = try SoundFileWriter.write(samples: [Float](repeating: 0, count: 8_000 * 31 + 4_000), format: format)
        #expect(checkResult(long) == .failure(.tooLong(seconds: 31.5, limit: 30)))
        let thirty = try SoundFileWriter.write(samples: [Float](repeating: 0, count: 8_000 * 30), format: format)
        #expect(try SystemSoundValidator.check(thirty).duration == 30)
    }

    @Test("missing chunks are named")
    func missingChunks() {
        let onlyFormat = Data(Array("RIFF".utf8) + le32(28) + Array("WAVE".utf8) + Array(Self.wav[12..<36]))
        #expect(readResult(onlyFormat) == .failure(.missingChunk("data")))
        #expect(readResult(Data(Array("caff".utf8) + [0, 1, 0, 0])) == .failure(.missingChunk("desc")))
    }

    @Test("a flood of empty chunks stops at the chunk limit")
    func chunkFlood() {
        var bytes = [UInt8](Self.caf.prefix(8 + 12 + 32))
        for _ in 0...SoundFileReader.maximumChunkCount { bytes += Array("free".utf8) + be64(0) }
        #expect(readResult(Data(bytes)) == .failure(.tooManyChunks(limit: SoundFileReader.maximumChunkCount)))
    }

    @Test("every prefix and thousands of byte mutations give facts or a typed error")
    func robustness() {
        var generator = SeededRandom(seed: 7)
        for file in [Self.wav, Self.caf, Self.aiff] {
            for length in 0...min(file.count, 200) { _ = readResult(file.prefix(length)) }
            for _ in 0..<2_000 {
                var bytes = [UInt8](file.prefix(120))
                for _ in 0..<(1 + Int(generator.next() % 4)) {
                    bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
                }
                if case let .success(info) = readResult(Data(bytes)) {
                    #expect(info.sampleRate > 0 && info.channels > 0)
                    #expect(info.audioDataOffset + info.audioDataByteCount <= Int64(bytes.count))
                }
            }
        }
    }
}
