import Foundation
import VolumeKitCore

/// Files checked per second: `SystemSoundValidator.check(contentsOf:)` over a folder of 1,000 generated
/// sound files of every kind the writer produces, side by side with `soxi` reading the same files in one
/// process (when it is installed).
enum SoundsBenchmark {
    /// `soxi` over every file in one process, best of 5, against VolumeKit's best pass.
    static func soxi(_ urls: [URL], ours: Double) {
        guard let soxi = ["/usr/bin/soxi", "/usr/local/bin/soxi"].first(where: FileManager.default.isExecutableFile)
        else {
            print("sounds: vs soxi: skipped (apt-get install sox libsox-fmt-all)")
            return
        }
        var best = Double.infinity
        for _ in 0..<5 {
            // soxi exits non-zero when one file is not to its liking; its time still counts.
            let start = DispatchTime.now().uptimeNanoseconds
            let process = Process()
            process.executableURL = URL(fileURLWithPath: soxi)
            process.arguments = urls.map(\.path)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { return }
            process.waitUntilExit()
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        print(
            String(
                format:
                    "sounds: per file, best of 5: VolumeKit check %.1f µs vs soxi (one process) %.1f µs (%.2f×; target ≤ 1.00×)",
                ours / Double(urls.count) * 1e6, best / Double(urls.count) * 1e6, ours / best))
    }

    static func run() {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("volumekit-bench-sounds-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let formats: [SoundFileWriter.Format] = [
                .init(container: .caf, sampleRate: 44_100, channels: 2),
                .init(container: .caf, encoding: .appleIMA4, sampleRate: 22_050),
                .init(container: .aiff, sampleRate: 48_000),
                .init(container: .aiffc, sampleRate: 44_100, isLittleEndian: true),
                .init(container: .aiffc, encoding: .appleIMA4, sampleRate: 44_100, channels: 2),
                .init(container: .wav, sampleRate: 16_000),
                .init(
                    container: .wavExtensible, encoding: .linearPCM(bits: 24, isFloat: false), sampleRate: 48_000,
                    channels: 2),
                .init(container: .wav, encoding: .linearPCM(bits: 32, isFloat: true), sampleRate: 8_000),
            ]
            var urls = [URL]()
            var totalBytes = 0
            for index in 0..<1_000 {
                let format = formats[index % formats.count]
                let frames = Int(format.sampleRate * (0.05 + Double(index % 10) * 0.05))
                let samples = (0..<(frames * format.channels)).map { Float(sin(Double($0) * 0.05)) * 0.5 }
                let data = try SoundFileWriter.write(samples: samples, format: format)
                let url = folder.appendingPathComponent(
                    String(format: "sound-%04d.%@", index, format.container.fileExtension))
                try data.write(to: url)
                urls.append(url)
                totalBytes += data.count
            }

            var passes = [Double]()
            var failures = 0
            for _ in 0..<5 {
                let start = DispatchTime.now().uptimeNanoseconds
                for url in urls {
                    do { try SystemSoundValidator.check(contentsOf: url) } catch { failures += 1 }
                }
                passes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            }
            var headerBytes: Int64 = 0
            for url in urls {
                guard let file = try? RegularFile.open(url.path, kind: "sound") else { continue }
                defer { RegularFile.closeDescriptor(file.descriptor) }
                let source = CountingByteSource(descriptor: file.descriptor, byteCount: file.size)
                _ = try? SoundFileReader.read(from: source)
                headerBytes += source.bytesRead
            }
            let best = passes.min() ?? 0
            let median = passes.sorted()[passes.count / 2]
            print(
                String(
                    format:
                        "sounds: checked %d files (%.1f MB on disk) — best %.1f ms = %.0f files/s, median %.1f ms = %.0f files/s; %d failures",
                    urls.count, Double(totalBytes) / 1e6, best * 1e3, Double(urls.count) / best,
                    median * 1e3, Double(urls.count) / median, failures))
            print(
                String(
                    format: "sounds: header bytes read per file: %.0f (of %.0f on average)",
                    Double(headerBytes) / Double(urls.count), Double(totalBytes) / Double(urls.count)))
            soxi(urls, ours: best)
        } catch {
            print("sounds: benchmark failed: \(error)")
        }
    }
}

/// A sound file read with one `pread` per request, counting the bytes: how much of a file the header check
/// reads.
private final class CountingByteSource: SoundByteSource {
    let descriptor: Int32
    let byteCount: Int64
    private(set) var bytesRead: Int64 = 0

    init(descriptor: Int32, byteCount: Int64) {
        self.descriptor = descriptor
        self.byteCount = byteCount
    }

    func bytes(at offset: Int64, count: Int) throws -> [UInt8] {
        guard offset >= 0, count > 0, offset < byteCount else { return [] }
        var buffer = [UInt8](repeating: 0, count: count)
        let read = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
        guard read >= 0 else { throw SoundFileError.unreadable(reason: "reading failed at byte \(offset)") }
        bytesRead += Int64(read)
        return Array(buffer.prefix(read))
    }
}
