import Foundation
import Testing

@testable import VolumeKitCore

/// Files VolumeKit did not write: Python's `wave`/`aifc` modules and bytes laid out by hand
/// (`scripts/make-sound-fixtures.py`).
@Suite("Committed fixtures from outside VolumeKit's writer")
struct SoundFixtureTests {
    static func url(_ name: String) throws -> URL {
        try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil))
    }

    static func check(_ name: String) throws -> Result<SoundFileInfo, SoundFileError> {
        let url = try url(name)
        return soundResult { try SystemSoundValidator.check(contentsOf: url) }
    }

    @Test("Python wave: 16-bit stereo WAV")
    func pythonWAV() throws {
        let info = try Self.check("python-pcm16-stereo.wav").get()
        #expect(info.container == .wav && info.encoding == .linearPCM(isFloat: false, isBigEndian: false))
        #expect(info.sampleRate == 44_100 && info.channels == 2 && info.bitsPerSample == 16)
        #expect(info.frameCount == 441 && info.duration == 0.01)
    }

    @Test("Python aifc: 8-bit mono AIFF with an 80-bit 22,050 Hz rate")
    func pythonAIFF() throws {
        let info = try Self.check("python-pcm8-mono.aiff").get()
        #expect(info.container == .aiff && info.encoding == .linearPCM(isFloat: false, isBigEndian: true))
        #expect(info.sampleRate == 22_050 && info.channels == 1 && info.bitsPerSample == 8 && info.frameCount == 220)
    }

    @Test("Python aifc: µ-law AIFF-C is read, then refused as an unsupported encoding")
    func pythonULaw() throws {
        let info = try SoundFileReader.read(contentsOf: Self.url("python-ulaw.aifc"))
        #expect(info.container == .aiffc && info.frameCount == 100)
        #expect(try Self.check("python-ulaw.aifc") == .failure(.unsupportedEncoding(.uLaw)))
    }

    @Test("hand-made IMA4 CAF: the 'pakt' valid-frame count wins over the padded packets")
    func ima4CAF() throws {
        let info = try Self.check("handmade-ima4.caf").get()
        #expect(info.encoding == .appleIMA4 && info.sampleRate == 16_000 && info.frameCount == 100)
        #expect(info.audioDataByteCount == 68)
    }

    @Test("hand-made AAC CAF: frames from 'pakt', refused as AAC")
    func aacCAF() throws {
        let info = try SoundFileReader.read(contentsOf: Self.url("handmade-aac.caf"))
        #expect(info.encoding == .aac && info.frameCount == 2_900 && info.channels == 2)
        #expect(try Self.check("handmade-aac.caf") == .failure(.unsupportedEncoding(.aac)))
    }

    @Test("hand-made IMA ADPCM WAV: frames from 'fact'")
    func imaADPCMWAV() throws {
        let info = try Self.check("handmade-ima-adpcm.wav").get()
        #expect(
            info.encoding == .imaADPCM && info.frameCount == 1_000 && info.duration == 0.125 && info.bitsPerSample == 4)
    }

    @Test("hand-made WAVE_FORMAT_EXTENSIBLE: 24 valid bits, past an odd-sized chunk")
    func extensible() throws {
        let info = try Self.check("handmade-extensible-24in32.wav").get()
        #expect(info.encoding == .linearPCM(isFloat: false, isBigEndian: false))
        #expect(info.bitsPerSample == 24 && info.channels == 2 && info.sampleRate == 96_000 && info.frameCount == 48)
    }

    @Test("an ID3-tagged MP3 is an unsupported container")
    func mp3() throws {
        #expect(try Self.check("id3-tagged.mp3") == .failure(.unsupportedContainer("MP3 (ID3 tag)")))
    }
}
