import Foundation
import Testing
import VolumeKitCore

@Suite("The mute probe's bundled silent sound", .serialized)
struct MuteProbeSoundTests {
    static let resource = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/VolumeKit/Resources")
        .appendingPathComponent("\(MuteProbeSound.resourceName).\(MuteProbeSound.fileExtension)")

    @Test("The committed resource is exactly what the writer produces (VOLUMEKIT_WRITE_SILENT_SOUND=1 rewrites it)")
    func resourceMatchesWriter() throws {
        let expected = try MuteProbeSound.data()
        if ProcessInfo.processInfo.environment["VOLUMEKIT_WRITE_SILENT_SOUND"] == "1" {
            try expected.write(to: Self.resource)
        }
        let committed = try Data(contentsOf: Self.resource)
        #expect(committed == expected, "run scripts/make-silent-sound.sh")
    }

    @Test("It is a system sound AudioServices plays, as long as the probe timing says, and truly silent")
    func playableAndSilent() throws {
        let data = try Data(contentsOf: Self.resource)
        let info = try SystemSoundValidator.check(data)
        #expect(info.container == .caf)
        #expect(info.channels == 1)
        let duration = try #require(info.duration)
        #expect(abs(duration - MuteProbeTiming.standard.soundDuration) < 1.0 / MuteProbeSound.sampleRate)
        let samples = data.suffix(Int(info.audioDataByteCount))
        #expect(samples.count == Int(MuteProbeSound.sampleRate * MuteProbeSound.duration) * 2)
        #expect(samples.allSatisfy { $0 == 0 }, "every sample is zero")
    }
}
